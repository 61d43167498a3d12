package tui

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/internal/tui/markdown"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
)

// settleAsk runs a real ask through the asker with the answer the dialog produced for keys.
func (h *harness) settleAsk(toolName, input string, keys ...string) (permission.Decision, error) {
	h.t.Helper()
	reply := h.ask(toolName, input)
	h.press(keys...)
	ans := received(h.t, reply)
	d := h.m.asks
	if len(d) != 0 {
		h.t.Errorf("the dialog is still open after its answer")
	}
	t := h.asker.lookup(toolName)
	in, err := t.Decode(json.RawMessage(input))
	if err != nil {
		h.t.Fatal(err)
	}
	var e permission.Engine
	dec, err := e.Decide(h.t.Context(), h.perms.Context(), t, in)
	if err != nil {
		h.t.Fatal(err)
	}
	return h.asker.settle(h.t.Context(), permission.AskRequest{Tool: toolName, Input: in, Decision: dec}, json.RawMessage(input), ans)
}

func TestPermissionAnswers(t *testing.T) {
	const touch = `{"command":"touch made.txt"}`
	tests := []struct {
		name    string
		keys    []string
		want    permission.Behavior
		persist []string // rules written to settings files, as "destination rule"
		session []string // session rules afterwards
		scoped  int
		msg     string
	}{
		{name: "yes", keys: []string{"enter"}, want: permission.Allow},
		{name: "always local", keys: []string{"2"}, want: permission.Allow, persist: []string{"localSettings Bash(touch made.txt)"}},
		{name: "always project", keys: []string{"tab", "2"}, want: permission.Allow, persist: []string{"projectSettings Bash(touch made.txt)"}},
		{name: "always user", keys: []string{"tab", "tab", "2"}, want: permission.Allow, persist: []string{"userSettings Bash(touch made.txt)"}},
		{name: "session", keys: []string{"3"}, want: permission.Allow, session: []string{"Bash(touch made.txt)"}},
		{name: "30 minutes", keys: []string{"4"}, want: permission.Allow, scoped: 1},
		{name: "next calls", keys: []string{"down", "down", "down", "down", "enter"}, want: permission.Allow, scoped: 1},
		{name: "no", keys: []string{"6"}, want: permission.Deny, msg: agent.RejectMessage},
		{name: "esc is no", keys: []string{"esc"}, want: permission.Deny, msg: agent.RejectMessage},
		{name: "no with feedback", keys: []string{"7", "u", "s", "e", " ", "m", "k", "t", "e", "m", "p", "enter"}, want: permission.Deny, msg: "the user said:\nuse mktemp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, 100, 30)
			d, err := h.settleAsk("Bash", touch, tt.keys...)
			if err != nil {
				t.Fatal(err)
			}
			if d.Behavior != tt.want {
				t.Fatalf("decision %s, want %s (%s)", d.Behavior, tt.want, d.Message)
			}
			if tt.msg != "" && !strings.Contains(d.Message, tt.msg) {
				t.Errorf("message %q, want it to contain %q", d.Message, tt.msg)
			}
			var persisted []string
			for _, u := range h.persist {
				for _, r := range u.Rules {
					persisted = append(persisted, u.Destination.String()+" "+r.String())
				}
			}
			if strings.Join(persisted, ";") != strings.Join(tt.persist, ";") {
				t.Errorf("persisted %q, want %q", persisted, tt.persist)
			}
			st := h.perms.State()
			var session []string
			for _, r := range st.Rules {
				session = append(session, r.Rule)
			}
			if strings.Join(session, ";") != strings.Join(tt.session, ";") {
				t.Errorf("session rules %q, want %q", session, tt.session)
			}
			if len(st.Scoped) != tt.scoped {
				t.Errorf("%d scoped approvals, want %d", len(st.Scoped), tt.scoped)
			}
		})
	}
}

// fixedAnswer answers every ask the same way.
type fixedAnswer permission.Decision

func (f fixedAnswer) Ask(context.Context, permission.AskRequest) (permission.Decision, error) {
	return permission.Decision(f), nil
}

