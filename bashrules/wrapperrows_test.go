package bashrules

import (
	"strings"
	"testing"

	"github.com/reinsdev/reins/bashrules/knowledge"
	"github.com/reinsdev/reins/permission"
)

// wrapperRows are how each wrapper is called to run rm -rf / when "NAME rm -rf /" is not its
// usual form (a value before the command, a -c script); every other wrapper is tried so.
var wrapperRows = map[string]string{
	"timeout":    "timeout 5 rm -rf /",
	"nice":       "nice -n 5 rm -rf /",
	"stdbuf":     "stdbuf -oL rm -rf /",
	"env":        "env -i FOO=1 rm -rf /",
	"sudo":       "sudo -u root -- rm -rf /",
	"doas":       "doas -u root rm -rf /",
	"pkexec":     "pkexec --user root rm -rf /",
	"watch":      "watch -n 5 rm -rf /",
	"ionice":     "ionice -c 3 rm -rf /",
	"setsid":     "setsid -f rm -rf /",
	"exec":       "exec -a x rm -rf /",
	"unbuffer":   "unbuffer -p rm -rf /",
	"caffeinate": "caffeinate -t 5 rm -rf /",
	"chrt":       "chrt -r 5 rm -rf /",
	"taskset":    "taskset -c 0 rm -rf /",
	"flock":      "flock /tmp/lock rm -rf /",
	"chroot":     "chroot /srv rm -rf /",
	"su":         "su -c 'rm -rf /'",
	"runuser":    "runuser -u nobody -- rm -rf /",
	"script":     "script -qc 'rm -rf /'",
	"time":       "time -p rm -rf /",
	"command":    "command -p rm -rf /",
	"ip":         "ip -all netns exec rm -rf /",
}

// TestEveryWrapperRunsRm: for every name of every entry with a wrapper role, the command it
// runs is found: a deny rule for rm denies the wrapper running rm -rf /, and the walk has rm
// as a child of its own, speculative only when the role says where it starts is a guess.
func TestEveryWrapperRunsRm(t *testing.T) {
	f := newFixture(t)
	pc := f.context(t, permission.ModeDefault, "deny:Bash(rm:*)")
	n := 0
	for _, e := range knowledge.Builtin().Programs() {
		r, ok := e.Wrapper()
		if !ok {
			continue
		}
		for _, name := range e.Names {
			n++
			cmd, ok := wrapperRows[name]
			if !ok {
				cmd = name + " rm -rf /"
			}
			t.Run(name, func(t *testing.T) {
				d, tr := check(t, pc, cmd)
				if outcome(d) != "deny" {
					t.Errorf("%s: Check(%q) = %s, want deny\n%s", e.Pos, cmd, outcome(d), explain(d, tr))
				}
				a, err := Analyze(cmd)
				if err != nil {
					t.Fatal(err)
				}
				found := false
				for _, c := range a.Commands {
					if c.Kind == KindCall && len(c.Argv) > 0 && c.Argv[0].Value == "rm" && c.Speculative == (r.Start == "guess") {
						found = true
					}
				}
				if !found {
					t.Errorf("%s: the walk of %q has no rm child (speculative: %v)", e.Pos, cmd, r.Start == "guess")
				}
			})
		}
	}
	if n < 40 {
		t.Fatalf("%d wrapper names; the knowledge base's wrapper roles were not read", n)
	}
	for name := range wrapperRows {
		if _, ok := wrapperOf(name); !ok {
			t.Errorf("wrapperRows has %s, which is no wrapper", name)
		}
	}
}

// TestEveryChdirIsFollowed: every name of an entry with a chdir role is a directory change of
// the path checks: to a folder outside the working directories it asks, and one that takes
// its directory from the stack asks whatever it is given.
func TestEveryChdirIsFollowed(t *testing.T) {
	f := newFixture(t)
	pc := f.context(t, permission.ModeDefault, "allow:Bash(*)")
	n := 0
	for _, e := range knowledge.Builtin().Programs() {
		w, ok := e.Role(knowledge.RoleChdir)
		if !ok {
			continue
		}
		for _, name := range e.Names {
			n++
			cmd, why := name+" {O}", "outside the working directories"
			if len(w) > 0 && w[0] == "stack" {
				cmd, why = name, "directory stack"
			}
			cmd = f.expand(cmd)
			d, tr := check(t, pc, cmd)
			if got := explain(d, tr); outcome(d) != "ask" || !strings.Contains(got, why) {
				t.Errorf("%s: Check(%q) = %s, want an ask naming %q\n%s", e.Pos, cmd, outcome(d), why, got)
			}
		}
	}
	if n < 4 {
		t.Fatalf("%d names with a chdir role; the roles were not read", n)
	}
}
