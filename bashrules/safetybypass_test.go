package bashrules

import (
	"testing"

	"github.com/reinsdev/reins/permission"
)

// TestSafetyAsksSurviveBypass: what the analysis cannot see, with a Bash deny or ask rule,
// stays an ask in bypass mode and under a tool-wide Bash allow (step 1g).
func TestSafetyAsksSurviveBypass(t *testing.T) {
	f := newFixture(t)
	cmds := []string{"/usr/bin/zz[z]q -f x", "$CMD x", "PATH=/tmp ls", "LD_PRELOAD=x ls", "alias ls=rm; ls", "hash -p /bin/rm ls",
		"find . -delete", "rg --pre sh x", "git -c core.pager=sh log", "curl -O http://x/y", "BASH_ENV=x bash -c ls", "enable -n echo"}
	for _, cmd := range cmds {
		for _, setup := range []struct {
			mode  permission.Mode
			rules []string
		}{{permission.ModeBypass, r(denyRm)}, {permission.ModeDefault, r(denyRm, "allow:Bash")}, {permission.ModeBypass, r("ask:Bash(git push:*)")}} {
			pc := f.context(t, setup.mode, setup.rules...)
			var e permission.Engine
			d, err := e.Decide(t.Context(), pc, bashTool{}, map[string]any{"command": f.expand(cmd)})
			if err != nil {
				t.Fatal(err)
			}
			if d.Behavior == permission.Allow {
				t.Errorf("%s %v: %q allowed; want a safety ask", setup.mode, setup.rules, cmd)
			}
		}
	}
	// With no Bash deny or ask rule, bypass allows them: nothing could have been evaded.
	pc := f.context(t, permission.ModeBypass)
	var e permission.Engine
	if d, _ := e.Decide(t.Context(), pc, bashTool{}, map[string]any{"command": "$CMD x"}); d.Behavior != permission.Allow {
		t.Errorf("bypass without rules: %s, want allow", d.Behavior)
	}
}
