package search

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinsdev/reins/permission"
)

func TestGlob(t *testing.T) {
	root := t.TempDir()
	cwd := filepath.Join(root, "proj")
	// Written oldest first.
	writeTree(t, cwd, [][2]string{
		{"main.go", ""},
		{"src/a.go", ""},
		{"src/deep/b.go", ""},
		{"src/c.ts", ""},
		{".hidden/h.go", ""},
		{".git/objects/x.go", ""},
		{"ignored/i.go", ""},
		{".gitignore", "ignored/\n"},
		{"README.md", ""},
	})
	writeTree(t, root, [][2]string{{"outside/o.go", ""}})
	env := newEnv(t, cwd)
	g := NewGlob(Options{})
	tests := []struct {
		input, want string
	}{
		// Newest first; a slash-less pattern matches at any depth; hidden and gitignored
		// files are listed, version-control folders are not.
		{`{"pattern":"*.go"}`, "ignored/i.go\n.hidden/h.go\nsrc/deep/b.go\nsrc/a.go\nmain.go"},
		{`{"pattern":"**/*.go"}`, "ignored/i.go\n.hidden/h.go\nsrc/deep/b.go\nsrc/a.go\nmain.go"},
		{`{"pattern":"src/*.go"}`, "src/a.go"},
		{`{"pattern":"src/**/*.go"}`, "src/deep/b.go\nsrc/a.go"},
		{`{"pattern":"src/*.{go,ts}"}`, "src/c.ts\nsrc/a.go"},
		{`{"pattern":"*.go","path":"src"}`, "src/deep/b.go\nsrc/a.go"},
		{`{"pattern":"*.rs"}`, "No files found"},
		{`{"pattern":"nosuchdir/*.go"}`, "No files found"},
		{`{"pattern":"README.md"}`, "README.md"},
		// Outside the working directory, paths are absolute.
		{`{"pattern":"*.go","path":"../outside"}`, filepath.Join(root, "outside", "o.go")},
		{fmt.Sprintf(`{"pattern":%q}`, filepath.Join(root, "outside", "*.go")), filepath.Join(root, "outside", "o.go")},
		{fmt.Sprintf(`{"pattern":%q}`, filepath.Join(cwd, "src", "*.go")), "src/a.go"},
	}
	for _, tt := range tests {
		t.Run(tt.input, func(t *testing.T) {
			res := run(t, g, env, tt.input)
			if res.IsError {
				t.Fatalf("error: %s", res.TextOf())
			}
			if diff := cmp.Diff(tt.want, res.TextOf()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestGlobTruncates(t *testing.T) {
	dir := t.TempDir()
	var files [][2]string
	for i := range 150 {
		files = append(files, [2]string{fmt.Sprintf("f%03d.txt", i), ""})
	}
	writeTree(t, dir, files)
	res := run(t, NewGlob(Options{}), newEnv(t, dir), `{"pattern":"*.txt"}`)
	lines := strings.Split(res.TextOf(), "\n")
	if len(lines) != 101 {
		t.Fatalf("got %d lines, want 100 paths and the notice", len(lines))
	}
	if lines[0] != "f149.txt" || lines[99] != "f050.txt" {
		t.Errorf("first %q, last %q: want the 100 newest, newest first", lines[0], lines[99])
	}
	if lines[100] != "(Results are truncated. Consider using a more specific path or pattern.)" {
		t.Errorf("notice = %q", lines[100])
	}
	out := res.Output.(GlobOutput)
	if !out.Truncated || out.NumFiles != 100 {
		t.Errorf("output = %+v", out)
	}
}

func TestGlobValidation(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, [][2]string{{"file.txt", ""}})
	env := newEnv(t, dir)
	g := NewGlob(Options{})
	for input, want := range map[string]string{
		`{"pattern":"*","path":"missing"}`:  "Directory does not exist: missing. Note: your current working directory is " + dir + ".",
		`{"pattern":"*","path":"file.txt"}`: "Path is not a directory: file.txt",
		`{"pattern":"[a"}`:                  `Invalid glob pattern "[a"`,
		`{"path":"x"}`:                      "InputValidationError: Glob failed due to the following issue:\nThe required parameter `pattern` is missing",
	} {
		res := run(t, g, env, input)
		if !res.IsError || !strings.HasPrefix(res.TextOf(), want) {
			t.Errorf("%s: got %q, want prefix %q", input, res.TextOf(), want)
		}
	}
}

func TestGlobHidesReadDeniedFiles(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, [][2]string{{"secrets/a.key", ""}, {"b.key", ""}, {"c.txt", ""}})
	res := run(t, NewGlob(Options{}), newEnv(t, dir, denyRead("secrets/**")), `{"pattern":"*"}`)
	if got, want := res.TextOf(), "c.txt\nb.key"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestGlobCheckPermissions(t *testing.T) {
	root := t.TempDir()
	cwd := filepath.Join(root, "cwd")
	writeTree(t, cwd, [][2]string{{"a.txt", ""}})
	pc, err := permission.New(permission.Config{Cwd: cwd, Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	g := NewGlob(Options{})
	for input, want := range map[string]permission.Behavior{
		`{"pattern":"**/*.txt"}`:                permission.Allow,
		`{"pattern":"*.txt","path":".."}`:       permission.Ask,
		`{"pattern":"../*.txt"}`:                permission.Ask,
		`{"pattern":"/etc/**"}`:                 permission.Ask,
		fmt.Sprintf(`{"pattern":%q}`, cwd+"/*"): permission.Allow,
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
