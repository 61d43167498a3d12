//go:build unix

package bashrules

import "github.com/reinsdev/reins/permission"

// The round 4 rows that need the fixture's symlink link-out (made on Unix only: see
// check_unix_test.go), and the hard-link row whose protected folder is a Unix home's.
var round4UnixCases = []checkCase{
	// link-out -> outside: ".." after it is the outside folder's parent, not the project.
	{"r4-link", "cat link-out/../outside/secret", nil, "", "ask", "outside the working directories"},
	{"r4-link", "cat link-out/../outside/secret", nil, permission.ModeAcceptEdits, "ask", "outside the working directories"},
	{"r4-link", "echo x > link-out/../outside/new", nil, permission.ModeAcceptEdits, "ask", "outside the working directories"},
	{"r4-link", "pax -rwl {H}/.ssh sub", r("allow:Bash(pax:*)"), "", "ask:safety", "protected"},
}

func init() { checkCases = append(checkCases, round4UnixCases...) }
