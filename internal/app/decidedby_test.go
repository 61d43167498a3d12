package app

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/reinsdev/reins/audit"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
)

// The audit log's decision entries say who decided: a PreToolUse hook with its file:line:col,
// the denyInsteadOfPrompting setting with its own, as the engine derived them.
func TestAuditSaysWhoDecided(t *testing.T) {
	p := newProject(t)
	user := Locations(p.getenv, p.dir).ConfigDir + "/settings.json"
	writeTestFile(t, user, `{"permissions": {"denyInsteadOfPrompting": true},
"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo no >&2; exit 2"}]}]}}`)
	srv := llmtest.NewAnthropicServer(t,
		llmtest.UseTools(llmtest.Call("Bash", `{"command":"ls"}`), llmtest.Call("Write", `{"file_path":"/elsewhere/x.txt","content":"x"}`)),
		llmtest.Say("Done."))
	p.env["ANTHROPIC_API_KEY"], p.env["ANTHROPIC_BASE_URL"] = "test-key", srv.URL
	a, err := New(t.Context(), Options{Cwd: p.dir, Getenv: p.getenv})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.RunTurn(t.Context(), a.Session.History, llm.UserText("go")); err != nil {
		t.Fatal(err)
	}
	path := AuditPath(a.Settings)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	var got []string
	audit.Read(path, func(r audit.Record) error {
		if r.Entry.Kind == audit.KindDecision {
			b, _ := json.Marshal(r.Entry)
			got = append(got, string(b))
		}
		return nil
	})
	norm := regexp.MustCompile(`"(seq|prev|time|session|toolUseId)":("[^"]*"|\d+),|,"inputSha256":"[^"]*"`)
	for i := range got {
		got[i] = strings.ReplaceAll(norm.ReplaceAllString(got[i], ""), user, "USER")
	}
	if len(got) != 2 {
		t.Fatalf("decision entries %q", got)
	}
	const hookLine = `{"kind":"decision","tool":"Bash","mode":"default","decision":"deny","reason":"hook: echo no \u003e\u00262; exit 2 (USER:2:56): no",` +
		`"decidedBy":"hook","hook":"echo no \u003e\u00262; exit 2 (USER:2:56)"}`
	const settingLine = `{"kind":"decision","tool":"Write","mode":"default","decision":"deny",` +
		`"reason":"workingDir: outside the working directories","decidedBy":"setting","setting":"permissions.denyInsteadOfPrompting (USER:1:44)"}`
	if got[0] != hookLine {
		t.Errorf("the hook's entry\n got %s\nwant %s", got[0], hookLine)
	}
	if got[1] != settingLine {
		t.Errorf("the setting's entry\n got %s\nwant %s", got[1], settingLine)
	}
}
