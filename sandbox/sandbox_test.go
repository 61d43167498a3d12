//go:build linux

package sandbox_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/sandbox"
	"github.com/reinsdev/reins/sandbox/bwrap"
	"github.com/reinsdev/reins/sandbox/landlock"
)

// The test binary stands in for the reins binary the backends re-execute: package confine's
// init runs the helpers, and the backends import it.

// backends returns the backends this machine can run, skipping (with the reason) the others.
func backendFor(t *testing.T, name string) sandbox.Backend {
	t.Helper()
	switch name {
	case "bubblewrap":
		if _, err := exec.LookPath("bwrap"); err != nil {
			t.Skip("bwrap is not installed here (.ci/run installs the bubblewrap package)")
		}
		return &bwrap.Backend{}
	case "landlock":
		v, err := landlock.ABI()
		if err != nil || v < landlock.MinABI {
			t.Skipf("this kernel cannot run the Landlock backend: ABI %d (need %d), %v", v, landlock.MinABI, err)
		}
		return &landlock.Backend{}
	}
	t.Fatalf("unknown backend %s", name)
	return nil
}

type fixture struct {
	root, proj, secret, hook string
	sb                       *sandbox.Sandbox
	port                     string
}

func newFixture(t *testing.T, b sandbox.Backend) *fixture {
	t.Helper()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	f := &fixture{root: root, proj: filepath.Join(root, "proj")}
	f.hook = filepath.Join(f.proj, ".git", "hooks", "pre-commit")
	f.secret = filepath.Join(f.proj, "secrets", "key.txt")
	for _, d := range []string{filepath.Dir(f.hook), filepath.Dir(f.secret), filepath.Join(f.proj, "src")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, f.hook, "#!/bin/sh\n")
	write(t, filepath.Join(f.proj, ".git", "config"), "[core]\n")
	write(t, f.secret, "top secret\n")
	write(t, filepath.Join(f.proj, "src", "main.go"), "package main\n")

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello from test host") }))
	t.Cleanup(srv.Close)
	_, f.port, _ = net.SplitHostPort(srv.Listener.Addr().String())
	target := srv.Listener.Addr().String()

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dirs, files := permission.ProtectedNames()
	sb, err := sandbox.New(context.Background(), sandbox.Config{
		WorkingDirs:    []string{f.proj},
		DenyRead:       []sandbox.Path{{Path: filepath.Dir(f.secret), Origin: "test"}},
		ProtectedDirs:  dirs,
		ProtectedFiles: files,
		AllowedDomains: []string{"allowed.test", "*.wild.test"},
		Helper:         exe,
		Backends:       []sandbox.Backend{b},
		// Test host names all lead to the loopback test server; the proxy decides by name.
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, target)
		},
	})
	if err != nil {
		t.Fatalf("sandbox.New: %v", err)
	}
	t.Cleanup(func() { sb.Close() })
	f.sb = sb
	return f
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// run runs a bash command in the sandbox in the project and returns its output, exit status
// and the violations reported.
func (f *fixture) run(t *testing.T, command string) (string, int, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/bash", "-c", command)
	cmd.Dir = f.proj
	finish, err := f.sb.Wrap(cmd, command, nil, nil)
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

// snapshot lists every path under dir with its size, to show a command changed nothing.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d %v\n", p, fi.Size(), fi.Mode())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var backendNames = []string{"bubblewrap", "landlock"}

func TestConfinement(t *testing.T) {
	if testing.Short() {
		t.Skip("runs commands under each backend: -short leaves it out; the whole suite runs it")
	}
	for _, name := range backendNames {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, backendFor(t, name))
			if got := f.sb.Backend(); got != name {
				t.Fatalf("backend = %s, want %s", got, name)
			}
			t.Run("write outside the project fails and changes nothing", func(t *testing.T) {
				before := snapshot(t, f.root)
				// The test's folders are in /tmp, whose top is the session's own inside
				// bubblewrap; the folders there on the way to the project are read-only still.
				probe := fmt.Sprintf("/usr/reins-outside-probe-%d", os.Getpid())
				out, code, viol := f.run(t, "touch ../outside; touch "+probe)
				if code == 0 {
					os.Remove(probe)
					t.Fatalf("touch %s succeeded: %s", probe, out)
				}
				if !strings.Contains(out, "outside") {
					t.Errorf("touch ../outside did not fail: %s", out)
				}
				if _, err := os.Stat(filepath.Join(f.root, "outside")); err == nil {
					t.Fatal("../outside was created")
				}
				if after := snapshot(t, f.root); after != before {
					t.Errorf("the tree changed:\nbefore:\n%s\nafter:\n%s", before, after)
				}
				if len(viol) == 0 {
					t.Errorf("no violation reported for %q", out)
				}
			})
			t.Run("protected paths inside the project end up unchanged", func(t *testing.T) {
				// bubblewrap refuses these writes; Landlock cannot carve the names out of the
				// writable project, so the check after the command puts them back.
				out, code, _ := f.run(t, "echo x >> .git/hooks/pre-commit")
				if name == "bubblewrap" && code == 0 {
					t.Fatalf("append to the hook succeeded: %s", out)
				}
				commands := []string{"echo x > .git/config", "rm -f .git/hooks/pre-commit", "mv .git/hooks .git/h2", "mkdir .claude", "echo '{}' > .mcp.json",
					"mkdir -p .reins && echo '{}' > .reins/settings.json"}
				if name == "bubblewrap" {
					commands = append(commands, "mv .git .git-moved") // a mount point cannot be renamed
				}
				for _, c := range commands {
					out, code, viol := f.run(t, c)
					if code == 0 && len(viol) == 0 {
						t.Errorf("%q succeeded and nothing was reported: %s", c, out)
					}
				}
				if b, _ := os.ReadFile(f.hook); string(b) != "#!/bin/sh\n" {
					t.Errorf("hook changed: %q", b)
				}
				if b, _ := os.ReadFile(filepath.Join(f.proj, ".git", "config")); string(b) != "[core]\n" {
					t.Errorf(".git/config changed: %q", b)
				}
				gone := []string{".claude", ".mcp.json", ".git-moved", ".reins"}
				if name == "bubblewrap" {
					// Under Landlock the hooks moved to .git/h2 stay there (git runs nothing
					// from it); .git/hooks is put back from the copy.
					gone = append(gone, ".git/h2")
				}
				for _, p := range gone {
					if _, err := os.Lstat(filepath.Join(f.proj, p)); err == nil {
						t.Errorf("%s exists after the sandboxed commands", p)
					}
				}
			})
			t.Run("a protected file created after the start is protected", func(t *testing.T) {
				p := filepath.Join(f.proj, ".npmrc")
				write(t, p, "registry=https://example.com\n")
				if out, code, viol := f.run(t, "echo evil >> .npmrc"); code == 0 && len(viol) == 0 {
					t.Errorf("appended to a protected file created after the start: %s", out)
				}
				if b, _ := os.ReadFile(p); string(b) != "registry=https://example.com\n" {
					t.Errorf(".npmrc = %q", b)
				}
			})
			t.Run("writes inside the project work", func(t *testing.T) {
				out, code, _ := f.run(t, "echo ok > src/new.txt && echo more >> src/main.go && mkdir -p src/sub && echo $TMPDIR && touch \"$TMPDIR/t\"")
				if code != 0 {
					t.Fatalf("exit %d: %s", code, out)
				}
				if b, _ := os.ReadFile(filepath.Join(f.proj, "src", "new.txt")); string(b) != "ok\n" {
					t.Errorf("src/new.txt = %q", b)
				}
				// Under bubblewrap the session's temporary directory is /tmp inside.
				if !strings.Contains(out, f.sb.TempDir()) && !(name == "bubblewrap" && strings.Contains(out, "/tmp\n")) {
					t.Errorf("TMPDIR is not the session's temporary directory: %s", out)
				}
			})
			t.Run("read-denied file cannot be read", func(t *testing.T) {
				out, code, _ := f.run(t, "cat secrets/key.txt")
				if code == 0 || strings.Contains(out, "top secret") {
					t.Fatalf("cat of the read-denied file: exit %d, %q", code, out)
				}
				if out, code, _ := f.run(t, "cat src/main.go /etc/hostname >/dev/null"); code != 0 {
					t.Errorf("ordinary reads failed: %s", out)
				}
			})
			t.Run("network only through the proxy to allowed hosts", func(t *testing.T) {
				if _, err := exec.LookPath("curl"); err != nil {
					t.Skip("curl is not installed (.ci/run installs it)")
				}
				for _, u := range []string{"http://allowed.test:" + f.port + "/", "http://a.wild.test:" + f.port + "/"} {
					out, code, _ := f.run(t, "curl -sS -f --max-time 20 "+u)
					if code != 0 || !strings.Contains(out, "hello from test host") {
						t.Errorf("allowed %s: exit %d, %q", u, code, out)
					}
				}
				out, code, _ := f.run(t, "curl -sS -f -p --max-time 20 http://allowed.test:"+f.port+"/")
				if code != 0 || !strings.Contains(out, "hello from test host") {
					t.Errorf("allowed through CONNECT: exit %d, %q", code, out)
				}
				out, code, _ = f.run(t, "curl -sS -f --max-time 20 --socks5-hostname 127.0.0.1:$(echo $ALL_PROXY | sed 's/.*://') http://allowed.test:"+f.port+"/")
				if code != 0 || !strings.Contains(out, "hello from test host") {
					t.Errorf("allowed through SOCKS5: exit %d, %q", code, out)
				}
				out, code, viol := f.run(t, "curl -sS -f --max-time 20 http://refused.test:"+f.port+"/")
				if code == 0 || strings.Contains(out, "hello from test host") {
					t.Errorf("refused host reached: exit %d, %q", code, out)
				}
				if !strings.Contains(strings.Join(viol, "\n"), "refused.test") {
					t.Errorf("violations %q do not name refused.test", viol)
				}
				out, code, _ = f.run(t, "curl -sS -f --max-time 10 --noproxy '*' http://127.0.0.1:"+f.port+"/")
				if code == 0 || strings.Contains(out, "hello from test host") {
					t.Errorf("a direct connection bypassing the proxy worked: %q", out)
				}
			})
			t.Run("no capabilities, even as root", func(t *testing.T) {
				// No capability now, and no_new_privs so that no execve can grant one back
				// (bubblewrap leaves the bounding set full; with no_new_privs it grants nothing).
				out, code, _ := f.run(t, "grep -E '^(Cap(Inh|Eff|Prm|Amb)|NoNewPrivs):' /proc/self/status")
				if code != 0 {
					t.Fatalf("reading /proc/self/status: %s", out)
				}
				lines := strings.Split(strings.TrimSpace(out), "\n")
				if len(lines) != 5 {
					t.Fatalf("status lines %q", lines)
				}
				for _, l := range lines {
					if strings.HasPrefix(l, "NoNewPrivs:") {
						if !strings.HasSuffix(l, "1") {
							t.Errorf("no_new_privs is not set: %s", l)
						}
					} else if !strings.HasSuffix(l, "0000000000000000") {
						t.Errorf("capabilities left: %s", l)
					}
				}
				if out, code, _ := f.run(t, "mount -o remount,bind,rw / && touch ../escaped"); code == 0 {
					t.Errorf("remounted / read-write: %s", out)
				}
				if _, err := os.Stat(filepath.Join(f.root, "escaped")); err == nil {
					t.Fatal("escaped the sandbox through a remount")
				}
			})
			t.Run("no UDP out", func(t *testing.T) {
				pc, err := net.ListenPacket("udp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				defer pc.Close()
				port := pc.LocalAddr().(*net.UDPAddr).Port
				out, code, _ := f.run(t, fmt.Sprintf("echo leaked > /dev/udp/127.0.0.1/%d", port))
				if name == "landlock" && code == 0 {
					t.Errorf("a UDP socket could be opened: %s", out)
				}
				// bubblewrap's network namespace swallows the datagram; either way none arrives.
				pc.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
				if n, _, err := pc.ReadFrom(make([]byte, 64)); err == nil {
					t.Errorf("a datagram of %d bytes left the sandbox", n)
				}
			})
			{
				t.Run("no Unix sockets unless listed", func(t *testing.T) {
					if _, err := exec.LookPath("curl"); err != nil {
						t.Skip("curl is not installed (.ci/run installs it)")
					}
					sock := filepath.Join(f.proj, "src", "daemon.sock")
					l, err := net.Listen("unix", sock)
					if err != nil {
						t.Fatal(err)
					}
					srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "daemon says hi") })}
					go srv.Serve(l)
					defer srv.Close()
					out, code, _ := f.run(t, "curl -sS --max-time 10 --unix-socket "+sock+" http://daemon/")
					if code == 0 || strings.Contains(out, "daemon says hi") {
						t.Errorf("reached an unlisted Unix socket: %s", out)
					}
				})
			}
			if len(f.sb.Violations()) == 0 {
				t.Error("the session lists no violations")
			}
		})
	}
}

func TestNoBackendIsAnError(t *testing.T) {
	exe, _ := os.Executable()
	_, err := sandbox.New(context.Background(), sandbox.Config{
		WorkingDirs: []string{t.TempDir()},
		Helper:      exe,
		Backends:    []sandbox.Backend{&bwrap.Backend{Path: filepath.Join(t.TempDir(), "no-bwrap")}},
	})
	if err == nil || !strings.Contains(err.Error(), "no sandbox backend works") || !strings.Contains(err.Error(), "bubblewrap") {
		t.Fatalf("err = %v", err)
	}
}