// The person's edit is checked again: a deny rule still wins, anything else runs as edited and
// is marked as modified.
func TestEditBeforeRunning(t *testing.T) {
	deny := permission.Rule{Value: permission.ParseRule("Bash(rm:*)"), Behavior: permission.Deny, Source: permission.SourceLocal}
	t.Run("allowed edit", func(t *testing.T) {
		h := newHarness(t, 100, 30, deny)
		reply := h.ask("Bash", `{"command":"touch made.txt"}`)
		h.press("e")
		shownPrompt(h.m).text.SetValue("touch other.txt")
		h.press("enter")
		ans := received(t, reply)
		if ans.kind != ansEdited {
			t.Fatalf("answer %v, want an edit", ans.kind)
		}
		d, err := h.asker.settle(t.Context(), permission.AskRequest{Tool: "Bash"}, nil, ans)
		if err != nil {
			t.Fatal(err)
		}
		var got struct{ Command string }
		json.Unmarshal(d.UpdatedInput.(json.RawMessage), &got)
		if d.Behavior != permission.Allow || !d.UserModified || got.Command != "touch other.txt" {
			t.Errorf("got %s modified=%v input=%q; want an allow of the edited command", d.Behavior, d.UserModified, got.Command)
		}
	})
	t.Run("deny still wins", func(t *testing.T) {
		h := newHarness(t, 100, 30, deny)
		reply := h.ask("Bash", `{"command":"touch made.txt"}`)
		h.press("e")
		shownPrompt(h.m).text.SetValue("rm -rf build")
		h.press("enter")
		ans, err := h.asker.settle(t.Context(), permission.AskRequest{Tool: "Bash"}, nil, received(t, reply))
		if err != nil {
			t.Fatal(err)
		}
		// The dialog only answers; the engine decides the edited call as a new one.
		bashTool := h.asker.lookup("Bash")
		in, _ := bashTool.Decode(json.RawMessage(`{"command":"touch made.txt"}`))
		var e permission.Engine
		d, err := e.AuthorizeCall(t.Context(), h.perms.Context(), permission.Call{Tool: bashTool, Input: in, Asker: fixedAnswer(ans)})
		if err != nil {
			t.Fatal(err)
		}
		if d.Behavior != permission.Deny {
			t.Errorf("an edit into a denied command got %s", d.Behavior)
		}
	})
	t.Run("edit new_string", func(t *testing.T) {
		h := newHarness(t, 100, 30)
		reply := h.ask("Edit", `{"file_path":"/x/a.go","old_string":"a","new_string":"b"}`)
		h.press("e")
		if v := shownPrompt(h.m).text.Value(); v != "b" {
			t.Fatalf("the edit field holds %q, want the new text", v)
		}
		shownPrompt(h.m).text.SetValue("c")
		h.press("enter")
		var got map[string]any
		json.Unmarshal(received(t, reply).edited, &got)
		if got["new_string"] != "c" || got["old_string"] != "a" {
			t.Errorf("edited input %v", got)
		}
	})
}

// Only once and session are offered where the engine forbids remembering (a safety check).
func TestSafetyCheckOffersNoAlways(t *testing.T) {
	h := newHarness(t, 100, 30)
	h.ask("Write", `{"file_path":"`+h.dir+`/.git/config","content":"x"}`)
	for _, o := range h.m.asks[0].(*permissionPrompt).opts {
		if o.kind == ansAlways || o.kind == ansTimed || o.kind == ansCalls {
			t.Errorf("a safety-check ask offers %q", o.label)
		}
	}
}

func TestShiftTabCyclesThroughTheEngine(t *testing.T) {
	h := newHarness(t, 80, 24)
	var got []permission.Mode
	for range 4 {
		h.press("shift+tab")
		got = append(got, h.perms.Context().Mode())
	}
	want := []permission.Mode{permission.ModeAcceptEdits, permission.ModePlan, permission.ModeDefault, permission.ModeAcceptEdits}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("modes %v, want %v", got, want)
		}
	}
}

