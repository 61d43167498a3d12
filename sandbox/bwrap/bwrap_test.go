//go:build linux

package bwrap

import (
	"os"
	"os/exec"
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
	b := &Backend{}
	args, release, err := b.args("bwrap", spec, []string{"/bin/bash", "-c", "x"}, true)
	if err != nil {
		t.Fatal(err)
	}
	mcp := filepath.Join(proj, ".mcp.json")
	if !b.Placeholder(mcp) {
		t.Errorf("no placeholder at %s", mcp)
	}
	release()
	if _, err := os.Lstat(mcp); err == nil {
		t.Errorf("the placeholder %s was left", mcp)
	}
	bind := index(args, "--bind", proj, proj)
	pin := index(args, "--bind", filepath.Join(proj, ".git"), filepath.Join(proj, ".git"))
	ro := index(args, "--ro-bind", hooks, hooks)
	null := index(args, "--ro-bind", filepath.Join(proj, ".mcp.json"), filepath.Join(proj, ".mcp.json"))
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
	if i := slices.Index(args, "--cap-drop"); i < 0 || args[i+1] != "ALL" {
		t.Errorf("capabilities are not dropped: %s", strings.Join(args, " "))
	}
	for _, f := range []string{"--unshare-net", "--unshare-pid", "--die-with-parent"} {
		if !slices.Contains(args, f) {
			t.Errorf("missing %s", f)
		}
	}
}

func TestBridgeUsage(t *testing.T) {
	if code := BridgeMain([]string{"sock"}); code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
}

// TestPlaceholders checks the life of the stand-ins for missing protected paths: shared by the
// commands that overlap, removed by the last one, and only while they are still the empty file
// or folder the backend made.
func TestPlaceholders(t *testing.T) {
	tests := []struct {
		name string
		dir  bool
		// meanwhile is what happens on the host while the commands run.
		meanwhile func(t *testing.T, p string)
		// replaced: the path no longer holds the placeholder, so it is not one any more.
		replaced, wantLeft bool
	}{
		{name: "file", dir: false},
		{name: "folder", dir: true},
		{name: "file the user wrote into", meanwhile: func(t *testing.T, p string) { os.WriteFile(p, []byte("mine"), 0o644) }, wantLeft: true},
		{name: "folder the user filled", dir: true, meanwhile: func(t *testing.T, p string) { os.WriteFile(filepath.Join(p, "HEAD"), nil, 0o644) }, wantLeft: true},
		{name: "file the user replaced by an empty one", meanwhile: func(t *testing.T, p string) {
			// Written aside first, so that it cannot get the placeholder's inode number.
			os.WriteFile(p+".new", nil, 0o644)
			if err := os.Rename(p+".new", p); err != nil {
				t.Fatal(err)
			}
		}, replaced: true, wantLeft: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, _ := filepath.EvalSymlinks(t.TempDir())
			p := filepath.Join(root, ".x")
			spec := &sandbox.Spec{WriteRoots: []string{root}, MustNotCreate: []string{p}}
			if tt.dir {
				spec.MissingDirs = []string{p}
			}
			b := &Backend{}
			args1, release1, err := b.protect(spec)
			if err != nil {
				t.Fatal(err)
			}
			fi, err := os.Lstat(p)
			if err != nil || fi.IsDir() != tt.dir {
				t.Fatalf("placeholder %v, %v; want a folder: %v", fi, err, tt.dir)
			}
			if index(args1, "--ro-bind", p, p) < 0 {
				t.Errorf("the placeholder is not bound read-only: %v", args1)
			}
			// A second command's spec, computed while the placeholder is there, sees it as
			// existing; it must hold it too.
			_, release2, err := b.protect(&sandbox.Spec{WriteRoots: []string{root}, WriteDeny: []string{p}})
			if err != nil {
				t.Fatal(err)
			}
			release1()
			if _, err := os.Lstat(p); err != nil {
				t.Fatalf("the placeholder went while the second command holds it: %v", err)
			}
			if tt.meanwhile != nil {
				tt.meanwhile(t, p)
			}
			if b.Placeholder(p) == tt.replaced {
				t.Errorf("Placeholder(%s) = %v", p, b.Placeholder(p))
			}
			release2()
			if _, err := os.Lstat(p); (err == nil) != tt.wantLeft {
				t.Errorf("after the last release: %v; want left: %v", err, tt.wantLeft)
			}
			if b.Placeholder(p) {
				t.Error("still a placeholder after the last release")
			}
		})
	}
}

func TestPlaceholderNotMadeWhereItsFolderIsMissing(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	p := filepath.Join(root, "missing", ".envrc")
	args, release, err := (&Backend{}).protect(&sandbox.Spec{WriteRoots: []string{root}, MustNotCreate: []string{p}})
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if _, err := os.Lstat(filepath.Dir(p)); err == nil {
		t.Error("the missing folder was created")
	}
	if slices.Contains(args, p) {
		t.Errorf("a mount on %s would make bwrap create its folder: %v", p, args)
	}
}

// TestPlaceholderGitTurnsOffGoVCSStamping: with a placeholder .git, go build would take it
// for a repository and fail on it; the command gets -buildvcs=false added to its GOFLAGS.
func TestPlaceholderGitTurnsOffGoVCSStamping(t *testing.T) {
	tests := []struct {
		name    string
		missing string
		env     []string
		want    string // the GOFLAGS entry, "" for none
	}{
		{name: "no GOFLAGS", missing: ".git", env: []string{"A=1"}, want: "GOFLAGS=-buildvcs=false"},
		{name: "GOFLAGS kept", missing: ".git", env: []string{"GOFLAGS=-mod=mod"}, want: "GOFLAGS=-mod=mod -buildvcs=false"},
		{name: "the user's own choice wins", missing: ".git", env: []string{"GOFLAGS=-buildvcs=true"}, want: "GOFLAGS=-buildvcs=true"},
		{name: "a repository: nothing changes", missing: ".envrc", env: []string{"A=1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, _ := filepath.EvalSymlinks(t.TempDir())
			p := filepath.Join(root, tt.missing)
			cmd := exec.Command("/bin/true")
			cmd.Env = slices.Clone(tt.env)
			release, err := (&Backend{Path: "/bin/false"}).Wrap(cmd, &sandbox.Spec{WriteRoots: []string{root}, MustNotCreate: []string{p}, MissingDirs: []string{p}})
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			got := ""
			for _, e := range cmd.Env {
				if strings.HasPrefix(e, "GOFLAGS=") {
					got = e
				}
			}
			if got != tt.want || !slices.Contains(cmd.Env, tt.env[0]) && !strings.HasPrefix(tt.env[0], "GOFLAGS=") {
				t.Errorf("env %q; want %q", cmd.Env, tt.want)
			}
		})
	}
}
