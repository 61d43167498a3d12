package cli

import (
	"os"
	"path/filepath"
)

// skillFile writes <root>/<name>/SKILL.md.
func (e *e2e) skillFile(root, name, doc string) string {
	e.t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(doc), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return dir
}
