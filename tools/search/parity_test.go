package search

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// TestEngineParity runs the rg engine and the Go engine over the same tree for every pattern
// and option set and requires byte-identical tool output.
func TestEngineParity(t *testing.T) {
	getenv := isolatedEnv(t)
	dir := makeFixture(t)
	rg := ripgrep(t)
	env := newEnv(t, dir)
	rgTool, goTool := NewGrep(Options{Ripgrep: rg, Getenv: getenv}), NewGrep(Options{Getenv: getenv})
	for _, pattern := range parityPatterns {
		for _, opts := range parityOptions {
			in := map[string]any{"pattern": pattern}
			for k, v := range opts {
				in[k] = v
			}
			raw, _ := json.Marshal(in)
			t.Run(string(raw), func(t *testing.T) {
				t.Parallel()
				want := run(t, rgTool, env, string(raw))
				got := run(t, goTool, env, string(raw))
				if diff := cmp.Diff(want.TextOf(), got.TextOf()); diff != "" {
					t.Errorf("Go engine differs from rg (-rg +go):\n%s", diff)
				}
				if want.IsError != got.IsError {
					t.Errorf("IsError: rg %v, go %v", want.IsError, got.IsError)
				}
			})
		}
	}
}

// TestEngineParityNoGitRepo checks that .gitignore is ignored outside a git repository
// (ripgrep's default), while .ignore still applies.
func TestEngineParityNoGitRepo(t *testing.T) {
	getenv := isolatedEnv(t)
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
	for _, opts := range []Options{{Ripgrep: ripgrep(t), Getenv: getenv}, {Getenv: getenv}} {
		got := run(t, NewGrep(opts), env, `{"pattern":"alpha"}`).TextOf()
		if got != want {
			t.Errorf("engine %q: got %q, want %q", opts.Ripgrep, got, want)
		}
	}
}

func ExampleNewGrep() {
	// The model-facing flags of Grep use ripgrep's names.
	fmt.Println(GrepName)
	// Output: Grep
}
