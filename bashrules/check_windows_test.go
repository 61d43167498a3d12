package bashrules

import (
	"testing"

	"github.com/reinsdev/reins/permission"
)

// The Windows rows: Git Bash's paths (/c/x is C:\x, a rooted /x is on the working directory's
// drive, C:/x is itself), drive roots and their folders as dangerous removals, and files every
// Windows has in place of /etc/passwd.
func init() { checkCases = append(checkCases, windowsCheckCases...) }

var windowsCheckCases = []checkCase{
	{"windows", "cat /c/Windows/win.ini", nil, "", "ask", "outside the working directories"},
	{"windows", "cat C:/Windows/win.ini", nil, "", "ask", "outside the working directories"},
	{"windows", "cat /cygdrive/c/Windows/win.ini", nil, "", "ask", "outside the working directories"},
	{"windows", "git diff --no-index /c/Windows/win.ini README.md", nil, "", "ask", "outside the working directories"},
	{"windows", "cat {P}/README.md", nil, "", "allow", "only reads"},
	{"windows", "cat {P}/.env", r(denyEnv), "", "deny", ".env"},
	{"windows", "echo x > /c/Windows/x.dll", nil, permission.ModeAcceptEdits, "ask", "outside the working directories"},
	{"windows", "echo x > /etc/profile", nil, permission.ModeAcceptEdits, "ask", "outside the working directories"},
	{"windows", "touch {P}/new.txt", nil, permission.ModeAcceptEdits, "allow", "inside the working directories"},
	{"windows", "rm -rf /c/", r("allow:Bash(rm:*)"), "", "ask:safety", "file-system root"},
	{"windows", "rm -rf /c/Windows", r("allow:Bash(rm:*)"), "", "ask:safety", "top-level system directory"},
	{"windows", "rm -rf C:/Users", r("allow:Bash(rm:*)"), "", "ask:safety", "top-level system directory"},
	{"windows", "rm -rf {O}/*", r("allow:Bash(rm:*)"), "", "ask:safety", "removes everything in a directory"},
	{"windows", "rm -rf /c/Win*", r("allow:Bash(rm:*)"), "", "ask:safety", "file-system root"},
	{"windows", "cat .ENV", r(denyEnv), "", "deny", ".env"},
	{"windows", "cat src/NUL", nil, "", "ask:safety", "device name"},
	{"windows", "cat a.txt:hidden", nil, "", "ask:safety", "alternate data stream"},
}

// addFixtureLinks adds nothing on Windows: see check_unix_test.go.
func addFixtureLinks(testing.TB, fixture) {}
