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
	os.MkdirAll(hooks, 0o755)
	os.MkdirAll(filepath.Join(proj, "secret"), 0o755)
	spec := &sandbox.Spec{
		WriteRoots:    []string{proj},
		WriteDeny:     []string{hooks},
		MustNotCreate: []string{filepath.Join(proj, ".mcp.json")},
		ReadDeny:      []string{filepath.Join(proj, "secret")},
		Helper:        "/bin/true",
		ProxySocket:   filepath.Join(root, "p.sock"),
		ProxyPort:     1234,
	}
	os.WriteFile(spec.ProxySocket, nil, 0o600)
	args, created, err := (&Backend{}).args("bwrap", spec, []string{"/bin/bash", "-c", "x"}, true)
	if err != nil {
		t.Fatal(err)
	}
	bind := index(args, "--bind", proj, proj)
	pin := index(args, "--bind", filepath.Join(proj, ".git"), filepath.Join(proj, ".git"))
	ro := index(args, "--ro-bind", hooks, hooks)
	null := index(args, "--ro-bind", "/dev/null", filepath.Join(proj, ".mcp.json"))
	if bind < 0 || pin < 0 || ro < 0 || null < 0 || !(bind < pin && pin < ro) {
		t.Errorf("write root %d, .git pin %d, hooks read-only %d, .mcp.json %d: want root < pin < read-only\n%s", bind, pin, ro, null, strings.Join(args, " "))
	}
	if i := slices.Index(args, "--tmpfs"); i < 0 || i > bind {
		t.Errorf("the hidden folders must be mounted before the write roots: %s", strings.Join(args, " "))
	}
	last := -1
	for i := range args[:len(args)-1] {
		if args[i] == "--remount-ro" && args[i+1] == "/tmp" {
			last = i
		}
	}
	if last < ro || last < null || last < index(args, "--tmpfs", filepath.Join(proj, "secret"), "--remount-ro") {
		t.Errorf("remount-ro of /tmp must come after every bind: %s", strings.Join(args, " "))
	}
	tail := strings.Join(args[slices.Index(args, "--"):], " ")
	if tail != "-- /bin/true "+BridgeArg+" "+spec.ProxySocket+" 1234 -- /bin/bash -c x" {
		t.Errorf("command tail %q", tail)
	}
	if !slices.Equal(created, []string{filepath.Join(proj, ".mcp.json")}) {
		t.Errorf("created mount points %v", created)
	}
	if i := slices.Index(args, "--cap-drop"); i < 0 || args[i+1] != "ALL" {
		t.Errorf("capabilities are not dropped: %s", strings.Join(args, " "))
	}
	for _, f := range []string{"--unshare-net", "--unshare-pid", "--die-with-parent"} {
		if !slices.Contains(args, f) {
			t.Errorf("missing %s", f)
		}
	}
}

func TestRemoveMountPointsOnlyRemovesEmptyFiles(t *testing.T) {
	dir := t.TempDir()
	empty, full := filepath.Join(dir, "empty"), filepath.Join(dir, "full")
	os.WriteFile(empty, nil, 0o444)
	os.WriteFile(full, []byte("user data"), 0o644)
	os.Mkdir(filepath.Join(dir, "d"), 0o755)
	removeMountPoints([]string{empty, full, filepath.Join(dir, "d"), filepath.Join(dir, "missing")})
	if _, err := os.Stat(empty); err == nil {
		t.Error("the empty placeholder was left")
	}
	for _, p := range []string{full, filepath.Join(dir, "d")} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed", p)
		}
	}
}

func TestBridgeUsage(t *testing.T) {
	if code := BridgeMain([]string{"sock"}); code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
}
