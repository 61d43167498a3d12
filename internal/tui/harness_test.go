package tui

import (
	"context"
	"encoding/json"
	"flag"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tools"
	"github.com/reinsdev/reins/tools/bash"
)

var update = flag.Bool("update", false, "rewrite the golden screens in testdata/screens")

// epoch is the fixed clock of the screen tests.
var epoch = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// harness is a model with real tools and a real engine, driven through its messages.
type harness struct {
	t       *testing.T
	m       *Model
	dir     string
	perms   *agent.Permissions
	asker   *asker
	sent    []tea.Msg
	persist []permission.Update
	now     time.Time
}

func newHarness(t *testing.T, width, height int, rules ...permission.Rule) *harness {
	t.Helper()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	dir := filepath.Join(root, "project")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	pc, err := permission.New(permission.Config{Cwd: dir, Home: filepath.Join(root, "home"), Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, dir: dir, now: epoch}
	h.perms = agent.NewPermissions(pc, func(_ context.Context, ups []permission.Update) error {
		h.persist = append(h.persist, ups...)
		return nil
	})
	h.perms.SetClock(func() time.Time { return h.now })
	sh := bash.New(bash.Options{Permissions: h.perms.Context})
	t.Cleanup(func() { sh.Close() })
	ts := tools.Base(tools.Options{Shell: sh, NoRipgrep: true, Getenv: func(string) string { return "" }}).Tools
	cfg := &Config{
		Agent:     &agent.Agent{Model: "claude-test", Tools: ts, Permissions: h.perms, Bus: &agent.Bus{}},
		SessionID: "session-1",
		Provider:  "anthropic",
		Cwd:       dir,
		Home:      filepath.Join(root, "home"),
		SettingsFiles: map[permission.Source]string{
			permission.SourceLocal:   filepath.Join(dir, ".reins", "settings.local.json"),
			permission.SourceProject: filepath.Join(dir, ".reins", "settings.json"),
			permission.SourceUser:    filepath.Join(root, "home", ".reins", "settings.json"),
		},
		NoColor: true,
		Now:     func() time.Time { return h.now },
	}
	h.m = newModel(t.Context(), cfg)
	h.asker = &asker{send: func(m tea.Msg) { h.sent = append(h.sent, m) }, perms: h.perms, lookup: toolLookup(ts), now: cfg.Now, ignored: cfg.ignored}
	h.send(tea.WindowSizeMsg{Width: width, Height: height})
	return h
}

// shownPrompt is the prompt shown, for the tests that reach into its text field.
func shownPrompt(m *Model) *prompt {
	switch a := m.asks[0].(type) {
	case *permissionPrompt:
		return &a.prompt
	case *planApproval:
		return &a.prompt
	case *questionPrompt:
		return &a.prompt
	}
	return nil
}

func (h *harness) send(msgs ...tea.Msg) {
	for _, m := range msgs {
		h.m.Update(m)
	}
}

// press sends keys by name: "enter", "esc", "shift+tab", "up", "down", "tab", "space", or
// text typed as is.
func (h *harness) press(keys ...string) {
	for _, k := range keys {
		h.send(keyMsg(k))
	}
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "ctrl+o":
		return tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	}
	r := []rune(k)
	return tea.KeyPressMsg{Code: r[0], Text: k}
}

func (h *harness) typeText(s string) {
	for _, r := range s {
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// ask puts a real engine decision for the call into the program, as the asker does, and
// returns the channel the answer arrives on.
func (h *harness) ask(toolName, input string) chan answer {
	h.t.Helper()
	t := h.asker.lookup(toolName)
	var in any = map[string]any{}
	var d permission.Decision
	if t != nil {
		var err error
		if in, err = t.Decode(json.RawMessage(input)); err != nil {
			h.t.Fatal(err)
		}
		var e permission.Engine
		if d, err = e.Decide(h.t.Context(), h.perms.Context(), t, in); err != nil {
			h.t.Fatal(err)
		}
	} else {
		json.Unmarshal([]byte(input), &in)
		d = permission.Decision{Behavior: permission.Ask, Message: permission.RequestMessage(toolName)}
	}
	req := permission.AskRequest{Tool: toolName, Input: in, Decision: d}
	reply := make(chan answer, 1)
	h.send(h.asker.message(h.t.Context(), 1, req, json.RawMessage(input), reply))
	return reply
}

// screen is the frame as plain text, with the temporary folder replaced by $ROOT.
func (h *harness) screen() string {
	s := ansi.Strip(h.m.render())
	s = strings.ReplaceAll(s, filepath.Dir(h.dir), "$ROOT")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

func (h *harness) golden(name string) {
	h.t.Helper()
	got := h.screen()
	if n := strings.Count(got, "\n"); n != h.m.height {
		h.t.Errorf("%s: the frame has %d lines, want the terminal's %d", name, n, h.m.height)
	}
	for i, l := range strings.Split(got, "\n") {
		if w := ansi.StringWidth(l); w > h.m.width {
			h.t.Errorf("%s: line %d is %d columns wide, more than the terminal's %d: %q", name, i+1, w, h.m.width, l)
		}
	}
	path := filepath.Join("testdata", "screens", name+".golden")
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			h.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		h.t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		h.t.Errorf("%s screen mismatch (-want +got):\n%s\ngot:\n%s", name, diff, got)
	}
}

// received returns the answer sent on reply, failing when there is none.
func received(t *testing.T, reply chan answer) answer {
	t.Helper()
	select {
	case a := <-reply:
		return a
	default:
		t.Fatal("the dialog sent no answer")
	}
	return answer{}
}

var (
	lightGray = color.RGBA{R: 0xee, G: 0xee, B: 0xee, A: 0xff}
	black     = color.RGBA{A: 0xff}
)
