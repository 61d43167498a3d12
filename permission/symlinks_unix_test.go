//go:build unix

// Symlink tests are Unix-only: on Windows making a symlink needs a privilege (or developer
// mode), and Wine 8, which runs the Windows tests in CI, does not make them at all
// (CreateSymbolicLink reports success and creates nothing; FSCTL_SET_REPARSE_POINT, which
// makes junctions, is not implemented). The Windows resolution (evalLinks: symlinks and
// junctions through GetFinalPathNameByHandle) is what these rows would check there.

package permission

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// addSymlinks adds to the fixture a symlink inside the project pointing outside it, one
// pointing at the secret and a chain to it, a directory symlink out, and one to .git/config.
func addSymlinks(t *testing.T, f fsFixture) {
	t.Helper()
	for _, l := range [][2]string{
		{filepath.Join(f.outside, "o.txt"), filepath.Join(f.proj, "link-out")},
		{filepath.Join(f.proj, ".env"), filepath.Join(f.proj, "innocent")},
		{filepath.Join(f.proj, "innocent"), filepath.Join(f.proj, "chain")},
		{f.outside, filepath.Join(f.proj, "dirlink")},
		{filepath.Join(f.proj, ".git", "config"), filepath.Join(f.proj, "gitlink")},
	} {
		if err := os.Symlink(l[0], l[1]); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCheckReadThroughSymlinks(t *testing.T) {
	f := newFixture(t)
	addSymlinks(t, f)
	runReadCases(t, f, []readCase{
		{"symlink out of the project", ModeDefault, nil, "link-out", Ask},
		{"directory symlink out", ModeDefault, nil, "dirlink/o.txt", Ask},
		{"deny through a symlink", ModeDefault, rules(Deny, SourceProject, "Read(.env)"), "innocent", Deny},
		{"deny through a symlink chain", ModeDefault, rules(Deny, SourceProject, "Read(.env)"), "chain", Deny},
		{"allow rule must cover the symlink target", ModeDefault, rules(Allow, SourceUser, "Read("+rulePath(f.proj)+"/link-out)"), filepath.Join(f.proj, "link-out"), Ask},
	})
}

func TestCheckWriteThroughSymlinks(t *testing.T) {
	f := newFixture(t)
	addSymlinks(t, f)
	runWriteCases(t, f, []writeCase{
		{"acceptEdits through symlink out", ModeAcceptEdits, nil, nil, "link-out", Ask, ReasonWorkingDir},
		{"acceptEdits new file under dir symlink out", ModeAcceptEdits, nil, nil, "dirlink/new.txt", Ask, ReasonWorkingDir},
		{"symlink to protected", ModeAcceptEdits, nil, nil, "gitlink", Ask, ReasonSafetyCheck},
	})
}

// A symlink in the agent's tool-results folder that leads out of it is read as what it names.
func TestCheckReadInternalDirSymlinkOut(t *testing.T) {
	f := newFixture(t)
	results := filepath.Join(f.outside, "session", "tool-results")
	escape := filepath.Join(results, "escape.txt")
	if err := os.MkdirAll(results, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(f.outside, "o.txt"), escape); err != nil {
		t.Fatal(err)
	}
	pc := mustNew(t, Config{Cwd: f.proj, Home: f.home, InternalReadDirs: []string{results}})
	if d := pc.CheckRead(context.Background(), escape); d.Behavior != Ask {
		t.Errorf("CheckRead(%q) = %s (%s), want ask", escape, d.Behavior, d.Message)
	}
}

// A hard link to the file a protected symlink in the home folder names (~/.bashrc into a
// dotfiles folder) is a write to the protected file.
func TestWriteThroughHardLinkAndSymlink(t *testing.T) {
	runLinkCases(t, []linkCase{
		{name: "home bashrc through a dotfiles symlink", mode: ModeBypass, want: Ask, safety: true, detail: ".bashrc is a protected file",
			setup: func(t *testing.T, f fsFixture) string {
				writeFile(t, filepath.Join(f.outside, "dotfiles", "bashrc"))
				if err := os.Symlink(filepath.Join(f.outside, "dotfiles", "bashrc"), filepath.Join(f.home, ".bashrc")); err != nil {
					t.Fatal(err)
				}
				hardLink(t, filepath.Join(f.outside, "dotfiles", "bashrc"), filepath.Join(f.proj, "rc.txt"))
				return filepath.Join(f.proj, "rc.txt")
			}},
	})
}

func TestSecretFileThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("K=v"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".env", filepath.Join(dir, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	pc := mustNew(t, Config{Cwd: dir})
	s, ok := pc.SecretFile(context.Background(), "notes.txt")
	if !ok || s.Pattern != ".env*" {
		t.Fatalf("a link to .env: got %+v, %v; want the .env* pattern", s, ok)
	}
}
