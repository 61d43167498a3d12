package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/audit"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
)

// TestAuditRecordsEveryCall: a session's calls, a sub-agent's included (named by the Agent
// call), are in the audit log with their decisions, the deciding rule and its file:line, and
// with OTEL_LOG_TOOL_DETAILS=1 their inputs.
func TestAuditRecordsEveryCall(t *testing.T) {
	p := newProject(t)
	p.write(t, ".reins/settings.local.json", `{"permissions": {"deny": ["Bash(rm:*)"], "allow": ["Bash(ls)"]}}`)
	p.trust(t) // the local file's allow rule waits for trust
	srv := llmtest.NewAnthropicServer(t,
		llmtest.UseTools(llmtest.Call("Agent", `{"description":"clean","prompt":"clean up","subagent_type":"general-purpose"}`)),
		llmtest.UseTools(llmtest.Call("Bash", `{"command":"rm -rf build"}`)),
		llmtest.Say("Could not."),
		llmtest.UseTools(llmtest.Call("Bash", `{"command":"ls"}`), llmtest.Call("NoSuchTool", `{}`)),
		llmtest.Say("Done."))
	p.env["ANTHROPIC_API_KEY"], p.env["ANTHROPIC_BASE_URL"] = "test-key", srv.URL
	p.env["OTEL_LOG_TOOL_DETAILS"] = "1"
	var report strings.Builder
	a, err := New(t.Context(), Options{Cwd: p.dir, Getenv: p.getenv, Report: testReporter(&report)})
	if err != nil {
		t.Fatalf("New: %v\n%s", err, report.String())
	}
	defer a.Close()
	if _, err := a.RunTurn(t.Context(), a.Session.History, llm.UserText("go")); err != nil {
		t.Fatal(err)
	}
	id := a.Session.ID
	path := AuditPath(a.Settings)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := audit.Verify(path); err != nil {
		t.Fatal(err)
	}
	var got []string
	var agentID string
	audit.Read(path, func(r audit.Record) error {
		e := r.Entry
		if e.Session != id {
			t.Errorf("entry %d of session %q, want %q", e.Seq, e.Session, id)
		}
		line := e.Kind + " " + e.Tool + " " + e.Decision + e.Stage
		if e.Rule != "" {
			line += " " + e.Rule + " " + filepath.Base(e.RuleOrigin)
		}
		if e.Parent != "" {
			line += " in " + e.Parent
		}
		if e.Tool == "Agent" {
			agentID = e.ToolUseID
		}
		if e.Tool == "Bash" && (e.Input == nil || e.InputSHA256 != audit.HashInput(e.Input)) {
			t.Errorf("entry %d: input %s, hash %s", e.Seq, e.Input, e.InputSHA256)
		}
		got = append(got, line)
		return nil
	})
	want := []string{
		"session  ",
		// Each decision is written before its call runs: the Agent call's before its
		// sub-agent's.
		"decision Agent allow",
		"decision Bash deny Bash(rm:*) settings.local.json:1:27 in " + agentID,
		"run Bash denied in " + agentID,
		"run Agent done",
		"decision Bash allow Bash(ls) settings.local.json:1:52",
		"run Bash done",
		"run NoSuchTool invalid",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestAuditOff: audit.enabled false in the user's settings writes nothing.
func TestAuditOff(t *testing.T) {
	p := newProject(t)
	writeTestFile(t, filepath.Join(p.home, ".reins", "settings.json"), `{"audit": {"enabled": false}}`)
	srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Bash", `{"command":"ls"}`)), llmtest.Say("Done."))
	p.env["ANTHROPIC_API_KEY"], p.env["ANTHROPIC_BASE_URL"] = "test-key", srv.URL
	a, err := New(t.Context(), Options{Cwd: p.dir, Getenv: p.getenv})
	if err != nil {
		t.Fatal(err)
	}
	a.RunTurn(t.Context(), a.Session.History, llm.UserText("go"))
	path := AuditPath(a.Settings)
	a.Close()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		data, _ := os.ReadFile(path)
		var e map[string]any
		json.Unmarshal(data, &e)
		t.Errorf("the log exists with audit off: %v %v", err, e)
	}
}
