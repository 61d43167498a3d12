package permission

import (
	"context"
	"errors"
	"testing"
)

// answerAsker answers every ask with d.
type answerAsker struct{ d Decision }

func (a answerAsker) Ask(context.Context, AskRequest) (Decision, error) { return a.d, nil }

type verdictClassifier struct {
	v   Verdict
	err error
}

func (c verdictClassifier) Classify(context.Context, ClassifyRequest) (Verdict, error) {
	return c.v, c.err
}

// Every decision the engine returns says who decided: a rule (which, from which file:line:col),
// a person (through which front end), a hook (which, configured where), the classifier, a
// mode, a setting, the tool's own check, or no one; with the signed policy's version.
func TestDecidedBy(t *testing.T) {
	denyRule := Rule{Value: ParseRule("X"), Behavior: Deny, Source: SourceProject, Origin: Origin{File: "/p/.claude/settings.json", Line: 4, Col: 9}}
	allowRule := Rule{Value: ParseRule("X"), Behavior: Allow, Source: SourceUser, Origin: Origin{File: "/h/.reins/settings.json", Line: 2, Col: 3}}
	person := func(b Behavior, front string) Asker {
		return answerAsker{Decision{Behavior: b, Reason: &Reason{Type: ReasonOther, Detail: "answered", Answerer: front}}}
	}
	tests := []struct {
		name  string
		mode  Mode
		rules []Rule
		tool  fakeTool
		hook  *HookVerdict
		asker Asker
		cls   Classifier
		fence Fences
		want  DecidedBy
	}{
		{name: "deny rule", rules: []Rule{denyRule}, tool: fakeTool{name: "X", decision: pass},
			want: DecidedBy{Kind: DecidedByRule, Rule: "X", RuleSource: "projectSettings", RuleOrigin: "/p/.claude/settings.json:4:9"}},
		{name: "allow rule", rules: []Rule{allowRule}, tool: fakeTool{name: "X", decision: pass},
			want: DecidedBy{Kind: DecidedByRule, Rule: "X", RuleSource: "userSettings", RuleOrigin: "/h/.reins/settings.json:2:3"}},
		{name: "person in the chat", tool: fakeTool{name: "X", decision: pass}, asker: person(Allow, FrontEndChat),
			want: DecidedBy{Kind: DecidedByPerson, FrontEnd: "chat"}},
		{name: "person through the SDK", tool: fakeTool{name: "X", decision: pass}, asker: person(Deny, FrontEndSDK),
			want: DecidedBy{Kind: DecidedByPerson, FrontEnd: "sdk canUseTool"}},
		{name: "permission prompt tool", tool: fakeTool{name: "X", decision: pass}, asker: person(Allow, PromptToolFrontEnd("mcp__auth__ok")),
			want: DecidedBy{Kind: DecidedByPerson, FrontEnd: "permission prompt tool mcp__auth__ok"}},
		{name: "MCP elicitation", tool: fakeTool{name: "X", decision: pass}, asker: person(Deny, FrontEndMCPElicitation),
			want: DecidedBy{Kind: DecidedByPerson, FrontEnd: "MCP elicitation"}},
		{name: "PreToolUse hook", tool: fakeTool{name: "X", decision: pass}, hook: &HookVerdict{Behavior: Deny, Reason: "no", Hooks: "check.sh (/p/.claude/settings.json:7:11)"},
			want: DecidedBy{Kind: DecidedByHook, Hook: "check.sh (/p/.claude/settings.json:7:11)"}},
		{name: "PermissionRequest hook", tool: fakeTool{name: "X", decision: pass},
			asker: answerAsker{Decision{Behavior: Allow, Reason: &Reason{Type: ReasonHook, Detail: "PermissionRequest hook http https://h/x (/u/settings.json:3:4)"}}},
			want:  DecidedBy{Kind: DecidedByHook, Hook: "PermissionRequest hook http https://h/x (/u/settings.json:3:4)"}},
		{name: "classifier", mode: ModeAuto, tool: fakeTool{name: "Bash", decision: pass}, cls: verdictClassifier{v: Verdict{Block: true, Reason: "exfiltration"}},
			want: DecidedBy{Kind: DecidedByClassifier}},
		{name: "classifier outage", mode: ModeAuto, tool: fakeTool{name: "Bash", decision: pass}, cls: verdictClassifier{err: errors.New("down")},
			want: DecidedBy{Kind: DecidedByClassifier}},
		{name: "bypass mode", mode: ModeBypass, tool: fakeTool{name: "X", decision: plainAsk}, want: DecidedBy{Kind: DecidedByMode, Mode: ModeBypass}},
		{name: "dontAsk mode", mode: ModeDontAsk, tool: fakeTool{name: "X", decision: pass}, want: DecidedBy{Kind: DecidedByMode, Mode: ModeDontAsk}},
		{name: "denyInsteadOfPrompting", tool: fakeTool{name: "X", decision: plainAsk}, asker: person(Allow, FrontEndChat),
			fence: Fences{DenyInsteadOfPrompting: "/etc/reins/managed-settings.json:2:5"},
			want:  DecidedBy{Kind: DecidedBySetting, Setting: "permissions.denyInsteadOfPrompting (/etc/reins/managed-settings.json:2:5)"}},
		{name: "the tool's check", tool: fakeTool{name: "X", decision: Decision{Behavior: Allow, Reason: &Reason{Type: ReasonWorkingDir}}},
			want: DecidedBy{Kind: DecidedByCheck}},
		{name: "no one to ask", tool: fakeTool{name: "X", decision: plainAsk}, want: DecidedBy{Kind: DecidedByNoOne}},
		{name: "an asker with no one behind it", tool: fakeTool{name: "X", decision: plainAsk},
			asker: answerAsker{Decision{Behavior: Deny, Reason: &Reason{Type: ReasonWorkingDir}}}, want: DecidedBy{Kind: DecidedByNoOne}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pc := mustNew(t, Config{Mode: tt.mode, BypassAvailable: tt.mode == ModeBypass, AutoAvailable: tt.mode == ModeAuto, Rules: tt.rules, Fences: tt.fence})
			e := Engine{Classifier: tt.cls, PolicyVersion: "17"}
			d, err := e.AuthorizeCall(context.Background(), pc, Call{Tool: tt.tool, Hook: tt.hook, Asker: tt.asker})
			if err != nil {
				t.Fatal(err)
			}
			if d.By == nil {
				t.Fatal("the decision does not say who decided")
			}
			got := *d.By
			got.Detail = ""
			want := tt.want
			want.PolicyVersion = "17"
			if got != want {
				t.Errorf("decided by %+v, want %+v", got, want)
			}
		})
	}
}
