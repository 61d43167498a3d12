package hooks

import (
	"context"
	"strings"
	"testing"

	"github.com/reinsdev/reins/permission"
)

// TestMalformedJSONBlocksTheEventsThatDecide: a hook that exits 0 with standard output that
// starts as a JSON object but does not parse — cut off, or cut at the output cap — is never
// taken as no output. Each event names the hook and where it is configured in a warning; the
// events that decide take it as a block, as they take exit 2: PreToolUse denies,
// PermissionRequest denies, UserPromptSubmit blocks the prompt, Stop keeps the agent going
// (once); the others only warn.
func TestMalformedJSONBlocksTheEventsThatDecide(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	common := Common{Cwd: dir, PermissionMode: permission.ModeDefault}
	const origin = "/p/.claude/settings.json:7:9"
	cut := script(t, dir, "cut.sh", `printf '{"hookSpecificOutput": {"permissionDecision": "allow", "permissionDecisionReas'`)
	long := script(t, dir, "long.sh", `printf '{"systemMessage": "'; head -c 5000 /dev/zero | tr '\0' a; printf '"}'`)
	for _, tt := range []struct {
		name, command string
		maxOutput     int
		why           string
	}{
		{"cut off", cut, 0, "does not parse"},
		{"too long", long, 1000, "cut at the 1000-byte output cap"},
	} {
		hook := func(ev Event) Hook { return Hook{Event: ev, Command: tt.command, Origin: origin} }
		runner := func(ev Event) *Runner {
			r := newRunner(t, dir, hook(ev))
			r.MaxOutput = tt.maxOutput
			return r
		}
		warned := func(t *testing.T, msgs []string) {
			t.Helper()
			if len(msgs) != 1 || !strings.Contains(msgs[0], origin) || !strings.Contains(msgs[0], tt.why) || !strings.Contains(msgs[0], "not valid hook JSON") {
				t.Errorf("messages %q, want one naming the hook at %s and saying it %s", msgs, origin, tt.why)
			}
		}
		t.Run(tt.name+"/PreToolUse denies", func(t *testing.T) {
			res := runner(PreToolUse).PreToolUse(ctx, common, bashCall)
			if res.Verdict.Behavior != permission.Deny || !strings.Contains(res.Verdict.Reason, "not valid hook JSON") {
				t.Errorf("verdict %+v, want a deny", res.Verdict)
			}
			warned(t, res.Messages)
		})
		t.Run(tt.name+"/PermissionRequest denies", func(t *testing.T) {
			a := &Asker{Runner: runner(PermissionRequest)}
			d, err := a.Ask(ctx, permission.AskRequest{Tool: "Bash", Input: map[string]any{"command": "make"}, Decision: permission.Decision{Behavior: permission.Ask, Message: "may I?"}})
			if err != nil || d.Behavior != permission.Deny || !strings.Contains(d.Message, "not valid hook JSON") {
				t.Errorf("decision %+v, %v; want a deny naming the bad output", d, err)
			}
		})
		t.Run(tt.name+"/UserPromptSubmit blocks", func(t *testing.T) {
			res := runner(UserPromptSubmit).UserPromptSubmit(ctx, common, "hello")
			if !res.Blocked || len(res.Context) > 0 {
				t.Errorf("blocked %v, context %q: the output must neither pass nor become context", res.Blocked, res.Context)
			}
			warned(t, res.Messages)
		})
		t.Run(tt.name+"/Stop keeps the agent going, once", func(t *testing.T) {
			if res := runner(Stop).Stop(ctx, common, false); !res.Block || !strings.Contains(res.Reason, "not valid hook JSON") {
				t.Errorf("stop %+v, want a block", res)
			}
			if res := runner(Stop).Stop(ctx, common, true); res.Block || len(res.Messages) != 1 {
				t.Errorf("stop while a Stop hook already keeps it going: %+v, want a warning and no second block", res)
			}
		})
		t.Run(tt.name+"/PostToolUse warns", func(t *testing.T) {
			res := runner(PostToolUse).PostToolUse(ctx, common, bashCall, map[string]any{"ok": true})
			if len(res.Feedback) > 0 {
				t.Errorf("feedback %q", res.Feedback)
			}
			warned(t, res.Messages)
		})
	}
}
