//go:build linux

package bwrap

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reinsdev/reins/sandbox"
)

// index returns the position of the argument pair op a b in args, or -1.
func index(args []string, op, a, b string) int {
	for i := 0; i+2 < len(args); i++ {
		if args[i] == op && args[i+1] == a && args[i+2] == b {
			return i
		}
	}
	return -1
}

func TestArgsOrder(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	proj := filepath.Join(root, "proj")
	hooks := filepath.Join(proj, ".git", "hooks")
	tmp := filepath.Join(root, "tmp")
	for _, d := range []string{hooks, filepath.Join(proj, "secret"), tmp} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(proj, ".env"), []byte("K=1\n"), 0o600)
	spec := &sandbox.Spec{
		WriteRoots:    []string{proj, tmp},
		TempDir:       tmp,
		WriteDeny:     []string{hooks},
		MustNotCreate: []string{filepath.Join(proj, ".mcp.json")},
		ReadDeny:      []string{filepath.Join(proj, "secret"), filepath.Join(proj, ".env")},
		Helper:        "/bin/true",
		ProxyPort:     1234,
	}
	w := &wrapping{spec: spec, base: 3}
	if err := w.handoff(); err != nil {
		t.Fatal(err)
	}
	defer w.close()
	args, err := w.args("bwrap", []string{"/bin/bash", "bash", "-c", "x"})
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Join(args, " ")
	bind := index(args, "--bind", proj, proj)
	pin := index(args, "--bind", filepath.Join(proj, ".git"), filepath.Join(proj, ".git"))
	ro := index(args, "--ro-bind", hooks, hooks)
	if bind < 0 || pin < 0 || ro < 0 || !(bind < pin && pin < ro) {
		t.Errorf("write root %d, .git pin %d, hooks read-only %d: want root < pin < read-only\n%s", bind, pin, ro, line)
	}
	if slices.Contains(args, filepath.Join(proj, ".mcp.json")) {
		t.Errorf("a missing protected path got a mount, whose mount point bwrap would create on the host: %s", line)
	}
	if i := index(args, "--bind", tmp, "/tmp"); i < 0 || i > bind {
		t.Errorf("the session's folder must be /tmp, mounted before the write roots: %s", line)
	}
	if index(args, "--bind", tmp, tmp) >= 0 {
		t.Errorf("the session's folder is mounted at its own path too: %s", line)
	}
	// The project lies in /tmp here: the folders on its way below the private /tmp are
	// read-only stand-ins, so its parent is not writable.
	if top := "/tmp/" + strings.Split(strings.TrimPrefix(proj, "/tmp/"), "/")[0]; strings.HasPrefix(proj, "/tmp/") &&
		(!strings.Contains(line, "--tmpfs "+top+" ") || !strings.Contains(line, "--remount-ro "+top+" ")) {
		t.Errorf("no read-only stand-in for %s: %s", top, line)
	}
	if !strings.Contains(line, "--perms 0000 --tmpfs "+filepath.Join(proj, "secret")) || !strings.Contains(line, "--perms 0000 --ro-bind-data 4 "+filepath.Join(proj, ".env")) {
		t.Errorf("read-denied paths are not covered by mode-0000 stand-ins: %s", line)
	}
	last := -1
	for i := range args[:len(args)-1] {
		if args[i] == "--remount-ro" && args[i+1] == "/run" {
			last = i
		}
	}
	if last < ro {
		t.Errorf("remount-ro of /run must come after every bind: %s", line)
	}
	tail := strings.Join(args[slices.Index(args, "--"):], " ")
	if tail != "-- /bin/true "+BridgeArg+" fd:3 1234 nounix -- /bin/bash bash -c x" {
		t.Errorf("command tail %q", tail)
	}
	for _, f := range []string{"--unshare-user", "--disable-userns", "--unshare-net", "--unshare-pid", "--die-with-parent"} {
		if !slices.Contains(args, f) {
			t.Errorf("missing %s", f)
		}
	}
	if i := slices.Index(args, "--cap-drop"); i < 0 || args[i+1] != "ALL" {
		t.Errorf("capabilities are not dropped: %s", line)
	}
}

// TestAllowWriteTmp: with the host's /tmp writable by the settings, /tmp is not replaced.
func TestAllowWriteTmp(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	spec := &sandbox.Spec{WriteRoots: []string{"/tmp", root}, TempDir: root, Helper: "/bin/true", ProxyPort: 1}
	w := &wrapping{spec: spec, base: 3}
	if err := w.handoff(); err != nil {
		t.Fatal(err)
	}
	defer w.close()
	args, _ := w.args("bwrap", []string{"true"})
	if index(args, "--bind", "/tmp", "/tmp") < 0 || index(args, "--bind", root, "/tmp") >= 0 {
		t.Errorf("allowWrite //tmp: %s", strings.Join(args, " "))
	}
}