func TestPlanApproval(t *testing.T) {
	tests := []struct {
		keys []string
		want permission.Mode // the mode ExitPlanMode leaves plan for
		deny bool
	}{
		{keys: []string{"1"}, want: permission.ModeAcceptEdits},
		{keys: []string{"2"}, want: permission.ModeDefault},
		{keys: []string{"3", "m", "o", "r", "e", "enter"}, deny: true},
	}
	for _, tt := range tests {
		h := newHarness(t, 80, 24)
		h.m.setMode(permission.ModePlan)
		reply := h.ask("ExitPlanMode", `{"plan":"do it"}`)
		h.press(tt.keys...)
		d, err := h.asker.settle(t.Context(), permission.AskRequest{Tool: "ExitPlanMode"}, nil, received(t, reply))
		if err != nil {
			t.Fatal(err)
		}
		if tt.deny {
			if d.Behavior != permission.Deny || !strings.Contains(d.Message, "more") || h.perms.Context().Mode() != permission.ModePlan {
				t.Errorf("keep planning: %s %q in %s", d.Behavior, d.Message, h.perms.Context().Mode())
			}
			continue
		}
		pc := h.perms.Context()
		next, err := pc.ExitPlan()
		if err != nil || d.Behavior != permission.Allow || pc.Mode() != permission.ModePlan || next.Mode() != tt.want {
			t.Errorf("keys %v: %s, mode %s, leaving plan for %v (%v); want %s", tt.keys, d.Behavior, pc.Mode(), next.Mode(), err, tt.want)
		}
	}
}

func TestAskUserQuestionAnswers(t *testing.T) {
	h := newHarness(t, 80, 24)
	reply := h.ask("AskUserQuestion", `{"questions":[{"question":"Which?","header":"Pick","options":[{"label":"A","description":""},{"label":"B","description":""}]},{"question":"More?","header":"Multi","multiSelect":true,"options":[{"label":"X","description":""},{"label":"Y","description":""}]},{"question":"Name?","header":"Free","options":[{"label":"P","description":""},{"label":"Q","description":""}]}]}`)
	h.press("down", "enter")                            // B
	h.press("space", "down", "space", "enter")          // X, Y
	h.press("down", "down", "enter", "z", "o", "enter") // Other: zo
	ans := received(t, reply)
	want := map[string]string{"Which?": "B", "More?": "X, Y", "Name?": "zo"}
	for k, v := range want {
		if ans.answers[k] != v {
			t.Errorf("answer to %q = %q, want %q", k, ans.answers[k], v)
		}
	}
	d, err := h.asker.settle(t.Context(), permission.AskRequest{Tool: "AskUserQuestion"}, json.RawMessage(`{"questions":[]}`), ans)
	if err != nil || d.Behavior != permission.Allow || !strings.Contains(string(d.UpdatedInput.(json.RawMessage)), `"Name?":"zo"`) {
		t.Errorf("decision %v %v %s", d.Behavior, err, d.UpdatedInput)
	}
}

// An ask whose turn is aborted withdraws its dialog and returns the context's error.
func TestAskWithdrawnOnAbort(t *testing.T) {
	h := newHarness(t, 80, 24)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	sent := make(chan tea.Msg, 4)
	h.asker.send = func(m tea.Msg) { sent <- m }
	go func() {
		_, err := h.asker.Ask(ctx, permission.AskRequest{Tool: "Bash", Input: map[string]any{"command": "x"}})
		done <- err
	}()
	first := <-sent
	if _, ok := first.(askMsg); !ok {
		t.Fatalf("first message %T, want an ask", first)
	}
	h.send(first)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Ask returned %v, want the context's error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Ask did not return after its context ended")
	}
	h.send(<-sent)
	if len(h.m.asks) != 0 {
		t.Errorf("the dialog of an aborted ask is still open")
	}
}

