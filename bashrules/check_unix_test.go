//go:build unix

package bashrules

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/reinsdev/reins/permission"
)

// The rows that need a symlink or a file of a Unix system (/etc/passwd, /usr/bin/rm). On
// Windows a symlink needs a privilege (or developer mode) and Wine 8, which runs the Windows
// tests, makes none (CreateSymbolicLink reports success and creates nothing); the Windows
// rows are in check_windows_test.go.
func init() { checkCases = append(checkCases, unixCheckCases...) }

var unixCheckCases = []checkCase{
	{"globs", "file *", r(denyEnv), "", "ask", "link-out is outside the working directories"},
	{"symlinks", "cat link-out/secret", nil, "", "ask", "outside the working directories"},
	{"symlinks", "echo x > link-out/f", nil, permission.ModeAcceptEdits, "ask", "outside the working directories"},
	{"symlinks", "touch link-out/f", nil, permission.ModeAcceptEdits, "ask", "outside the working directories"},
	{"symlinks", "rm link-out/secret", nil, permission.ModeAcceptEdits, "ask", "outside the working directories"},
	{"symlinks", "cat link-rc", nil, "", "ask", "outside the working directories"},
	{"symlinks", "echo x > link-rc", nil, permission.ModeAcceptEdits, "ask:safety", "sensitive file"},
	{"symlinks", "ls link-out", nil, "", "ask", "outside the working directories"},
	{"symlinks", "cp link-out/secret x", nil, permission.ModeAcceptEdits, "ask", "outside the working directories"},
	{"network", "git diff --no-index /etc/passwd README.md", nil, "", "ask", "outside the working directories"},
	{"names", "/usr/bin/r[m] -f x", r(denyRm), "", "deny", "rm:*"},
	{"names", "/u?r/bin/r? -f x", r(denyRm), "", "deny", "rm:*"},
	{"names", "/usr/bin/r* -f x", r(denyRm), "", "deny", "rm:*"},
	{"names", "/bin/r[m] -f x", r(denyRm), "", "deny", "rm:*"},
}

// addFixtureLinks adds the fixture's symlinks: proj/link-out to outside, proj/link-rc to
// home/.bashrc.
func addFixtureLinks(t testing.TB, f fixture) {
	t.Helper()
	if err := os.Symlink(f.outside, filepath.Join(f.proj, "link-out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(f.home, ".bashrc"), filepath.Join(f.proj, "link-rc")); err != nil {
		t.Fatal(err)
	}
}
