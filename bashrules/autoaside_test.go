package bashrules

import (
	"testing"

	"github.com/reinsdev/reins/permission"
)

// TestSetAsideInAuto: by what a rule allows, not its text: interpreters under any name or
// path, shells, runners, database clients, launchers' running subcommands, wrappers that may
// wrap any of them, and what a rule's text leaves open; a rule for a program that runs no
// code of its own, or a wrapper of one, is kept.
func TestSetAsideInAuto(t *testing.T) {
	aside := []string{
		"", "*", "python3:*", "python3", "python3 -c *", "python3.12:*", "/usr/bin/python3:*", "/opt/py/bin/python3 *",
		"nodejs:*", "node:*", "ruby -e *", "perl:*", "deno eval:*", "bash:*", "sh -c *", "zsh", "fish:*",
		"timeout:*", "timeout 5:*", "timeout 5 python3:*", "timeout 5 *", "env:*", "env python3:*", "env FOO=1 node:*",
		"nice:*", "nice -n 5 python3:*", "xargs:*", "xargs -0 python3:*", "sudo:*", "sudo -u x:*", "watch:*", "strace:*",
		"FOO=1 python3:*", "npx:*", "npx prettier:*", "uv run:*", "uv:*", "uv --quiet run:*", "bun:*", "bun run:*",
		"npm run:*", "npm exec:*", "yarn run:*", "pnpm dlx:*", "ssh:*", "ssh host:*", "psql:*", "sqlite3 db:*",
		"eval:*", "source:*", ". ./env.sh", "exec:*", "py*", "pyth*:*", "$PY:*", "'python3':*", "~/bin/python3:*",
		"hyperfine:*", "make && python3:*", "ls; python3 x.py", "nix-shell --run=x:*", "timeout 5 timeout 5 python3:*",
	}
	kept := []string{
		"ls:*", "git status", "git log:*", "npm test:*", "npm install:*", "uv pip install:*", "go test:*",
		"timeout 5 make", "timeout 5 ls:*", "nice -n 5 make:*", "env FOO=1 ls:*", "xargs rm:*", "sudo ls:*",
		"grep *", "cat *", "echo hi", "timeout 5", "gh pr list:*",
	}
	for _, c := range aside {
		if why := SetAsideInAuto(permission.RuleValue{Tool: "Bash", Content: c}); why == "" {
			t.Errorf("Bash(%s) is kept in auto mode; it allows code", c)
		}
	}
	for _, c := range kept {
		if why := SetAsideInAuto(permission.RuleValue{Tool: "Bash", Content: c}); why != "" {
			t.Errorf("Bash(%s) is set aside in auto mode: %s", c, why)
		}
	}
	if why := SetAsideInAuto(permission.RuleValue{Tool: "Read", Content: "python3"}); why != "" {
		t.Errorf("a Read rule is set aside: %s", why)
	}
}
