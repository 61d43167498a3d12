package bashrules

import (
	"slices"
	"testing"

	"github.com/reinsdev/reins/bashrules/knowledge"
	"github.com/reinsdev/reins/permission"
)

// roleCases are the knowledge base's roles as the checker sees them: each row fails when the
// role its program's entry states is taken away.
var roleCases = []checkCase{
	// launcher: every word (nix-shell) or the words after a subcommand (nix run, pnpm dlx).
	{"roles", "nix-shell -p hello rm -rf x", r(denyRm), "", "deny", "rm:*"},
	{"roles", "nix-shell --run 'rm -rf x'", r(denyRm), "", "deny", "rm:*"},
	{"roles", "nix run nixpkgs#hello -- rm -rf x", r(denyRm), "", "deny", "rm:*"},
	{"roles", "pnpm dlx rm -rf x", r(denyRm), "", "deny", "rm:*"},
	{"roles", "uv run rm -rf x", r(denyRm), permission.ModeBypass, "deny", "rm:*"},
	// interpreter: inline code, a subcommand whose operands are code, a versioned name.
	{"roles", `deno eval 'Deno.run({cmd:["ls"]})'`, r(denyRm, "allow:Bash(deno:*)"), "", "ask:safety", "deno eval"},
	{"roles", `ruby3.2 -e 'puts 1'`, r(denyRm, "allow:Bash(ruby3.2:*)"), "", "ask:safety", "ruby3.2 -e"},
	{"roles", `php -B 'echo 1;'`, r(denyRm, "allow:Bash(php:*)"), "", "ask:safety", "php -B"},
	{"roles", `perl -Ilib -e 1`, r(denyRm, "allow:Bash(perl:*)"), "", "ask:safety", "perl -e"},
	{"roles", `perl -Ie lib.pl`, r(denyRm, "allow:Bash(perl -Ie lib.pl:*)"), "", "allow", "perl -Ie lib.pl:*"},
	// An interpreter whose program the analysis reads (awk) is not opaque code.
	{"roles", "awk -- '{print}' f", r(denyRm, "allow:Bash(awk:*)"), "", "allow", "awk:*"},
	// runner: the kinds, the value options (ssh -tp 22) and those after which nothing runs.
	{"roles", "at now <<'EOF'\nrm -rf x\nEOF", r(denyRm), "", "deny", "rm:*"},
	{"roles", "tmux new-session 'rm -rf x'", r(denyRm), "", "deny", "rm:*"},
	{"roles", "ssh -N host", r(denyRm, "allow:Bash(ssh:*)"), "", "allow", "ssh:*"},
	{"roles", "ssh -W h:22 host", r(denyRm, "allow:Bash(ssh:*)"), "", "allow", "ssh:*"},
	{"roles", "ssh -L 80:h:80 host rm -rf x", r(denyRm), "", "deny", "rm:*"},
	// database client: a shell escape in its statements.
	{"roles", `sqlite3 db '.shell rm -rf x'`, r(denyRm), "", "deny", "rm:*"},
	// shell: a script file the analysis does not read.
	{"roles", "fish build.fish", r(denyRm, "allow:Bash(fish:*)"), "", "ask:safety", "script file"},
	// paths: what the operands are. A file that does not exist is not probed, so only the
	// role makes it a read, a write or a removal; "none" keeps an existing file's name from
	// being probed as a read.
	{"roles", "tac secret.txt", r("allow:Bash(tac:*)", "deny:Read(./secret.txt)"), "", "deny", "Read(./secret.txt)"},
	{"roles", "echo .env", r("allow:Bash(echo:*)", denyEnv), "", "allow", "echo:*"},
	{"roles", "tee /etc/reins-nothere", r("allow:Bash(tee:*)"), "", "ask", "/etc/reins-nothere"},
	{"roles", "rmdir /etc/reins-nothere", r("allow:Bash(rmdir:*)"), "", "ask", "/etc/reins-nothere"},
	// The entry's options place the operands: column -t and pr -s take no value, so the
	// word after them is a file (the hand-kept option lists these replace hid it).
	{"roles", "column -t secret.txt", r("allow:Bash(column:*)", "deny:Read(./secret.txt)"), "", "deny", "Read(./secret.txt)"},
	{"roles", "pr -s secret.txt", r("allow:Bash(pr:*)", "deny:Read(./secret.txt)"), "", "deny", "Read(./secret.txt)"},
	// A file an option names is typed in the entry and found by its type: rgrep's entry
	// is like grep's, so its -f is grep's read.
	{"roles", "rgrep -f secret.txt src", r("allow:Bash(rgrep:*)", "deny:Read(./secret.txt)"), "", "deny", "Read(./secret.txt)"},
	{"roles", "diff -X secret.txt a b", r("allow:Bash(diff:*)", "deny:Read(./secret.txt)"), "", "deny", "Read(./secret.txt)"},
}

func init() { checkCases = append(checkCases, roleCases...) }

// TestLocalRoles: the network check asks the entries which programs and subcommands are local.
func TestLocalRoles(t *testing.T) {
	f := newFixture(t)
	pc := f.context(t, permission.ModeDefault)
	for _, tc := range []struct {
		cmd   string
		local bool
	}{
		{"git status", true}, {"git fetch", false}, {"go vet ./...", true}, {"go test ./...", false},
		{"timeout 5 ls", true}, {"timeout 5 curl x", false}, {"setsid ls", true}, {"frobnicate", false},
		{"cat README.md | sort | uniq", true}, {"echo hi", true}, {"jq . x.json", true}, {"pip install x", false}, {"env", false},
	} {
		e := Egress(pc, tc.cmd)
		if got := e.Unseen == "" && len(e.Hosts) == 0; got != tc.local {
			t.Errorf("Egress(%q) = %+v, want local=%v", tc.cmd, e, tc.local)
		}
	}
}

