package bashrules

import (
	"context"
	"testing"

	"github.com/reinsdev/reins/permission"
)

// TestEngine runs commands through the whole pipeline, where bypass mode, tool-wide rules and
// dontAsk act on Check's answers.
func TestEngine(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name  string
		cmd   string
		mode  permission.Mode
		rules []string
		want  permission.Behavior
	}{
		{"bypass allows what nothing allowed", "touch a && npm test", permission.ModeBypass, nil, permission.Allow},
		{"bypass allows what the analysis could not see", "echo $X", permission.ModeBypass, nil, permission.Allow},
		{"bypass stops at dangerous removals", "rm -rf /", permission.ModeBypass, nil, permission.Ask},
		{"bypass stops at removals of the working directory", "rm -rf {P}", permission.ModeBypass, nil, permission.Ask},
		// Claude Code 2.1.88 let these through when two parts asked; 2.1.98 fixed it.
		{"bypass keeps an ask rule inside a compound", "touch a && touch b", permission.ModeBypass, r("ask:Bash(touch a)"), permission.Ask},
		{"bypass keeps a safety ask inside a compound", "echo x > .bashrc && npm test && make", permission.ModeBypass, nil, permission.Ask},
		{"bypass keeps a dangerous removal inside a compound", "npm test; rm -rf ~; make", permission.ModeBypass, nil, permission.Ask},
		{"bypass keeps Read deny", "cat .env", permission.ModeBypass, r(denyEnv), permission.Deny},
		{"bypass keeps deny rules behind wrappers", "sudo -u x env A=1 rm y", permission.ModeBypass, r("deny:Bash(rm:*)"), permission.Deny},
		{"tool-wide allow still stops at dangerous removals", "rm -rf /", "", r("allow:Bash"), permission.Ask},
		{"tool-wide allow allows the rest", "touch a && make", "", r("allow:Bash"), permission.Allow},
		{"dontAsk denies what would ask", "touch a", permission.ModeDontAsk, nil, permission.Deny},
		{"dontAsk allows read-only commands", "ls -la && git status", permission.ModeDontAsk, nil, permission.Allow},
		{"plan with bypass available allows", "touch a", permission.ModePlan, nil, permission.Ask},
		{"acceptEdits allows edits inside", "mkdir d && touch d/x", permission.ModeAcceptEdits, nil, permission.Allow},
		{"auto mode without a classifier denies", "touch {O}/x", permission.ModeAuto, nil, permission.Deny},
		{"auto mode allows what acceptEdits allows", "touch x", permission.ModeAuto, nil, permission.Allow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mode := tt.mode
			if mode == "" {
				mode = permission.ModeDefault
			}
			pc := f.context(t, mode, tt.rules...)
			cmd := f.expand(tt.cmd)
			tr := &permission.Trace{}
			var e permission.Engine
			d, err := e.Decide(permission.WithTrace(context.Background(), tr), pc, bashTool{}, map[string]any{"command": cmd})
			if err != nil {
				t.Fatal(err)
			}
			if d.Behavior != tt.want {
				t.Errorf("%q in %s = %s, want %s\n%s", cmd, mode, d.Behavior, tt.want, explain(d, tr))
			}
		})
	}
}

func TestPlanWithBypassAvailable(t *testing.T) {
	f := newFixture(t)
	pc, err := permission.New(permission.Config{Mode: permission.ModePlan, BypassAvailable: true, Cwd: f.proj, Home: f.home})
	if err != nil {
		t.Fatal(err)
	}
	var e permission.Engine
	for cmd, want := range map[string]permission.Behavior{"touch a": permission.Allow, "rm -rf /": permission.Ask} {
		d, err := e.Decide(context.Background(), pc, bashTool{}, map[string]any{"command": cmd})
		if err != nil {
			t.Fatal(err)
		}
		if d.Behavior != want {
			t.Errorf("%q = %s, want %s", cmd, d.Behavior, want)
		}
	}
}

// TestSessionInSubdirectory checks a session whose shell has already moved into src: relative
// paths resolve there, and the project around it is still a working directory to protect.
func TestSessionInSubdirectory(t *testing.T) {
	f := newFixture(t)
	pc := f.context(t, permission.ModeAcceptEdits, denyEnv, "allow:Bash(rm:*)").WithCwd(f.proj + "/src")
	tests := map[string]string{
		"cat main.go":         "allow",
		"cat ../.env":         "deny",
		"rm -rf ..":           "ask:safety", // the original working directory
		"rm -rf .":            "ask:safety",
		"touch new.go":        "allow",
		"touch ../../x":       "ask",
		"cd .. && ls":         "allow",
		"cat ../../outside/x": "ask",
		"echo x > ../.bashrc": "ask:safety",
		"rm main.go":          "allow",
	}
	for cmd, want := range tests {
		d, tr := check(t, pc, cmd)
		if got := outcome(d); got != want {
			t.Errorf("in src: %q = %s, want %s\n%s", cmd, got, want, explain(d, tr))
		}
	}
}
