package classifier

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/permission"
	"pgregory.net/rapid"
)

// checker is a tool as the engine sees it: file tools answer with the shared read or write
// check; others (Bash, WebFetch, an MCP tool) with what the draw says.
type checker struct {
	name     string
	write    bool
	file     bool
	decision permission.Decision
}

func (c checker) Name() string { return c.name }
func (c checker) CheckPermissions(ctx context.Context, pc *permission.Context, input any) permission.Decision {
	switch {
	case c.file && c.write:
		return pc.CheckWrite(ctx, input.(string))
	case c.file:
		return pc.CheckRead(ctx, input.(string))
	}
	return c.decision
}

var (
	propRules = []string{"Bash", "Bash(rm:*)", "Bash(curl:*)", "WebFetch", "Read(.env)", "Edit(src/**)", "Edit(**)", "Read(**)",
		"Edit(.git/**)", "Write", "mcp__srv__tool", "mcp__srv", "Edit(/.claude/**)"}
	propPaths = []string{"a.txt", "src/main.go", ".env", ".git/config", ".claude/settings.json", "../outside.txt", "/etc/passwd"}
	// answers are what the classifier's model may say: verdicts, garbage, refusals, errors.
	propAnswers = []llmtest.Answer{
		verdictAnswer("allow", "fine"),
		verdictAnswer("block", "risky"),
		llmtest.Respond(llmtest.Response(llm.StopEndTurn, llm.Text(`{"decision":"allow","reason":"text"}`))),
		llmtest.Respond(llmtest.Response(llm.StopRefusal)),
		llmtest.Respond(llmtest.Response(llm.StopToolUse, verdictCall(`{"decision":"allow","reason":"x","extra":1}`))),
		llmtest.Respond(llmtest.Response(llm.StopToolUse, verdictCall(`{"decision":"block","decision":"allow","reason":"x"}`))),
		llmtest.Respond(llmtest.Response(llm.StopToolUse, llm.ToolUse("x", "Bash", json.RawMessage(`{"command":"allow"}`)))),
		func(context.Context, *llm.Request) (*llm.Response, error) { return nil, errors.New("connection reset") },
	}
)

func drawTool(t *rapid.T) (checker, any) {
	kind := rapid.IntRange(0, 3).Draw(t, "tool")
	path := rapid.SampledFrom(propPaths).Draw(t, "path")
	switch kind {
	case 0:
		return checker{name: "Read", file: true}, path
	case 1:
		return checker{name: rapid.SampledFrom([]string{"Edit", "Write"}).Draw(t, "writer"), file: true, write: true}, path
	}
	name := rapid.SampledFrom([]string{"Bash", "WebFetch", "mcp__srv__tool", "Agent"}).Draw(t, "name")
	ds := []permission.Decision{
		{Behavior: permission.Passthrough},
		{Behavior: permission.Allow},
		{Behavior: permission.Deny, Message: "no", Reason: &permission.Reason{Type: permission.ReasonOther}},
		{Behavior: permission.Ask, Reason: &permission.Reason{Type: permission.ReasonSafetyCheck, ClassifierApprovable: true}},
		{Behavior: permission.Ask, Reason: &permission.Reason{Type: permission.ReasonOther}},
	}
	return checker{name: name, decision: rapid.SampledFrom(ds).Draw(t, "decision")}, map[string]string{"command": path}
}

// TestPropertyAutoNeverLooserThanDefault: for any session (rules, earlier calls, a tool and
// its input) and any classifier answer, what default mode denies auto mode does not allow;
// and what default mode would ask a person about because of an ask rule or a safety check is
// never allowed in auto mode without that person.
func TestPropertyAutoNeverLooserThanDefault(t *testing.T) {
	dir := t.TempDir()
	cwd := filepath.Join(dir, "proj")
	for _, d := range []string{"src", ".git", ".claude"} {
		os.MkdirAll(filepath.Join(cwd, d), 0o755)
	}
	rapid.Check(t, func(rt *rapid.T) {
		var rules []permission.Rule
		for i := range rapid.IntRange(0, 5).Draw(rt, "nrules") {
			rules = append(rules, permission.Rule{
				Value:    permission.ParseRule(rapid.SampledFrom(propRules).Draw(rt, "rule"+string(rune('a'+i)))),
				Behavior: rapid.SampledFrom([]permission.Behavior{permission.Allow, permission.Ask, permission.Deny}).Draw(rt, "behavior"),
				Source:   rapid.SampledFrom(permission.Sources).Draw(rt, "source"),
			})
		}
		base, err := permission.New(permission.Config{Cwd: cwd, Home: dir, Rules: rules, AutoAvailable: true})
		if err != nil {
			rt.Fatal(err)
		}
		tool, input := drawTool(rt)
		var msgs []llm.Message
		for range rapid.IntRange(0, 4).Draw(rt, "turns") {
			msgs = append(msgs, llm.UserText(rapid.String().Draw(rt, "said")),
				assistant(toolUse("t", "Bash", `{"command":"ls"}`)), results(llm.ToolResult("t", []llm.Block{llm.Text(rapid.String().Draw(rt, "read"))}, false)))
		}
		var answers []llmtest.Answer
		for range 8 {
			answers = append(answers, rapid.SampledFrom(propAnswers).Draw(rt, "answer"))
		}
		ctx := llm.WithTranscript(context.Background(), msgs, false)
		cl := &Classifier{Provider: llmtest.NewScript(answers...), Model: "m"}
		autoPC, err := base.Transition(permission.ModeAuto)
		if err != nil {
			rt.Fatal(err)
		}
		def, err := (&permission.Engine{}).Authorize(ctx, base, tool, input, nil)
		if err != nil {
			rt.Fatal(err)
		}
		defAsk, _ := (&permission.Engine{}).Decide(ctx, base, tool, input)
		e := &permission.Engine{Classifier: cl}
		for range rapid.IntRange(1, 4).Draw(rt, "repeats") {
			got, err := e.Authorize(ctx, autoPC, tool, input, nil)
			if errors.Is(err, permission.ErrTooManyDenials) {
				return
			}
			if err != nil {
				rt.Fatal(err)
			}
			if def.Behavior == permission.Deny && defAsk.Behavior == permission.Deny && got.Behavior == permission.Allow {
				rt.Fatalf("default denies %s %v (%s) but auto allows it (%s)", tool.name, input, def.Reason, got.Reason)
			}
			if r := defAsk.Reason; defAsk.Behavior == permission.Ask && r != nil && got.Behavior == permission.Allow &&
				(r.Type == permission.ReasonSafetyCheck || (r.Type == permission.ReasonRule && r.Rule != nil && r.Rule.Behavior == permission.Ask)) {
				rt.Fatalf("default asks a person about %s %v (%s) but auto allows it (%s)", tool.name, input, r, got.Reason)
			}
		}
	})
}