func TestCtrlCTwiceQuits(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.typeText("draft")
	if _, cmd := h.m.Update(keyMsg("ctrl+c")); cmd != nil || h.m.input.Value() != "" {
		t.Fatalf("the first Ctrl+C should clear the input")
	}
	if _, cmd := h.m.Update(keyMsg("ctrl+c")); cmd != nil {
		t.Fatalf("Ctrl+C on an empty input quit at once")
	}
	if !strings.Contains(h.screen(), "Press Ctrl+C again to exit") {
		t.Errorf("no hint after the first Ctrl+C:\n%s", h.screen())
	}
	_, cmd := h.m.Update(keyMsg("ctrl+c"))
	if cmd == nil {
		t.Fatal("the second Ctrl+C did not quit")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Errorf("the second Ctrl+C returned %T, want tea.QuitMsg", cmd())
	}
}

func TestInputHistory(t *testing.T) {
	h := newHarness(t, 80, 24)
	for _, s := range []string{"/help", "/cost"} {
		h.typeText(s)
		h.press("enter")
	}
	h.typeText("dra")
	h.press("up")
	if v := h.m.input.Value(); v != "/cost" {
		t.Errorf("up: %q, want the last entry", v)
	}
	h.press("up")
	if v := h.m.input.Value(); v != "/help" {
		t.Errorf("up twice: %q", v)
	}
	h.press("down", "down")
	if v := h.m.input.Value(); v != "dra" {
		t.Errorf("down past the end: %q, want the draft back", v)
	}
	h.send(tea.PasteMsg{Content: "ft\nline two"})
	if v := h.m.input.Value(); v != "draft\nline two" {
		t.Errorf("after paste: %q", v)
	}
}

// A light terminal background switches the Markdown and the colours to their light variants.
func TestLightBackground(t *testing.T) {
	h := newHarness(t, 80, 24)
	const src = "Run `go test` **now**."
	light, dark := markdown.Render(src, 80, markdown.Light), markdown.Render(src, 80, markdown.Dark)
	if light == dark {
		t.Fatalf("the two themes render %q alike: the test could not tell them apart", src)
	}
	h.send(tea.BackgroundColorMsg{Color: lightGray})
	if got := h.m.r.markdown(src); h.m.r.st.dark || got != light {
		t.Errorf("after a light background: dark=%v, markdown %q, want %q", h.m.r.st.dark, got, light)
	}
	h.send(tea.BackgroundColorMsg{Color: black})
	if got := h.m.r.markdown(src); !h.m.r.st.dark || got != dark {
		t.Errorf("after a dark background: dark=%v, markdown %q, want %q", h.m.r.st.dark, got, dark)
	}
}