// TestKnownArgsFromRoles: a program whose entry says its operands are data, or gives it any
// role, does not have an argument read as a command of its own.
func TestKnownArgsFromRoles(t *testing.T) {
	for _, name := range []string{"jq", "gh", "printf", "pnpm", "hyperfine", "psql", "npx", "tree", "[", "."} {
		if !knownArgs(name) {
			t.Errorf("knownArgs(%q) = false", name)
		}
	}
	if knownArgs("frobnicate") {
		t.Error("knownArgs(frobnicate) = true")
	}
}

// TestEveryRoleIsRead: every role an entry states is one the checker reads (facts.go); a role
// the loader accepts but no check asks about would be a fact that protects nothing.
func TestEveryRoleIsRead(t *testing.T) {
	read := map[string]bool{knowledge.RoleInterpreter: true, knowledge.RoleShell: true, knowledge.RoleRunner: true,
		knowledge.RoleDBClient: true, knowledge.RoleData: true, knowledge.RoleLauncher: true, knowledge.RoleLocal: true,
		knowledge.RoleGlobHazard: true, knowledge.RoleNetwork: true, knowledge.RoleGoals: true, knowledge.RoleCodeModules: true,
		knowledge.RoleEdits: true, knowledge.RoleSubscripts: true, knowledge.RoleShellText: true, knowledge.RoleNoSuggest: true,
		knowledge.RoleCommands: true, knowledge.RoleRunsNamed: true, knowledge.RoleSetsVars: true, knowledge.RoleDeclares: true,
		knowledge.RoleDestroys: true, knowledge.RoleExecValues: true, knowledge.RolePaths: true,
		knowledge.RoleWrapper: true, knowledge.RoleChdir: true,
		knowledge.RoleSeesCode: true, knowledge.RolePrintsNames: true}
	for _, e := range knowledge.Builtin().Programs() {
		for r := range e.Roles {
			if !read[r] {
				t.Errorf("%s: role %s is read by no check", e.Pos, r)
			}
		}
		if e.NoOptions && len(e.Roles) == 0 && !hasCode(e) {
			t.Errorf("%s: a nooptions entry with no role and no registered code says nothing", e.Pos)
		}
	}
}

// TestEveryDestroyKindHasCode: each kind of damage a destroys role may name has the damage
// budget's code, and no code is for a kind no entry can name.
func TestEveryDestroyKindHasCode(t *testing.T) {
	for _, k := range knowledge.DestroyKinds {
		if damageKinds[k] == nil {
			t.Errorf("role destroys %s: the damage budget has no code for it (damageKinds)", k)
		}
	}
	for k := range damageKinds {
		if !slices.Contains(knowledge.DestroyKinds, k) {
			t.Errorf("damageKinds has code for %s, which knowledge.DestroyKinds does not list", k)
		}
	}
}

// TestInterpreterVersions: an interpreter's versioned names are the interpreter, a trailing
// dot included; a name with no version costs no regexp and is no interpreter.
func TestInterpreterVersions(t *testing.T) {
	for name, want := range map[string]bool{"python3.12": true, "python3.": true, "ruby3.2": true, "node18": true,
		"php8.2": true, "lua5.4": true, "git": false, "": false, "make4": false} {
		if _, got := interpreterFor(name); got != want {
			t.Errorf("interpreterFor(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestPrintsNamesEntries: a producer of names is in the read-only set (xargs takes its names
// only when it is allowed without a rule), its role names subcommands it has, and an option
// marked printsnames is one of a readonly entry; xargs's children are in the set too, and
// never a program an option of which writes or runs (file -C).
func TestPrintsNamesEntries(t *testing.T) {
	producers := 0
	for _, e := range knowledge.Builtin().Programs() {
		subs, role := e.Role(knowledge.RolePrintsNames)
		marked := false
		for _, c := range append([]*knowledge.Command{e}, e.Subcommands()...) {
			for _, o := range c.Options {
				marked = marked || o.PrintsNames
			}
		}
		if !role && !marked {
			continue
		}
		producers++
		if !e.ReadOnly {
			t.Errorf("%s: %s prints names but is not flagged readonly, so xargs never takes them", e.Pos, e.Names[0])
		}
		for _, s := range subs {
			if _, ok := e.Sub(s); !ok {
				t.Errorf("%s: role printsnames names %s, which is no subcommand of %s", e.Pos, s, e.Names[0])
			}
		}
	}
	if producers < 5 {
		t.Fatalf("%d producers of names: the role or the option word was not read", producers)
	}
	for name := range xargsChildren() {
		if _, ok := readOnlyCommands()[name]; !ok {
			t.Errorf("xargs may run %s, which is not in the read-only set", name)
		}
	}
	for _, name := range []string{"file", "sort", "uniq", "sed", "find", "git", "xargs", "tee"} {
		if xargsChildren()[name] {
			t.Errorf("xargs may run %s on found names, one of which may be spelled like an option that writes", name)
		}
	}
	for _, name := range []string{"grep", "wc", "cat", "ls", "basename", "realpath", "md5sum"} {
		if !xargsChildren()[name] {
			t.Errorf("xargs may not run %s on found names", name)
		}
	}
}
