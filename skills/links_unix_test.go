//go:build unix

// Skills linked into a skills folder. Unix-only: a symlink on Windows needs a privilege (or
// developer mode), and Wine 8, which runs the Windows tests, makes none (CreateSymbolicLink
// reports success and creates nothing).

package skills

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLinkedSkills(t *testing.T) {
	home, project, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	writeSkill(t, elsewhere, "shared", "description: shared")
	for _, root := range []string{filepath.Join(home, ".claude", "skills"), filepath.Join(project, ".claude", "skills")} {
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(elsewhere, "shared"), filepath.Join(root, "shared")); err != nil {
			t.Fatal(err)
		}
	}
	inside := writeSkill(t, filepath.Join(project, ".claude", "skills"), "real", "description: real")
	if err := os.Symlink(inside, filepath.Join(project, ".claude", "skills", "alias")); err != nil {
		t.Fatal(err)
	}
	user := Load(context.Background(), []Root{{Path: filepath.Join(home, ".claude", "skills"), Source: SourceUser}}, true)
	if user.Get("shared") == nil || len(user.Errors) != 0 {
		t.Errorf("a user's linked skill: %v %v", user.All(), user.Errors)
	}
	proj := Load(context.Background(), []Root{{Path: filepath.Join(project, ".claude", "skills"), Source: SourceProject}}, true)
	if proj.Get("shared") != nil || len(proj.Errors) != 1 || !strings.Contains(proj.Errors[0].Error(), "a link out of the project's skills folder") {
		t.Errorf("a project's skill linked from outside: %v %v", proj.All(), proj.Errors)
	}
	if proj.Get("real") == nil {
		t.Errorf("a project's skill linked inside its folder was refused: %v", proj.Errors)
	}
}
