package memory

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzImports: every import found points at an @ in the content, at the start of a line or
// after white space, and its path is not empty.
func FuzzImports(f *testing.F) {
	for _, s := range []string{"@a.md", "x @~/b.md\n```\n@c\n```", "`@a` @b\\ c.md#frag", "    @x\n\n@y", "~~~\n@z\n~~~~\n@w", "a@b.com @", "``@a`` `@b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		lines := strings.Split(content, "\n")
		for _, imp := range Imports(content) {
			if imp.Path == "" || imp.Line < 1 || imp.Line > len(lines) {
				t.Fatalf("bad import %+v", imp)
			}
			line := lines[imp.Line-1]
			if imp.Col < 1 || imp.Col > len(line) || line[imp.Col-1] != '@' {
				t.Fatalf("import %+v does not point at an @ in %q", imp, line)
			}
			if imp.Col > 1 && line[imp.Col-2] != ' ' && line[imp.Col-2] != '\t' {
				t.Fatalf("import %+v follows %q", imp, line[imp.Col-2])
			}
		}
	})
}

// FuzzLoad writes a project whose files import each other as the fuzzer says (cycles, depth,
// missing files, a FIFO, paths out of the project) and checks the loader's bounds: it ends, reads
// each file once, nests at most MaxImportDepth deep, stays within MaxFiles and MaxTotalBytes, and
// an untrusted project's memory never reaches outside the project.
func FuzzLoad(f *testing.F) {
	f.Add("@a.md @b.md", "@b.md", "@CLAUDE.md @fifo", uint16(10), false)
	f.Add("@a.md", "@b.md\n@../out.md", "@a.md\n@~/x.md", uint16(0), true)
	f.Add("@a.md", "@a.md", "", uint16(60000), false)
	f.Fuzz(func(t *testing.T, root, a, b string, pad uint16, trusted bool) {
		base := t.TempDir()
		if r, err := filepath.EvalSymlinks(base); err == nil {
			base = r
		}
		repo := filepath.Join(base, "repo")
		must(t, os.MkdirAll(filepath.Join(repo, ".git"), 0o700))
		// Padding makes the files large enough to meet the total cap.
		padding := strings.Repeat("p", int(pad))
		must(t, os.WriteFile(filepath.Join(repo, "CLAUDE.md"), []byte(root+"\n"+padding), 0o600))
		must(t, os.WriteFile(filepath.Join(repo, "a.md"), []byte(a+"\n"+padding), 0o600))
		must(t, os.WriteFile(filepath.Join(repo, "b.md"), []byte(b+"\n"+padding), 0o600))
		must(t, os.WriteFile(filepath.Join(base, "out.md"), []byte("outside @repo/a.md"), 0o600))
		must(t, os.WriteFile(filepath.Join(base, "x.md"), []byte("home"), 0o600))
		_ = mkfifo(filepath.Join(repo, "fifo"))
		l := NewLoader(Options{Cwd: repo, Home: base, Trusted: trusted})
		files, err := l.Load(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		total := 0
		for _, f := range files {
			if seen[f.Path] {
				t.Fatalf("%s read twice", f.Path)
			}
			seen[f.Path] = true
			total += len(f.Content)
			if f.Depth > MaxImportDepth || len(f.Content) > MaxFileBytes {
				t.Fatalf("%s: depth %d, %d bytes", f.Path, f.Depth, len(f.Content))
			}
			if !trusted && !inside(f.Path, repo) {
				t.Fatalf("untrusted project read %s", f.Path)
			}
		}
		if total > MaxTotalBytes || len(files) > MaxFiles {
			t.Fatalf("%d files, %d bytes", len(files), total)
		}
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
