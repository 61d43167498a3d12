package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/reinsdev/reins/audit"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/session"
	"github.com/reinsdev/reins/settings"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools"
)

// tb is what the helpers need of a *testing.T or a *rapid.T.
type tb interface {
	Helper()
	Fatal(args ...any)
}

// project is a home, a managed folder and a project folder with a local settings file.
type project struct {
	opts settings.Options
}

func newProject(t tb, dir string) *project {
	t.Helper()
	dir, _ = filepath.EvalSymlinks(dir)
	p := &project{opts: settings.Options{Cwd: filepath.Join(dir, "proj"), Home: filepath.Join(dir, "home"), ManagedDir: filepath.Join(dir, "managed")}}
	for _, d := range []string{p.opts.Cwd, p.opts.Home, p.opts.ManagedDir, filepath.Join(p.opts.Cwd, ".reins")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// context builds the permission context from the local settings doc plus proposed documents.
func (p *project) context(t tb, local string, proposed ...settings.Bundle) *permission.Context {
	t.Helper()
	if err := os.WriteFile(filepath.Join(p.opts.Cwd, ".reins", "settings.local.json"), []byte(local), 0o644); err != nil {
		t.Fatal(err)
	}
	o := p.opts
	o.Bundles = proposed
	l, err := settings.Load(o)
	if err != nil {
		t.Fatal(err)
	}
	// Trusted: the local file's allow rules wait for the project's trust.
	pc, _, err := l.Build(settings.Flags{Trusted: true})
	if err != nil {
		t.Fatal(err)
	}
	return pc
}

var builtins = sync1()

// sync1 builds the built-in tools once for the package's tests; their shell runs nothing here.
func sync1() func(t testing.TB) Lookup {
	var b *tools.Builtins
	return func(t testing.TB) Lookup {
		if b == nil {
			b = tools.Base(tools.Options{NoRipgrep: true})
		}
		return func(name string) tool.Tool {
			t, _ := tools.Find(b.Tools, name)
			return t
		}
	}
}

func call(toolName, input string) Call {
	return Call{Session: "s", ToolUseID: "toolu_" + toolName, Tool: toolName, Input: json.RawMessage(input), From: "session"}
}

func TestRunReportsWhatChanges(t *testing.T) {
	p := newProject(t, t.TempDir())
	local := `{"permissions": {"allow": ["Bash(rm:*)", "Bash(ls)"]}}`
	proposed := settings.Bundle{Name: "/org/proposed.json", Data: []byte("{\n \"permissions\": {\"deny\": [\"Bash(rm:*)\"], \"allow\": [\"Bash(make:*)\"]}\n}")}
	calls := []Call{
		call("Bash", `{"command":"ls"}`),
		call("Bash", `{"command":"rm -rf build"}`),
		call("Bash", `{"command":"make test"}`),
		call("Nope", `{}`),
		call("Bash", `{"command":3}`),
	}
	r, err := Run(context.Background(), calls, p.context(t, local), p.context(t, local, proposed), builtins(t))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range r.Changes {
		got[string(c.Call.Input)] = fmt.Sprintf("%s→%s %s %s %s", c.Before.Behavior, c.After.Behavior, c.After.Rule, c.After.Source, c.After.Origin)
	}
	want := map[string]string{
		`{"command":"rm -rf build"}`: "allow→deny Bash(rm:*) policySettings /org/proposed.json:2:27",
		`{"command":"make test"}`:    "ask→allow Bash(make:*) policySettings /org/proposed.json:2:52",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("changes:\n got %v\nwant %v", got, want)
	}
	if r.Calls != 5 || r.Skipped["tool not available offline: Nope"] != 1 || r.Skipped["input no longer valid for Bash"] != 1 {
		t.Errorf("calls %d, skipped %v", r.Calls, r.Skipped)
	}
}

// TestReplayUnderItsOwnSettingsChangesNothing: proposing the settings a session already runs
// under (or an empty document) changes no decision, whatever the rules and the calls.
func TestReplayUnderItsOwnSettingsChangesNothing(t *testing.T) {
	lookup := builtins(t)
	rapid.Check(t, func(rt *rapid.T) {
		dir, err := os.MkdirTemp("", "replayprop")
		if err != nil {
			rt.Fatal(err)
		}
		defer os.RemoveAll(dir)
		p := newProject(rt, dir)
		ruleGen := rapid.SampledFrom([]string{"Bash", "Bash(ls)", "Bash(rm:*)", "Bash(git push:*)", "Read", "Read(**/*.env)",
			"Read(./src/**)", "Edit(/src/**)", "Read(/src/**)", "Edit", "WebFetch(domain:example.com)", "Write(/tmp/**)"})
		lists := map[string][]string{}
		for _, b := range []string{"allow", "ask", "deny"} {
			lists[b] = rapid.SliceOfN(ruleGen, 0, 4).Draw(rt, b)
		}
		doc, _ := json.Marshal(map[string]any{"permissions": lists})
		cmdGen := rapid.SampledFrom([]string{"ls", "rm -rf build", "git push origin main", "cat .env", "echo hi > out.txt", "make"})
		pathGen := rapid.SampledFrom([]string{"src/main.go", ".env", "README.md", "/etc/passwd", "/tmp/x"})
		var calls []Call
		for range rapid.IntRange(1, 8).Draw(rt, "calls") {
			switch rapid.IntRange(0, 3).Draw(rt, "tool") {
			case 0:
				calls = append(calls, call("Bash", fmt.Sprintf(`{"command":%q}`, cmdGen.Draw(rt, "cmd"))))
			case 1:
				calls = append(calls, call("Read", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(p.opts.Cwd, pathGen.Draw(rt, "path")))))
			case 2:
				calls = append(calls, call("Edit", fmt.Sprintf(`{"file_path":%q,"old_string":"a","new_string":"b"}`, filepath.Join(p.opts.Cwd, pathGen.Draw(rt, "path")))))
			case 3:
				calls = append(calls, call("WebFetch", `{"url":"https://example.com/x","prompt":"p"}`))
			}
		}
		before := p.context(rt, string(doc))
		// The session's own settings proposed again, nothing proposed, and the session's rules
		// moved from its file into the proposal: the last would show a proposal read
		// differently from the file it copies (anchored elsewhere, a rule dropped).
		for _, v := range []struct{ local, proposed string }{{string(doc), string(doc)}, {string(doc), "{}"}, {"{}", string(doc)}} {
			after := p.context(rt, v.local, settings.Bundle{Name: "proposed.json", Data: []byte(v.proposed)})
			r, err := Run(context.Background(), calls, before, after, lookup)
			if err != nil {
				rt.Fatal(err)
			}
			if len(r.Changes) > 0 {
				rt.Fatalf("settings %s with %s proposed changed %+v", v.local, v.proposed, r.Changes)
			}
		}
	})
}

func TestSessionCalls(t *testing.T) {
	dir := t.TempDir()
	store := session.NewStore(dir)
	cwd := filepath.Join(dir, "proj")
	w, err := store.Create(cwd, "m")
	if err != nil {
		t.Fatal(err)
	}
	w.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("x"), llm.ToolUse("toolu_1", "Bash", json.RawMessage(`{"command":"ls"}`))}})
	w.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.ToolUse("toolu_2", "Read", json.RawMessage(`{"file_path":"/x"}`))}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// A torn last line, as a crash leaves it, is not a call and not an error.
	files, _ := filepath.Glob(filepath.Join(store.Dir(cwd), "*.jsonl"))
	f, _ := os.OpenFile(files[0], os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"message","message":{"role":"assistant","content":[{"type":"tool_use"`)
	f.Close()

	calls, skipped, err := SessionCalls(context.Background(), store.Dir(cwd), time.Time{})
	if err != nil || len(skipped) > 0 {
		t.Fatal(err, skipped)
	}
	if len(calls) != 2 || calls[0].ToolUseID != "toolu_1" || calls[1].Tool != "Read" || calls[0].Session == "" {
		t.Errorf("calls = %+v", calls)
	}
	if calls, _, _ := SessionCalls(context.Background(), store.Dir(cwd), time.Now().Add(time.Hour)); len(calls) != 0 {
		t.Errorf("calls after --since in the future: %+v", calls)
	}
	if calls, _, err := SessionCalls(context.Background(), filepath.Join(dir, "none"), time.Time{}); err != nil || calls != nil {
		t.Errorf("a project without sessions: %v, %v", calls, err)
	}
}

func TestAuditCalls(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := audit.Open(audit.Options{Path: path, LogInputs: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []struct {
		e   audit.Entry
		raw string
	}{
		{audit.Entry{Kind: audit.KindSession, Session: "a", Cwd: "/proj"}, ""},
		{audit.Entry{Kind: audit.KindSession, Session: "b", Cwd: "/other"}, ""},
		{audit.Entry{Kind: audit.KindDecision, Session: "a", Tool: "Bash", ToolUseID: "t1", Decision: "allow"}, `{"command":"ls"}`},
		{audit.Entry{Kind: audit.KindDecision, Session: "a", Tool: "Bash", ToolUseID: "t2", Decision: "allow"}, `{"command":"pwd"}`},
		{audit.Entry{Kind: audit.KindDecision, Session: "b", Tool: "Bash", ToolUseID: "t3", Decision: "allow"}, `{"command":"id"}`},
		{audit.Entry{Kind: audit.KindRun, Session: "a", Tool: "Bash", ToolUseID: "t1"}, `{"command":"ls"}`},
	} {
		if err := l.Append(e.e, json.RawMessage(e.raw)); err != nil {
			t.Fatal(err)
		}
	}
	calls, err := AuditCalls(path, "/proj", time.Time{}, map[string]bool{"t2": true})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || calls[0].ToolUseID != "t1" || !strings.Contains(string(calls[0].Input), "ls") || calls[0].From != "audit" {
		t.Errorf("calls = %+v", calls)
	}
}
