package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
)

// writeTestFile writes path, making its folders.
func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// testReporter collects what a session reports, as the CLI prints it.
func testReporter(w *strings.Builder) Reporter {
	var mu sync.Mutex
	line := func(prefix string) func(string) {
		return func(m string) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(w, "%s%s\n", prefix, m)
		}
	}
	return Reporter{Warn: line("warning: "), Note: line("")}
}

func toolResults(t *testing.T, r llmtest.Request) []llm.Block {
	t.Helper()
	var body struct {
		Messages []llm.Message `json:"messages"`
	}
	if err := r.Decode(&body); err != nil {
		t.Fatal(err)
	}
	return body.Messages[len(body.Messages)-1].Content
}

// project is a temporary project with its own home, config and managed folders, so nothing
// of the machine's settings reaches the session.
type project struct {
	dir, home string
	env       map[string]string
}

func newProject(t *testing.T) *project {
	t.Helper()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	p := &project{dir: filepath.Join(root, "project"), home: filepath.Join(root, "home")}
	managed := filepath.Join(root, "managed")
	for _, d := range []string{p.dir, p.home, managed} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p.env = map[string]string{"HOME": p.home, "REINS_MANAGED_DIR": managed, "OLLAMA_HOST": "127.0.0.1:1"}
	return p
}

func (p *project) getenv(k string) string { return p.env[k] }

// trust records the project as trusted (reins trust): the allow rules, directories, defaultMode
// and hooks of its files, settings.local.json included, wait for it.
func (p *project) trust(t *testing.T) {
	t.Helper()
	if err := settings.Trust(Locations(p.getenv, p.dir).ConfigDir, "", p.dir); err != nil {
		t.Fatal(err)
	}
}

func (p *project) write(t *testing.T, rel, content string) string {
	t.Helper()
	path := filepath.Join(p.dir, rel)
	writeTestFile(t, path, content)
	return path
}

// TestNewBuildsASessionWithoutTheCLI is the proof that a test or an embedder builds a whole
// session from Options: settings with a deny rule and a hook, a scripted model, one turn with
// two tool calls. The denied call is refused with the rule's reason, the allowed one runs
// after the PreToolUse hook, the conversation is saved, and Close runs the SessionEnd hook.
func TestNewBuildsASessionWithoutTheCLI(t *testing.T) {
	p := newProject(t)
	p.write(t, "secret.txt", "do not read\n")
	notes := p.write(t, "notes.txt", "hello from notes\n")
	hookLog := filepath.Join(p.home, "hooks.log")
	p.write(t, ".reins/settings.local.json", fmt.Sprintf(`{
		"permissions": {"deny": ["Read(./secret.txt)"]},
		"hooks": {
			"PreToolUse": [{"matcher": "Read", "hooks": [{"type": "command", "command": "echo pre >> %[1]s"}]}],
			"SessionEnd": [{"hooks": [{"type": "command", "command": "echo end >> %[1]s"}]}]
		}}`, hookLog))
	srv := llmtest.NewAnthropicServer(t,
		llmtest.UseTools(
			llmtest.Call("Read", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(p.dir, "secret.txt"))),
			llmtest.Call("Read", fmt.Sprintf(`{"file_path":%q}`, notes))),
		llmtest.Say("Done."))
	p.env["ANTHROPIC_API_KEY"], p.env["ANTHROPIC_BASE_URL"] = "test-key", srv.URL
	// The project's hooks run only once it is trusted (reins trust).
	p.trust(t)

	var report strings.Builder
	a, err := New(t.Context(), Options{Cwd: p.dir, Getenv: p.getenv, Report: testReporter(&report)})
	if err != nil {
		t.Fatalf("New: %v\n%s", err, report.String())
	}
	defer a.Close()
	if a.Ext.Hooks == nil || a.Session.Recorder == nil || a.Pool == nil || a.Agent.Asker != nil {
		t.Fatalf("session: hooks %v, recorder %v, pool %v, asker %v", a.Ext.Hooks, a.Session.Recorder, a.Pool, a.Agent.Asker)
	}
	a.StartSession(t.Context())
	res, err := a.RunTurn(t.Context(), a.Session.History, llm.UserText("read both files"))
	if err != nil {
		t.Fatalf("turn: %v\n%s", err, report.String())
	}
	if res.Text != "Done." {
		t.Errorf("result %q", res.Text)
	}
	rs := toolResults(t, srv.Requests()[1])
	if len(rs) != 2 || !rs[0].IsError || !strings.Contains(rs[0].Content[0].Text, "denied by your permission settings") ||
		rs[1].IsError || !strings.Contains(rs[1].Content[0].Text, "hello from notes") {
		t.Errorf("tool results %+v", rs)
	}
	sessionFile, id := a.Session.Recorder.Path, a.Session.ID
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if log, _ := os.ReadFile(hookLog); string(log) != "pre\nend\n" {
		t.Errorf("hooks ran %q, want the PreToolUse hook for the allowed Read, then SessionEnd", log)
	}
	saved, err := os.ReadFile(sessionFile)
	if err != nil || !strings.Contains(string(saved), "hello from notes") {
		t.Errorf("the session file %s (%v) does not hold the turn", sessionFile, err)
	}

	// The saved session continues from Options alone.
	srv2 := llmtest.NewAnthropicServer(t, llmtest.Say("Again."))
	p.env["ANTHROPIC_BASE_URL"] = srv2.URL
	b, err := New(t.Context(), Options{Cwd: p.dir, Getenv: p.getenv, Resume: id})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if !b.Session.Resumed || b.Session.ID != id || len(b.Session.History) != 4 {
		t.Errorf("resumed %v, id %s (want %s), %d messages", b.Session.Resumed, b.Session.ID, id, len(b.Session.History))
	}
}