func TestAtPathCompletion(t *testing.T) {
	h := newHarness(t, 80, 24)
	for _, f := range []string{"src/main.go", "src/main_test.go", "README.md", ".git/config"} {
		p := filepath.Join(h.dir, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	h.typeText("look at @REA")
	h.press("tab")
	if v := h.m.input.Value(); v != "look at @README.md" {
		t.Errorf("one match: %q", v)
	}
	h.m.input.SetValue("see @src/m")
	h.press("tab")
	if v := h.m.input.Value(); v != "see @src/main" {
		t.Errorf("several matches complete their common prefix: %q", v)
	}
	if got := strings.Join(h.m.input.completions, " "); got != "src/main.go src/main_test.go" {
		t.Errorf("candidates %q", got)
	}
	if !strings.Contains(h.screen(), "src/main.go  src/main_test.go") {
		t.Errorf("the candidates are not shown:\n%s", h.screen())
	}
	h.m.input.SetValue("@.gi")
	h.press("tab")
	if v := h.m.input.Value(); v != "@.gi" {
		t.Errorf(".git is never offered: %q", v)
	}
}

func TestResumeSwitchesSessions(t *testing.T) {
	h := newHarness(t, 80, 24)
	old := history(4)
	h.m.cfg.Sessions = func() ([]SessionInfo, error) {
		// The empty session just started is left out of the numbering.
		return []SessionInfo{{ID: "session-0"}, {ID: "session-1", Summary: "newer"}, {ID: "older", Summary: "older"}}, nil
	}
	var asked string
	h.m.cfg.Resume = func(id string) ([]llm.Message, error) { asked = id; return old, nil }
	h.typeText("/resume 2")
	h.press("enter")
	if asked != "older" || len(h.m.msgs) != 4 || h.m.cfg.SessionID != "older" {
		t.Fatalf("resumed %q with %d messages (session %s)", asked, len(h.m.msgs), h.m.cfg.SessionID)
	}
	if s := h.screen(); !strings.Contains(s, "Resumed session older (4 messages)") || !strings.Contains(s, "Question 1") {
		t.Errorf("the resumed conversation is not shown:\n%s", s)
	}
	h.typeText("/resume 9")
	h.press("enter")
	if !strings.Contains(h.screen(), "no session 9") {
		t.Errorf("a bad number is not reported:\n%s", h.screen())
	}
}

// A message typed while a turn runs is queued and sent when the turn ends.
func TestMessagesQueueDuringATurn(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.m.running = true
	h.typeText("and also this")
	h.press("enter")
	if len(h.m.queued) != 1 || !strings.Contains(h.screen(), "1 queued") {
		t.Fatalf("queued %q; screen:\n%s", h.m.queued, h.screen())
	}
	// No provider: the queued turn fails at once, which is enough to see it start.
	h.m.cfg.Agent.Provider = nil
	_, cmd := h.m.Update(turnDoneMsg{res: &agent.Result{}})
	if cmd == nil || !h.m.running || len(h.m.queued) != 0 {
		t.Fatalf("the queued message did not start a turn (running %v, queued %q)", h.m.running, h.m.queued)
	}
	if last := h.m.entries[len(h.m.entries)-1]; last.kind != entryUser || last.text != "and also this" {
		t.Errorf("last entry %+v", last)
	}
}

// A trace longer than the screen scrolls with pgdown.
func TestDialogBodyScrolls(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.ask("Bash", `{"command":"touch a.txt && touch b.txt && touch c.txt && curl -s https://example.com"}`)
	h.press("?")
	before := h.screen()
	if !strings.Contains(before, "more lines (pgdown)") {
		t.Fatalf("the trace fits; the test needs a longer one:\n%s", before)
	}
	for range 4 { // more than needed: the offset stops at the end
		h.send(tea.KeyPressMsg{Code: tea.KeyPgDown})
	}
	after := h.screen()
	if after == before || !strings.Contains(after, "3 passthrough") {
		t.Errorf("pgdown did not scroll the trace:\n%s", after)
	}
}

// A finished assistant message is laid out at the width its text streamed at: a paragraph of
// plain words breaks where the streamed text broke.
func TestFinishedMessageKeepsStreamedWidth(t *testing.T) {
	r := &renderer{st: newStyles(true), width: 50}
	text := strings.Repeat("a ", 100)
	streamed := r.wrap(text, 2)
	finished := strings.Split(ansi.Strip(r.markdown(text)), "\n")
	for i := range streamed {
		streamed[i] = strings.TrimRight(streamed[i], " ")
	}
	if !slices.Equal(streamed, finished) {
		t.Errorf("streamed:\n%s\nfinished:\n%s", strings.Join(streamed, "\n"), strings.Join(finished, "\n"))
	}
}

// TestDialogShowsDamage: a Bash command that deletes files names how many, their size and
// the first paths in its dialog.
func TestDialogShowsDamage(t *testing.T) {
	h := newHarness(t, 100, 40)
	for _, f := range []string{"src/a.go", "src/b.go", "src/c.go"} {
		p := filepath.Join(h.dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("package x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h.ask("Bash", `{"command":"rm -rf src"}`)
	s := h.screen()
	for _, want := range []string{"It would delete or overwrite 3 files (30 B):", "• src/a.go"} {
		if !strings.Contains(s, want) {
			t.Errorf("the dialog does not show %q:\n%s", want, s)
		}
	}
}
