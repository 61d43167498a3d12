package sdkproto

import (
	"context"
	"regexp"
	"testing"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/permission"
)

type denyingTool struct{}

func (denyingTool) Name() string { return "Bash" }
func (denyingTool) CheckPermissions(context.Context, *permission.Context, any) permission.Decision {
	return permission.Decision{Behavior: permission.Passthrough}
}

// The permission_denied line says who decided — here a deny rule, with its file:line:col —
// and the signed policy's version in force, as the engine derived them once.
func TestPermissionDeniedSaysWhoDecided(t *testing.T) {
	pc, err := permission.New(permission.Config{Cwd: "/p", Rules: []permission.Rule{{Value: permission.ParseRule("Bash"), Behavior: permission.Deny,
		Source: permission.SourcePolicy, Origin: permission.Origin{File: "/etc/reins/managed-settings.json", Line: 3, Col: 14}}}})
	if err != nil {
		t.Fatal(err)
	}
	e := permission.Engine{PolicyVersion: "42"}
	d, err := e.AuthorizeCall(context.Background(), pc, permission.Call{Tool: denyingTool{}})
	if err != nil {
		t.Fatal(err)
	}
	c := &Collector{}
	em := &Emitter{W: c, SessionID: "s"}
	em.Handle(agent.Event{Type: agent.EventPermissionDenied, Denied: &agent.DeniedCall{ToolName: "Bash", ToolUseID: "toolu_1", Message: d.Message, Reason: d.Reason, By: d.By}})
	lines := lineJSON(t, c)
	if len(lines) != 1 {
		t.Fatalf("lines %v", lines)
	}
	got := regexp.MustCompile(`"uuid":"[^"]*"`).ReplaceAllString(lines[0], `"uuid":"U"`)
	const want = `{"type":"system","subtype":"permission_denied","tool_name":"Bash","tool_use_id":"toolu_1","decision_reason_type":"rule",` +
		`"decision_reason":"rule deny \"Bash\" from policySettings (/etc/reins/managed-settings.json:3:14)",` +
		`"decided_by":{"kind":"rule","rule":"Bash","rule_source":"policySettings","rule_origin":"/etc/reins/managed-settings.json:3:14","policy_version":"42"},` +
		`"message":"Permission to use Bash has been denied.","session_id":"s","uuid":"U"}`
	if got != want {
		t.Errorf("permission_denied line\n got %s\nwant %s", got, want)
	}
}