// TestNewRefuses checks that what New cannot assemble is an error naming the problem, a
// UsageError when it is in the options, and that it leaves nothing behind.
func TestNewRefuses(t *testing.T) {
	p := newProject(t)
	p.env["ANTHROPIC_API_KEY"] = "test-key"
	tests := []struct {
		name     string
		settings string
		opts     func(*Options)
		want     string
		usage    bool
	}{
		{"continue and resume", "", func(o *Options) { o.Continue, o.Resume = true, "x" }, "cannot be used together", true},
		{"negative max turns", "", func(o *Options) { o.MaxTurns = -1 }, "--max-turns", true},
		{"fork without a session", "", func(o *Options) { o.Fork = true }, "--fork-session requires", true},
		{"bad mode", "", func(o *Options) { o.Settings.Flags.Mode = "yolo" }, "yolo", true},
		{"unknown tool", "", func(o *Options) { o.Tools = []string{"Nope"} }, `unknown tool "Nope"`, true},
		{"bad schema", "", func(o *Options) { o.JSONSchema = "[" }, "--json-schema", true},
		{"unknown session", "", func(o *Options) { o.Resume = "0b0c0d0e-0000-4000-8000-000000000000" }, "--resume", false},
		{"broken deny rule", `{"permissions": {"deny": ["Bash(rm:*"]}}`, func(*Options) {}, "Bash(rm:*", false},
		{"thinking budget too small", "", func(o *Options) { n := 100; o.MaxThinkingTokens = &n }, "--max-thinking-tokens: thinking budget 100 is below the minimum", true},
		{"thinking budget not a number", "", func(o *Options) { o.Getenv = withEnv(p.getenv, "MAX_THINKING_TOKENS", "lots") }, `MAX_THINKING_TOKENS="lots" is not a whole number`, true},
		{"thinking budget over max output", "", func(o *Options) {
			o.Getenv = withEnv(withEnv(p.getenv, "MAX_THINKING_TOKENS", "4096"), "REINS_MAX_OUTPUT_TOKENS", "4000")
		}, "MAX_THINKING_TOKENS: thinking budget 4096 must be less than max tokens 4000", true},
		{"alwaysThinkingEnabled not a boolean", `{"alwaysThinkingEnabled": 1}`, func(*Options) {}, "alwaysThinkingEnabled must be true or false", false},
		{"bypass as root", "", func(o *Options) {
			o.Settings.Flags.Mode = "bypassPermissions"
			o.Geteuid = func() int { return 0 }
		}, "root", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(p.dir, ".reins", "settings.local.json")
			os.Remove(path)
			if tt.settings != "" {
				p.write(t, ".reins/settings.local.json", tt.settings)
			}
			// Without persistence the results go to a temporary folder, which a failed New removes.
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			o := Options{Cwd: p.dir, Getenv: p.getenv, NoPersist: true}
			tt.opts(&o)
			a, err := New(context.Background(), o)
			if err == nil {
				a.Close()
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
			if _, usage := errors.AsType[*UsageError](err); usage != tt.usage {
				t.Errorf("%v: usage error %v, want %v", err, usage, tt.usage)
			}
			if left := leftIn(t, tmp); len(left) > 0 {
				t.Errorf("New left %v in the temporary folder", left)
			}
		})
	}
}

// TestAskersFollowTheFrontEnd checks who answers an ask: denied headless, the front end's
// asker once set (behind WithHooks), and a foreground sub-agent's ask goes to whatever
// answers the main agent's at that moment.
func TestAskersFollowTheFrontEnd(t *testing.T) {
	p := newProject(t)
	p.env["ANTHROPIC_API_KEY"] = "test-key"
	a, err := New(t.Context(), Options{Cwd: p.dir, Getenv: p.getenv, NoPersist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	req := permission.AskRequest{Decision: permission.Decision{Behavior: permission.Ask, Message: "may I?"}}
	parent := parentAsker{a}
	if d, _ := parent.Ask(t.Context(), req); d.Behavior != permission.Deny || d.Message != "may I?" {
		t.Errorf("headless: %+v", d)
	}
	a.Agent.Asker = a.WithHooks(askerFunc(func() permission.Decision { return permission.Decision{Behavior: permission.Allow} }))
	if d, _ := parent.Ask(t.Context(), req); d.Behavior != permission.Allow {
		t.Errorf("with the front end's asker: %+v", d)
	}
}

type askerFunc func() permission.Decision

func (f askerFunc) Ask(context.Context, permission.AskRequest) (permission.Decision, error) {
	return f(), nil
}

// leftIn lists what is in dir, where the sandbox's shared folder of this user (reins-<uid>,
// which outlives sessions by design) counts only for what it holds.
func leftIn(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() == fmt.Sprintf("reins-%d", os.Getuid()) {
			inner, _ := os.ReadDir(filepath.Join(dir, e.Name()))
			for _, i := range inner {
				out = append(out, filepath.Join(e.Name(), i.Name()))
			}
			continue
		}
		out = append(out, e.Name())
	}
	return out
}
