package search

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinsdev/reins/tool"
)

// parityCases are Grep inputs (without the pattern) combined with every pattern below.
var parityOptions = []map[string]any{
	{},
	{"output_mode": "count"},
	{"output_mode": "content"},
	{"output_mode": "content", "-n": false},
	{"output_mode": "content", "-C": 1},
	{"output_mode": "content", "-A": 2},
	{"output_mode": "content", "-B": 2, "-n": false},
	{"output_mode": "content", "context": 3, "-A": 1},
	{"output_mode": "content", "-i": true},
	{"-i": true},
	{"output_mode": "count", "-i": true},
	{"output_mode": "content", "multiline": true},
	{"output_mode": "count", "multiline": true},
	{"output_mode": "content", "multiline": true, "-C": 1},
	{"glob": "*.go"},
	{"output_mode": "content", "glob": "*.{go,py}"},
	{"glob": "!*.txt"},
	{"glob": "src/*.go"},
	{"output_mode": "count", "glob": "*.txt,*.md"},
	{"glob": "**/*.tmp"},
	{"glob": "*.log"},
	{"type": "go"},
	{"output_mode": "content", "type": "py"},
	{"type": "make"},
	{"type": "docker", "glob": "*.txt"},
	{"path": "src"},
	{"path": "src", "output_mode": "content"},
	{"path": "long.txt", "output_mode": "content"},
	{"path": "long.txt", "output_mode": "count"},
	{"path": "long.txt"},
	{"path": "build/x.go", "output_mode": "content"},
	{"path": "sub", "output_mode": "content", "-C": 2},
	{"output_mode": "content", "head_limit": 3},
	{"output_mode": "content", "head_limit": 0, "offset": 2},
	{"head_limit": 2, "offset": 1},
	{"output_mode": "count", "head_limit": 2},
}

var parityPatterns = []string{
	"alpha", "ALPHA", "beta", "^foo", "foo$", "a.*a", `\bfoo\b`, "x|y", "", `\d+`, "[A-Z]+",
	"-alpha", `foo\nfoo`, "oo$", `foo.foo`, `\s+bar`, "k", "ß", "filler", `^$`, "nomatchanywhere",
}

var update = flag.Bool("update", false, "record the golden outputs in testdata from rg (needs rg on PATH)")

// parityGolden holds ripgrep's output for every parity input over the fixture tree, recorded
// with -update, so the Go engine is held to rg's behaviour on machines without rg.
const parityGolden = "testdata/rg-parity.golden.json"

// goldenOutput is one recorded rg result. The fixture directory reads as $DIR.
type goldenOutput struct {
	Input   string `json:"input"`
	Text    string `json:"text"`
	IsError bool   `json:"is_error,omitempty"`
}

func parityInputs() []string {
	var out []string
	for _, pattern := range parityPatterns {
		for _, opts := range parityOptions {
			in := map[string]any{"pattern": pattern}
			for k, v := range opts {
				in[k] = v
			}
			raw, _ := json.Marshal(in)
			out = append(out, string(raw))
		}
	}
	return out
}

// TestEngineParity runs the Go engine over the fixture tree for every pattern and option set
// and requires byte-identical tool output to ripgrep's: the recorded output always, and rg
// itself when it is on PATH.
func TestEngineParity(t *testing.T) {
	getenv := isolatedEnv(t)
	dir := makeFixture(t)
	env := newEnv(t, dir)
	goTool := NewGrep(Options{Getenv: getenv})
	norm := func(r tool.Result) goldenOutput {
		return goldenOutput{Text: strings.ReplaceAll(r.TextOf(), dir, "$DIR"), IsError: r.IsError}
	}
	rg, _ := exec.LookPath("rg")
	if *update {
		if rg == "" {
			t.Fatal("-update records rg's output: rg is not on PATH (apt-get install ripgrep)")
		}
		rgTool := NewGrep(Options{Ripgrep: rg, Getenv: getenv})
		var recorded []goldenOutput
		for _, in := range parityInputs() {
			g := norm(run(t, rgTool, env, in))
			g.Input = in
			recorded = append(recorded, g)
		}
		b, err := json.MarshalIndent(recorded, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(parityGolden, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(parityGolden)
	if err != nil {
		t.Fatal(err)
	}
	var golden []goldenOutput
	if err := json.Unmarshal(b, &golden); err != nil {
		t.Fatalf("%s: %v", parityGolden, err)
	}
	want := map[string]goldenOutput{}
	for _, g := range golden {
		want[g.Input] = goldenOutput{Text: g.Text, IsError: g.IsError}
	}
	for _, in := range parityInputs() {
		t.Run(in, func(t *testing.T) {
			t.Parallel()
			w, ok := want[in]
			if !ok {
				t.Fatalf("no recorded rg output for this input: run go test -run TestEngineParity -update with rg on PATH")
			}
			got := norm(run(t, goTool, env, in))
			if diff := cmp.Diff(w, got); diff != "" {
				t.Errorf("Go engine differs from recorded rg output (-rg +go):\n%s", diff)
			}
		})
	}
	t.Run("live rg", func(t *testing.T) {
		if testing.Short() {
			t.Skip("runs rg over every fixture: -short leaves it out; the whole suite runs it")
		}
		if rg == "" {
			t.Skip("rg is not on PATH: the recorded outputs were checked; the live comparison needs ripgrep (apt-get install ripgrep)")
		}
		rgTool := NewGrep(Options{Ripgrep: rg, Getenv: getenv})
		for _, in := range parityInputs() {
			live := norm(run(t, rgTool, env, in))
			if diff := cmp.Diff(want[in], live); diff != "" {
				t.Errorf("%s: rg's live output differs from the recording (a new rg version? re-record with -update) (-recorded +live):\n%s", in, diff)
			}
		}
	})
}

// TestEngineParityNoGitRepo checks that .gitignore is ignored outside a git repository
// (ripgrep's default), while .ignore still applies.
func TestEngineParityNoGitRepo(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, [][2]string{
		{".gitignore", "*.log\n"},
		{".ignore", "skip.txt\n"},
		{"a.log", "alpha\n"},
		{"skip.txt", "alpha\n"},
		{"b.txt", "alpha\n"},
	})
	env := newEnv(t, dir)
	want := "Found 2 files\nb.txt\na.log"
	for name, opts := range engines(t) {
		got := run(t, NewGrep(opts), env, `{"pattern":"alpha"}`).TextOf()
		if got != want {
			t.Errorf("engine %s: got %q, want %q", name, got, want)
		}
	}
}

func ExampleNewGrep() {
	// The model-facing flags of Grep use ripgrep's names.
	fmt.Println(GrepName)
	// Output: Grep
}
