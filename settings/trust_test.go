package settings

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/reinsdev/reins/posjson"
)

func TestTrust(t *testing.T) {
	e := newEnv(t)
	cfg := e.opts.ConfigDir
	proj := e.opts.Cwd
	sub := filepath.Join(proj, "a", "b")
	sibling := filepath.Join(e.root, "proj2")
	for _, d := range []string{sub, sibling} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	check := func(dir string, want bool) {
		t.Helper()
		got, err := IsTrusted(cfg, "", dir)
		if err != nil {
			t.Fatalf("IsTrusted(%s): %v", dir, err)
		}
		if got != want {
			t.Errorf("IsTrusted(%s) = %v, want %v", dir, got, want)
		}
	}
	check(proj, false) // no trust file yet

	if err := Trust(cfg, "", proj); err != nil {
		t.Fatal(err)
	}
	check(proj, true)
	check(sub, true)                               // an ancestor is trusted
	check(filepath.Join(proj, "not", "yet"), true) // a folder that does not exist yet
	check(sibling, false)
	check(proj+"2", false) // a name prefix is not an ancestor
	check(e.root, false)   // descendants do not trust their parents

	// A second Trust of the same folder changes nothing; another folder is added.
	before := readFile(t, trustFile(cfg))
	if err := Trust(cfg, "", proj); err != nil {
		t.Fatal(err)
	}
	if after := readFile(t, trustFile(cfg)); after != before {
		t.Errorf("trusting twice changed the file:\n%s", after)
	}
	if err := Trust(cfg, "", sibling); err != nil {
		t.Fatal(err)
	}
	check(sibling, true)
	want := "{\n  \"trustedProjects\": [\n    " + posjson.Quote(proj) + ",\n    " + posjson.Quote(sibling) + "\n  ]\n}\n"
	if got := readFile(t, trustFile(cfg)); got != want {
		t.Errorf("trust file\n%s\nwant\n%s", got, want)
	}
	wantPrivate(t, trustFile(cfg), 0o600)

	if err := Trust(cfg, "", filepath.Join(e.root, "missing")); err == nil {
		t.Error("Trust accepted a folder that does not exist")
	}
}

func TestTrustFileKeepsOtherKeys(t *testing.T) {
	e := newEnv(t)
	cfg := e.opts.ConfigDir
	writeFile(t, trustFile(cfg), `{"version": 2, "trustedProjects": ["relative/ignored", 7], "notes": {"a": [1.50]}}`)
	if err := Trust(cfg, "", e.opts.Cwd); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"version\": 2,\n  \"trustedProjects\": [\n    \"relative/ignored\",\n    7,\n    " + posjson.Quote(e.opts.Cwd) +
		"\n  ],\n  \"notes\": {\n    \"a\": [\n      1.50\n    ]\n  }\n}\n"
	if got := readFile(t, trustFile(cfg)); got != want {
		t.Errorf("trust file\n%s\nwant\n%s", got, want)
	}
}

func TestTrustFileErrors(t *testing.T) {
	e := newEnv(t)
	cfg := e.opts.ConfigDir
	p := trustFile(cfg)
	writeFile(t, p, "{\n  \"trustedProjects\": [\"/x\",]\n}")
	_, err := IsTrusted(cfg, "", e.opts.Cwd)
	var pe *ParseError
	if !errors.As(err, &pe) || err.Error() != p+":2:28: invalid character ']' looking for beginning of value" {
		t.Errorf("IsTrusted = %v, want a positioned error", err)
	}
	if err := Trust(cfg, "", e.opts.Cwd); err == nil {
		t.Error("Trust rewrote an invalid trust file")
	}
	if got := readFile(t, p); !strings.Contains(got, `"/x",]`) {
		t.Errorf("invalid trust file was changed: %s", got)
	}
	writeFile(t, p, `{"trustedProjects": "/x"}`)
	if _, err := IsTrusted(cfg, "", e.opts.Cwd); err == nil || !strings.Contains(err.Error(), ":1:21: trustedProjects must be an array of strings, not a string") {
		t.Errorf("IsTrusted = %v", err)
	}
}

