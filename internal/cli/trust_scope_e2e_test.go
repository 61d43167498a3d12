package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrustRefusesFoldersTooBroad: `reins trust /`, the home folder and a folder above it fail
// with an error that says why and record nothing; a trust file that lists one anyway (written
// before, or by hand) trusts nothing.
func TestTrustRefusesFoldersTooBroad(t *testing.T) {
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	home := filepath.Join(root, "users", "me")
	proj := filepath.Join(home, "src", "app")
	for _, d := range []string{filepath.Join(proj, ".git"), filepath.Join(home, "managed")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ dir, why string }{
		{"/", "the file-system root"},
		{home, "your home folder"},
		{"~", "your home folder"},
		{filepath.Join(root, "users"), "above your home folder"},
		{root, "above your home folder"},
	} {
		arg := c.dir
		if arg == "~" {
			arg = home
		}
		_, stderr, code := runReins(t, proj, home, "trust", arg)
		if code == 0 || !strings.Contains(stderr, c.why) || !strings.Contains(stderr, "reins trust "+proj) {
			t.Errorf("reins trust %s: exit %d, stderr %q; want a failure saying it is %s and suggesting the project", c.dir, code, stderr, c.why)
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".reins", "trusted-projects.json")); err == nil {
		t.Error("a refused trust wrote the trust file")
	}

	// Recorded anyway: ignored.
	if err := os.MkdirAll(filepath.Join(home, ".reins"), 0o700); err != nil {
		t.Fatal(err)
	}
	doc, _ := json.Marshal(map[string][]string{"trustedProjects": {"/", home}})
	if err := os.WriteFile(filepath.Join(home, ".reins", "trusted-projects.json"), doc, 0o600); err != nil {
		t.Fatal(err)
	}
	if trusted := listTrusted(t, proj, home); trusted {
		t.Error("a trust file listing / and the home folder trusts the project")
	}
}

// TestTrustStopsAtAnotherRepository: trusting a folder of projects does not trust a repository
// cloned beneath it later; the folder's own subfolders, and the repository trusted itself, are.
func TestTrustStopsAtAnotherRepository(t *testing.T) {
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	home := filepath.Join(root, "home")
	src := filepath.Join(root, "work")
	clone := filepath.Join(src, "evil")
	plain := filepath.Join(src, "notes", "sub")
	for _, d := range []string{filepath.Join(home, "managed"), filepath.Join(clone, ".git"), filepath.Join(clone, "pkg"), plain} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if _, stderr, code := runReins(t, src, home, "trust", src); code != 0 {
		t.Fatalf("reins trust %s: %d %s", src, code, stderr)
	}
	if !listTrusted(t, plain, home) {
		t.Error("a plain folder below the trusted one is not trusted")
	}
	for _, d := range []string{clone, filepath.Join(clone, "pkg")} {
		if listTrusted(t, d, home) {
			t.Errorf("%s, a repository cloned below the trusted folder, is trusted", d)
		}
	}
	if _, stderr, code := runReins(t, clone, home, "trust"); code != 0 {
		t.Fatalf("reins trust: %d %s", code, stderr)
	}
	if !listTrusted(t, filepath.Join(clone, "pkg"), home) {
		t.Error("the repository trusted itself is not trusted")
	}
}

// listTrusted is what `permissions list --json` says of the trust of dir.
func listTrusted(t *testing.T, dir, home string) bool {
	t.Helper()
	out, stderr, code := runReins(t, dir, home, "permissions", "list", "--json")
	if code != 0 {
		t.Fatalf("permissions list in %s: %d %s", dir, code, stderr)
	}
	var res struct {
		Trusted bool `json:"trusted"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	return res.Trusted
}
