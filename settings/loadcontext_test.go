package settings

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/reinsdev/reins/permission"
)

// TestLoadContextTrust checks that LoadContext asks the trust file: the shared project file's
// allow rules apply once the project is trusted, its deny rules always.
func TestLoadContextTrust(t *testing.T) {
	root := t.TempDir()
	project, home := filepath.Join(root, "project"), filepath.Join(root, "home")
	if err := os.MkdirAll(filepath.Join(project, ".reins"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, ".reins", "settings.json"),
		[]byte(`{"permissions":{"allow":["Bash(make:*)"],"deny":["Read(./.env)"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// An empty managed folder is "no policy"; a missing one is an error.
	if err := os.MkdirAll(filepath.Join(root, "none"), 0o755); err != nil {
		t.Fatal(err)
	}
	opts := Options{Cwd: project, Home: home, ManagedDir: filepath.Join(root, "none")}
	count := func() (allow, deny int) {
		pc, _, err := LoadContext(opts, Flags{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range pc.Rules() {
			switch r.Behavior {
			case permission.Allow:
				allow++
			case permission.Deny:
				deny++
			}
		}
		return allow, deny
	}
	if a, d := count(); a != 0 || d != 1 {
		t.Errorf("untrusted: %d allow, %d deny rules; want 0 and 1", a, d)
	}
	if err := Trust(filepath.Join(home, ".reins"), "", project); err != nil {
		t.Fatal(err)
	}
	if a, d := count(); a != 1 || d != 1 {
		t.Errorf("trusted: %d allow, %d deny rules; want 1 and 1", a, d)
	}
	if _, _, err := LoadContext(Options{Cwd: project, Home: home, ManagedDir: filepath.Join(root, "none"), Flag: "{"}, Flags{}); err == nil {
		t.Error("a broken --settings value must be an error")
	}
}
