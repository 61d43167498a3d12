package app

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/reinsdev/reins/permission"
)

func TestReadDeniedPaths(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	proj, home := filepath.Join(root, "proj"), filepath.Join(root, "home")
	for _, f := range []string{"proj/.env", "proj/app/.env", "proj/app/main.go", "proj/secrets/a/key", "proj/docs/x.md", "home/.aws/credentials", "home/notes"} {
		writeTestFile(t, filepath.Join(root, f), "x\n")
	}
	rule := func(c string) permission.Rule {
		return permission.Rule{Value: permission.RuleValue{Tool: "Read", Content: c}, Behavior: permission.Deny, Source: permission.SourceLocal, Root: proj}
	}
	pc, err := permission.New(permission.Config{Cwd: proj, Home: home, Rules: []permission.Rule{
		rule(".env"), rule("/secrets/**"), rule("~/.aws/**"), rule("//" + filepath.Join(proj, "docs", "*.md")[1:]),
	}})
	if err != nil {
		t.Fatal(err)
	}
	got, notes := readDeniedPaths(context.Background(), pc)
	var paths []string
	for _, p := range got {
		paths = append(paths, p.Path)
	}
	slices.Sort(paths)
	want := []string{
		filepath.Join(home, ".aws"), // the folder itself matches "~/.aws/**"
		filepath.Join(proj, ".env"),
		filepath.Join(proj, "app", ".env"),
		filepath.Join(proj, "docs", "x.md"),
		filepath.Join(proj, "secrets"),
	}
	slices.Sort(want)
	if !slices.Equal(paths, want) || len(notes) != 0 {
		t.Errorf("paths %v\nwant  %v\nnotes %v", paths, want, notes)
	}
	for _, p := range got {
		if p.Origin == "" {
			t.Errorf("%s has no origin", p.Path)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "notes")); err != nil || slices.Contains(paths, filepath.Join(home, "notes")) {
		t.Error("an unrelated file was denied")
	}
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