func TestTrustAtomic(t *testing.T) {
	e := newEnv(t)
	cfg := e.opts.ConfigDir
	if err := Trust(cfg, "", e.opts.Cwd); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, trustFile(cfg))
	other := filepath.Join(e.root, "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	h := hooks{rename: func(string, string) error { return errors.New("disk on fire") }}
	if err := trust(h, cfg, "", other); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("trust = %v, want the rename error", err)
	}
	if got := readFile(t, trustFile(cfg)); got != before {
		t.Errorf("trust file changed by a failed write:\n%s", got)
	}
	assertNoTempFiles(t, cfg)
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// TestConcurrentTrustRecordsEveryFolder: 40 concurrent Trust calls each record their folder.
func TestConcurrentTrustRecordsEveryFolder(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(root, "cfg")
	const n = 40
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("p%d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- Trust(cfg, "", dir)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	_, list, err := readTrust(hooks{}, trustFile(cfg))
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != n {
		t.Errorf("%d folders recorded of %d", len(list), n)
	}
}

// TestTrustScope: the root, the home folder, a folder above it and a shared temporary folder
// cannot be trusted, and a recorded one trusts nothing; a trusted folder covers its own
// subfolders but not another repository beneath it (a clone, a submodule).
func TestTrustScope(t *testing.T) {
	e := newEnv(t)
	cfg := e.opts.ConfigDir
	home := filepath.Join(e.root, "users", "me")
	work := filepath.Join(home, "work")
	// The repositories git keeps for them: the submodule's under modules/, the worktree's
	// under worktrees/ with its commondir.
	modules, worktrees := filepath.Join(work, "mono", ".git", "modules", "sub"), filepath.Join(work, "mono", ".git", "worktrees", "feature")
	for _, d := range []string{filepath.Join(work, "notes", "a"), filepath.Join(work, "clone", ".git"), filepath.Join(work, "clone", "pkg"),
		filepath.Join(work, "mono", ".git"), filepath.Join(work, "mono", "sub"), modules, worktrees} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A submodule's .git is a file naming its own repository; a worktree's names the one it
	// checks out again.
	if err := os.WriteFile(filepath.Join(work, "mono", "sub", ".git"), []byte("gitdir: ../.git/modules/sub\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(worktrees, "commondir"), []byte("../..\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(work, "mono", ".claude", "worktrees", "feature")
	if err := os.MkdirAll(wt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+filepath.Join(work, "mono", ".git", "worktrees", "feature")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ dir, why string }{
		{"/", "the file-system root"}, {home, "your home folder"}, {filepath.Join(e.root, "users"), "a folder above your home folder"},
		{"/tmp", "a shared temporary folder"}, {os.TempDir(), "a shared temporary folder"},
	} {
		if c.dir == "/tmp" && runtime.GOOS == "windows" {
			continue // a folder of the current drive there, not a shared one (os.TempDir is)
		}
		h := home
		if c.why == "a shared temporary folder" {
			h = "" // the test's home is in one
		}
		err := Trust(cfg, h, c.dir)
		var tb *TooBroadError
		if !errors.As(err, &tb) || tb.Why != c.why {
			t.Errorf("Trust(%s) = %v, want it refused as %s", c.dir, err, c.why)
		}
	}
	if err := Trust(cfg, home, work); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]bool{
		work: true, filepath.Join(work, "notes", "a"): true,
		filepath.Join(work, "clone"): false, filepath.Join(work, "clone", "pkg"): false,
		filepath.Join(work, "mono", "sub"): false,
	} {
		if got, err := IsTrusted(cfg, home, dir); err != nil || got != want {
			t.Errorf("IsTrusted(%s) = %v, %v; want %v", dir, got, err, want)
		}
	}
	if err := Trust(cfg, home, filepath.Join(work, "mono")); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(work, "mono", "x"), wt} {
		if got, _ := IsTrusted(cfg, home, d); !got {
			t.Errorf("%s, in a repository trusted itself or a worktree of it, is not trusted", d)
		}
	}
	if got, _ := IsTrusted(cfg, home, filepath.Join(work, "mono", "sub")); got {
		t.Error("a submodule of a trusted repository is trusted")
	}
	// Written by hand, or before the refusal: covers nothing.
	if err := os.WriteFile(trustFile(cfg), []byte(`{"trustedProjects": ["/", "`+home+`"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, _ := IsTrusted(cfg, home, filepath.Join(work, "notes")); got {
		t.Error("a recorded / or home folder trusts a folder beneath it")
	}
}
