package search

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// engines returns both Grep configurations, so every expectation holds for each. Without rg
// on PATH only the Go engine is returned, and a skipped subtest "rg" says so.
func engines(t *testing.T) map[string]Options {
	getenv := isolatedEnv(t)
	out := map[string]Options{"go": {Getenv: getenv}}
	if rg, err := exec.LookPath("rg"); err == nil {
		out["rg"] = Options{Ripgrep: rg, Getenv: getenv}
	} else {
		t.Run("rg", func(t *testing.T) {
			t.Skip("rg is not on PATH: only the Go engine was checked (apt-get install ripgrep; .ci/run installs it)")
		})
	}
	return out
}

func TestGrepOutputFormats(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, [][2]string{
		{"old.txt", "needle one\nhay\n"},
		{"mid.go", "hay\nneedle two\nneedle three\n"},
		{"new/new.txt", "needle four\n"},
		{"none.txt", "hay only\n"},
	})
	tests := []struct {
		input, want string
	}{
		{`{"pattern":"needle"}`, "Found 3 files\nnew/new.txt\nmid.go\nold.txt"},
		{`{"pattern":"absent"}`, "No files found"},
		{`{"pattern":"absent","output_mode":"content"}`, "No matches found"},
		{`{"pattern":"absent","output_mode":"count"}`, "No matches found\n\nFound 0 total occurrences across 0 files."},
		{`{"pattern":"needle","output_mode":"content"}`, "mid.go:2:needle two\nmid.go:3:needle three\nnew/new.txt:1:needle four\nold.txt:1:needle one"},
		{`{"pattern":"needle","output_mode":"content","-n":false}`, "mid.go:needle two\nmid.go:needle three\nnew/new.txt:needle four\nold.txt:needle one"},
		{`{"pattern":"needle","output_mode":"count"}`, "mid.go:2\nnew/new.txt:1\nold.txt:1\n\nFound 4 total occurrences across 3 files."},
		{`{"pattern":"four","output_mode":"count"}`, "new/new.txt:1\n\nFound 1 total occurrence across 1 file."},
		{`{"pattern":"four"}`, "Found 1 file\nnew/new.txt"},
		{`{"pattern":"needle","head_limit":2}`, "Found 2 files limit: 2\nnew/new.txt\nmid.go"},
		{`{"pattern":"needle","head_limit":1,"offset":1}`, "Found 1 file limit: 1, offset: 1\nmid.go"},
		{`{"pattern":"needle","offset":2}`, "Found 1 file offset: 2\nold.txt"},
		{`{"pattern":"needle","offset":9}`, "No files found"},
		{`{"pattern":"needle","output_mode":"content","head_limit":2}`, "mid.go:2:needle two\nmid.go:3:needle three\n\n[Showing results with pagination = limit: 2]"},
		{`{"pattern":"needle","output_mode":"content","head_limit":0,"offset":3}`, "old.txt:1:needle one\n\n[Showing results with pagination = offset: 3]"},
		{`{"pattern":"needle","output_mode":"count","head_limit":1}`, "mid.go:2\n\nFound 2 total occurrences across 1 file. with pagination = limit: 1"},
		{`{"pattern":"two","output_mode":"content","-C":1}`, "mid.go-1-hay\nmid.go:2:needle two\nmid.go-3-needle three"},
		{`{"pattern":"one|four","output_mode":"content","-A":1}`, "new/new.txt:1:needle four\n--\nold.txt:1:needle one\nold.txt-2-hay"},
		// context wins over -C, which wins over -A/-B.
		{`{"pattern":"three","output_mode":"content","context":0,"-C":2,"-B":1}`, "mid.go:3:needle three"},
		{`{"pattern":"three","output_mode":"content","-C":0,"-B":1}`, "mid.go:3:needle three"},
		{`{"pattern":"three","output_mode":"content","-B":1}`, "mid.go-2-needle two\nmid.go:3:needle three"},
		// Context parameters are ignored outside content mode.
		{`{"pattern":"three","-C":5}`, "Found 1 file\nmid.go"},
		{`{"pattern":"NEEDLE ONE","-i":true}`, "Found 1 file\nold.txt"},
		{`{"pattern":"needle","glob":"*.go"}`, "Found 1 file\nmid.go"},
		{`{"pattern":"needle","type":"go"}`, "Found 1 file\nmid.go"},
		{`{"pattern":"needle","glob":"*.go new/*"}`, "Found 2 files\nnew/new.txt\nmid.go"},
		{`{"pattern":"needle","path":"new"}`, "Found 1 file\nnew/new.txt"},
		// A file named explicitly: lines without the file name, as rg prints them.
		{`{"pattern":"needle","path":"mid.go","output_mode":"content"}`, "2:needle two\n3:needle three"},
		{`{"pattern":"needle","path":"mid.go","output_mode":"count"}`, "mid.go:2\n\nFound 2 total occurrences across 1 file."},
		{`{"pattern":"hay\\nneedle","multiline":true,"output_mode":"content"}`, "mid.go:1:hay\nmid.go:2:needle two"},
	}
	for name, opts := range engines(t) {
		g := NewGrep(opts)
		env := newEnv(t, dir)
		for _, tt := range tests {
			t.Run(name+" "+tt.input, func(t *testing.T) {
				res := run(t, g, env, tt.input)
				if res.IsError {
					t.Fatalf("error result: %s", res.TextOf())
				}
				if diff := cmp.Diff(tt.want, res.TextOf()); diff != "" {
					t.Errorf("output mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestGrepValidation(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, [][2]string{{"a.txt", "x\n"}})
	env := newEnv(t, dir)
	g := NewGrep(Options{})
	tests := []struct {
		input, want string
	}{
		{`{"pattern":"a(?=b)"}`, `Invalid regular expression "a(?=b)": look-around, including look-ahead and look-behind, is not supported.`},
		{`{"pattern":"(?<!x)y"}`, `look-around`},
		{`{"pattern":"(a)\\1"}`, `Invalid regular expression "(a)\\1": backreferences are not supported`},
		{`{"pattern":"a(b"}`, "Invalid regular expression \"a(b\": missing closing ): `a(b`"},
		{`{"pattern":"a\\nb"}`, `the literal "\n" is not allowed in a regex unless multiline is true`},
		{`{"pattern":"x","type":"nosuchtype"}`, `Unknown file type "nosuchtype" for the type parameter (ripgrep: unrecognized file type: nosuchtype)`},
		{`{"pattern":"x","path":"missing"}`, "Path does not exist: missing. Note: your current working directory is " + dir + "."},
		{`{"pattern":"x","glob":"a\\"}`, "Invalid glob parameter"},
		{`{"pattern":"x","output_mode":"lines"}`, "The parameter `output_mode` must be one of"},
		{`{"pattern":"x","head_limit":-1}`, "The parameter `head_limit` must be at least 0"},
		{`{"pattern":"x","-A":"2"}`, "The parameter `-A` type is expected as `integer` but provided as `string`"},
		{`{}`, "The required parameter `pattern` is missing"},
		{`{"pattern":"x","bogus":1}`, "An unexpected parameter `bogus` was provided"},
	}
	for _, tt := range tests {
		t.Run(tt.input, func(t *testing.T) {
			res := run(t, g, env, tt.input)
			if !res.IsError || !strings.Contains(res.TextOf(), tt.want) {
				t.Errorf("got %q (error %v), want an error containing %q", res.TextOf(), res.IsError, tt.want)
			}
		})
	}
	// Valid multiline patterns may contain newlines.
	if res := run(t, g, env, `{"pattern":"a\\nb","multiline":true}`); res.IsError {
		t.Errorf("multiline newline pattern refused: %s", res.TextOf())
	}
}

func TestGrepHidesReadDeniedFiles(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, [][2]string{
		{"secret/key.txt", "token=abc\n"},
		{"secret.env", "token=def\n"},
		{"public.txt", "token=ghi\n"},
	})
	env := newEnv(t, dir, denyRead("secret/**"), denyRead("*.env"))
	for name, opts := range engines(t) {
		g := NewGrep(opts)
		for input, want := range map[string]string{
			`{"pattern":"token"}`:                         "Found 1 file\npublic.txt",
			`{"pattern":"token","output_mode":"content"}`: "public.txt:1:token=ghi",
			`{"pattern":"token","output_mode":"count"}`:   "public.txt:1\n\nFound 1 total occurrence across 1 file.",
		} {
			if got := run(t, g, env, input).TextOf(); got != want {
				t.Errorf("%s %s: got %q, want %q", name, input, got, want)
			}
		}
	}
}

func TestGrepPathsOutsideCwdAreAbsolute(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, [][2]string{{"other/a.txt", "hit\n"}, {"cwd/b.txt", "hit\n"}})
	env := newEnv(t, filepath.Join(root, "cwd"))
	got := run(t, NewGrep(Options{}), env, fmt.Sprintf(`{"pattern":"hit","path":%q}`, root)).TextOf()
	want := "Found 2 files\nb.txt\n" + filepath.Join(root, "other", "a.txt")
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestGrepSkipsBinaryFileNamedExplicitly(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, [][2]string{{"b.bin", "hit\x00\n"}})
	for name, opts := range engines(t) {
		got := run(t, NewGrep(opts), newEnv(t, dir), `{"pattern":"hit","path":"b.bin","output_mode":"content"}`).TextOf()
		if got != "No matches found" {
			t.Errorf("%s: got %q", name, got)
		}
	}
}

func TestGrepCheckPermissions(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, [][2]string{{"cwd/a.txt", "x\n"}, {"cwd/secret/b.txt", "x\n"}, {"out/c.txt", "x\n"}})
	cwd := filepath.Join(root, "cwd")
	pc, err := permission.New(permission.Config{Cwd: cwd, Home: t.TempDir(), Rules: []permission.Rule{denyRead("secret")}})
	if err != nil {
		t.Fatal(err)
	}
	g := NewGrep(Options{})
	for input, want := range map[string]permission.Behavior{
		`{"pattern":"x"}`:                 permission.Allow,
		`{"pattern":"x","path":"a.txt"}`:  permission.Allow,
		`{"pattern":"x","path":"secret"}`: permission.Deny,
		`{"pattern":"x","path":"../out"}`: permission.Ask,
		`{"pattern":"x","path":"/"}`:      permission.Ask,
	} {
		in, err := g.Decode(json.RawMessage(input))
		if err != nil {
			t.Fatal(err)
		}
		if got := g.CheckPermissions(context.Background(), pc, in).Behavior; got != want {
			t.Errorf("%s: %s, want %s", input, got, want)
		}
	}
}

func TestGrepSchemaUsesClaudeCodeFieldNames(t *testing.T) {
	var s struct {
		Properties map[string]struct {
			Type string   `json:"type"`
			Enum []string `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(NewGrep(Options{}).Spec().InputSchema, &s); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"pattern": "string", "path": "string", "glob": "string", "output_mode": "string",
		"-A": "integer", "-B": "integer", "-C": "integer", "context": "integer", "-n": "boolean", "-i": "boolean",
		"type": "string", "head_limit": "integer", "offset": "integer", "multiline": "boolean"}
	got := map[string]string{}
	for k, v := range s.Properties {
		got[k] = v.Type
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("schema properties (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"content", "files_with_matches", "count"}, s.Properties["output_mode"].Enum); diff != "" {
		t.Errorf("output_mode enum (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"pattern"}, s.Required); diff != "" {
		t.Errorf("required (-want +got):\n%s", diff)
	}
}

func TestGrepFlags(t *testing.T) {
	g := NewGrep(Options{})
	in, _ := g.Decode(json.RawMessage(`{"pattern":"x"}`))
	if !g.Is(tool.ReadOnly, in) || !g.Is(tool.ConcurrencySafe, in) || g.Spec().Defer || g.RequiresUserInteraction() {
		t.Errorf("flags: readOnly %v concurrencySafe %v defer %v userInteraction %v", g.Is(tool.ReadOnly, in), g.Is(tool.ConcurrencySafe, in), g.Spec().Defer, g.RequiresUserInteraction())
	}
}

func TestGrepCancel(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := t.TempDir()
	for i := range 200 {
		writeTree(t, dir, [][2]string{{fmt.Sprintf("d%d/f.txt", i), "x\n"}})
	}
	for name, opts := range engines(t) {
		g := NewGrep(opts)
		env := newEnv(t, dir)
		in, _ := g.Decode(json.RawMessage(`{"pattern":"x"}`))
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := g.Call(ctx, in, env); err == nil {
			t.Errorf("%s: a cancelled search returned no error", name)
		}
	}
}

func TestGrepLargeFileIsMapped(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "big.txt"))
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat("filler ", 20) + "\n"
	for f.Truncate(0); ; {
		fi, _ := f.Stat()
		if fi.Size() > mmapThreshold+1 {
			break
		}
		f.WriteString(strings.Repeat(line, 1000))
	}
	f.WriteString("the needle\n")
	f.Close()
	got := run(t, NewGrep(Options{}), newEnv(t, dir), `{"pattern":"needle","output_mode":"count"}`).TextOf()
	if want := "big.txt:1\n\nFound 1 total occurrence across 1 file."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	var scratch []byte
	for _, size := range []int{0, 1, readChunk - 1, readChunk, readChunk + 1, 3*readChunk + 7} {
		want := strings.Repeat("a", size)
		p := filepath.Join(dir, fmt.Sprint(size))
		if err := os.WriteFile(p, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		data, release, err := loadFile(p, &scratch)
		if err != nil || string(data) != want {
			t.Errorf("size %d: got %d bytes, %v", size, len(data), err)
		}
		release()
	}
}

func TestGrepLeavesNoGoroutines(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := t.TempDir()
	writeTree(t, dir, [][2]string{{"a/b.txt", "x\n"}, {"c.txt", "x\n"}})
	for name, opts := range engines(t) {
		if got := run(t, NewGrep(opts), newEnv(t, dir), `{"pattern":"x"}`).TextOf(); !strings.HasPrefix(got, "Found 2 files") {
			t.Errorf("%s: %q", name, got)
		}
	}
}
