package tui

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/llm"
)

// ignoredFixture is an untrusted project's unread allow list, an invalid rule and an allow
// rule a deny rule shadows, as the settings report and the rules give them.
func ignoredFixture(dir string) []IgnoredRule {
	shared := filepath.Join(dir, ".claude", "settings.json")
	return []IgnoredRule{
		{List: "allow", Where: shared + ":3:14", Why: IgnoredUntrusted, Reason: "project allow rules apply only in a trusted project and are read once it is", Count: 2},
		{List: "deny", Value: "Bash(rm:*", Where: filepath.Join(dir, ".claude", "settings.local.json") + ":4:7", Why: IgnoredInvalid, Reason: "unbalanced parenthesis"},
		{List: "allow", Value: "Bash(git push:*)", Where: filepath.Join(dir, ".reins", "settings.json") + ":5:9", Why: IgnoredShadowed, Reason: "deny Bash(git:*) (user) always wins"},
	}
}

// /permissions names every ignored rule with its file:line and why; without Ignored there is
// no such section.
func TestPermissionsNamesIgnoredRules(t *testing.T) {
	h := newHarness(t, 130, 24)
	h.m.cfg.Ignored = func() []IgnoredRule { return ignoredFixture(h.dir) }
	h.typeText("/permissions")
	h.press("enter")
	got := h.screen()
	for _, want := range []string{
		"Ignored rules:",
		"2 allow entries not read  .claude/settings.json:3:14  untrusted: project allow rules apply only in a trusted project",
		"deny Bash(rm:*  .claude/settings.local.json:4:7  invalid: unbalanced parenthesis",
		"allow Bash(git push:*)  .reins/settings.json:5:9  shadowed: deny Bash(git:*) (user) always wins",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("/permissions does not say %q:\n%s", want, got)
		}
	}
	h.golden("permissions-ignored")

	h = newHarness(t, 100, 24)
	h.typeText("/permissions")
	h.press("enter")
	if strings.Contains(h.screen(), "Ignored rules") {
		t.Errorf("an ignored-rules section with nothing ignored:\n%s", h.screen())
	}
}

// The "?" view of a dialog names the ignored rules that could have decided the call: the
// unread list always (nobody knows what it holds), the rules of the same tool, and not those
// of another tool.
func TestTraceNamesIgnoredRules(t *testing.T) {
	h := newHarness(t, 100, 40)
	h.m.cfg.Ignored = func() []IgnoredRule { return ignoredFixture(h.dir) }
	h.ask("Bash", `{"command":"git push origin main"}`)
	if got := h.screen(); strings.Contains(got, "Ignored rules") {
		t.Errorf("the ignored rules show before ?:\n%s", got)
	}
	h.press("?")
	got := h.screen()
	for _, want := range []string{
		"Ignored rules that could have decided this call:",
		"2 allow entries in .claude/settings.json:3:14 not read: the folder is not trusted",
		"allow Bash(git push:*)",
		"deny Bash(rm:*",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the trace does not say %q:\n%s", want, got)
		}
	}
	h.golden("dialog-bash-trace-ignored")

	h = newHarness(t, 100, 40)
	h.m.cfg.Ignored = func() []IgnoredRule { return ignoredFixture(h.dir) }
	h.ask("Write", `{"file_path":"/elsewhere/x.txt","content":"x"}`)
	h.press("?")
	got = h.screen()
	if !strings.Contains(got, "2 allow entries in .claude/settings.json:3:14 not read") {
		t.Errorf("the unread list is not named for a Write:\n%s", got)
	}
	if strings.Contains(got, "Bash(") {
		t.Errorf("Bash rules named for a Write:\n%s", got)
	}
}

func TestIgnoredForCall(t *testing.T) {
	igs := []IgnoredRule{
		{List: "allow", Value: "Read(./src/**)", Where: "s.json:1:1", Why: IgnoredShadowed},
		{List: "additionalDirectories", Value: "Read", Where: "s.json:2:1", Why: "missing"},
		{List: "additionalDirectories", Where: "s.json:3:1", Why: IgnoredUntrusted, Count: 1},
		{List: "allow", Value: "Task", Where: "s.json:4:1", Why: IgnoredInvalid},
	}
	for _, tc := range []struct {
		tool string
		want int
	}{
		{"Read", 2},  // the Read rule and the unread directories, not a directory named Read
		{"Agent", 2}, // Task is the Agent tool's old name
		{"Bash", 1},
	} {
		if got := ignoredForCall(igs, tc.tool); len(got) != tc.want {
			t.Errorf("%s: %d ignored rules, want %d: %q", tc.tool, len(got), tc.want, got)
		}
	}
}

func TestAgentsCommand(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.m.cfg.Agents = func() []AgentInfo {
		return []AgentInfo{
			{Name: "Explore", Source: "builtin", Description: "Fast agent specialized for exploring codebases. Use this when you need to quickly find files by patterns."},
			{Name: "reviewer", Source: "project", File: filepath.Join(h.dir, ".claude", "agents", "reviewer.md"), Description: "Reviews a diff"},
		}
	}
	h.typeText("/agents")
	h.press("enter")
	got := h.screen()
	for _, want := range []string{"Explore (builtin)", "reviewer (project, .claude/agents/reviewer.md)", "Reviews a diff"} {
		if !strings.Contains(got, want) {
			t.Errorf("/agents does not say %q:\n%s", want, got)
		}
	}
	h.golden("agents")
}

// /mcp is a menu of the servers with their state, reason and tools; a server's own menu lists
// its tools and offers Reconnect and Turn off. /mcp reconnect NAME runs Reconnect off the UI's
// goroutine, holds what is typed meanwhile, and says what became of the server.
func TestMCPCommand(t *testing.T) {
	h := newHarness(t, 100, 24)
	state := map[string]string{"docs": "connected", "db": "failed"}
	h.m.cfg.MCP = func() []MCPServerInfo {
		docs := MCPServerInfo{Name: "docs", Scope: "project", Type: "stdio", State: state["docs"], Tools: []string{"mcp__docs__search", "mcp__docs__fetch"}}
		db := MCPServerInfo{Name: "db", Scope: "user", Type: "http", State: state["db"]}
		if state["db"] == "failed" {
			db.Reason = "connecting: connection refused"
		} else {
			db.Tools = []string{"mcp__db__query"}
		}
		return []MCPServerInfo{db, docs}
	}
	var reconnected []string
	h.m.cfg.Reconnect = func(_ context.Context, name string) error {
		reconnected = append(reconnected, name)
		if name != "db" {
			return errors.New("no MCP server \"" + name + "\"")
		}
		state["db"] = "connected"
		return nil
	}
	var turnedOff []string
	h.m.cfg.SetMCPEnabled = func(_ context.Context, name string, on bool) error {
		turnedOff = append(turnedOff, name)
		return nil
	}
	h.typeText("/mcp")
	h.press("enter")
	got := h.screen()
	for _, want := range []string{"MCP servers", "db  failed: connecting: connection refused · user, http", "docs  connected · 2 tools · project, stdio"} {
		if !strings.Contains(got, want) {
			t.Errorf("/mcp does not say %q:\n%s", want, got)
		}
	}
	h.golden("mcp-servers")
	h.press("down", "enter")
	got = h.screen()
	for _, want := range []string{"MCP server docs", "Tools (2, mcp__docs__…): search, fetch", "1. Reconnect", "2. Turn off", "3. Back"} {
		if !strings.Contains(got, want) {
			t.Errorf("the server's menu does not say %q:\n%s", want, got)
		}
	}
	h.golden("mcp-server")
	off := h.m.overlayUpdate(h.m.picker, keyMsg("2"))
	if off == nil || h.m.picker != nil || !h.m.running {
		t.Fatal("Turn off did not start off the UI's goroutine")
	}
	h.send(off())
	if !slices.Equal(turnedOff, []string{"docs"}) || !strings.Contains(h.screen(), "MCP server docs turned off for this session.") {
		t.Errorf("turned off %q:\n%s", turnedOff, h.screen())
	}

	cmd := h.m.slash("/mcp reconnect db")
	if cmd == nil || len(reconnected) != 0 {
		t.Fatalf("reconnect ran on the UI's goroutine, or not at all (%q)", reconnected)
	}
	h.typeText("hello")
	h.press("enter")
	if len(h.m.queued) != 1 {
		t.Errorf("a message typed while reconnecting was not held: queued %q", h.m.queued)
	}
	h.m.queued = nil // no agent behind the harness to send it to
	h.send(cmd())
	if !slices.Equal(reconnected, []string{"db"}) || h.m.running {
		t.Errorf("reconnected %q, running %v", reconnected, h.m.running)
	}
	if got := h.screen(); !strings.Contains(got, "MCP server db reconnected. Now: connected · 1 tool · user, http.") {
		t.Errorf("the reconnect's outcome is not shown:\n%s", got)
	}
	h.send(h.m.slash("/mcp reconnect nope")())
	if got := h.screen(); !strings.Contains(got, `no MCP server "nope"`) {
		t.Errorf("a failed reconnect is not shown:\n%s", got)
	}
	for _, bad := range []string{"/mcp restart db", "/mcp reconnect"} {
		if cmd := h.m.slash(bad); cmd != nil {
			t.Errorf("%s started something", bad)
		}
		if e := h.m.entries[len(h.m.entries)-1]; e.kind != entryError || !strings.Contains(e.text, "usage: /mcp") {
			t.Errorf("%s: %q, want the usage", bad, e.text)
		}
	}
}

// /resume without an argument opens a picker: ↑↓ move (and wrap), Enter resumes the one
// selected through Resume, Esc resumes nothing.
func TestResumePicker(t *testing.T) {
	sessions := []SessionInfo{
		{ID: "session-1", Modified: epoch, Summary: "fix the flaky test"},
		{ID: "session-0", Modified: epoch.Add(-time.Hour), Summary: "add the trust dialog"},
		{ID: "session-z", Modified: epoch.Add(-48 * time.Hour), Summary: "first try", Branch: "main", Size: 12_345},
		{ID: "session-new", Modified: epoch}, // empty: left out
	}
	setup := func(t *testing.T) (*harness, *[]string) {
		h := newHarness(t, 80, 24)
		var resumed []string
		h.m.cfg.Sessions = func() ([]SessionInfo, error) { return sessions, nil }
		h.m.cfg.Resume = func(id string) ([]llm.Message, error) {
			resumed = append(resumed, id)
			return nil, nil
		}
		h.typeText("/resume")
		h.press("enter")
		return h, &resumed
	}
	t.Run("enter", func(t *testing.T) {
		h, resumed := setup(t)
		h.golden("resume-picker")
		h.press("down")
		h.golden("resume-picker-second")
		h.press("enter")
		if !slices.Equal(*resumed, []string{"session-0"}) {
			t.Errorf("resumed %q, want session-0", *resumed)
		}
		if h.m.picker != nil || !strings.Contains(h.screen(), "Resumed session session-0") {
			t.Errorf("the picker stays open or the switch is not said:\n%s", h.screen())
		}
	})
	t.Run("wraps", func(t *testing.T) {
		h, resumed := setup(t)
		h.press("up", "enter")
		if !slices.Equal(*resumed, []string{"session-z"}) {
			t.Errorf("resumed %q, want the last one", *resumed)
		}
	})
	t.Run("search", func(t *testing.T) {
		h, resumed := setup(t)
		h.typeText("trust")
		if s := h.screen(); strings.Contains(s, "fix the flaky test") || !strings.Contains(s, "add the trust dialog") {
			t.Errorf("the search does not narrow the list:\n%s", s)
		}
		h.press("enter")
		if !slices.Equal(*resumed, []string{"session-0"}) {
			t.Errorf("resumed %q, want the one found", *resumed)
		}
	})
	t.Run("esc", func(t *testing.T) {
		h, resumed := setup(t)
		h.press("down", "esc")
		if len(*resumed) != 0 || h.m.picker != nil {
			t.Errorf("Esc resumed %q (picker open: %v)", *resumed, h.m.picker != nil)
		}
		if !strings.Contains(h.screen(), "Resume cancelled") {
			t.Errorf("the cancel is not said:\n%s", h.screen())
		}
	})
	t.Run("no switching", func(t *testing.T) {
		h := newHarness(t, 80, 24)
		h.m.cfg.Sessions = func() ([]SessionInfo, error) { return sessions, nil }
		h.typeText("/resume")
		h.press("enter")
		if h.m.picker != nil || !strings.Contains(h.screen(), "switch with /resume N") {
			t.Errorf("without Resume the list form is wanted:\n%s", h.screen())
		}
	})
}

func TestSkillsCommand(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.typeText("/skills")
	h.press("enter")
	if got := h.screen(); !strings.Contains(got, "No skills") {
		t.Errorf("/skills without skills:\n%s", got)
	}
	h.m.cfg.Skills = func() []SkillInfo {
		return []SkillInfo{
			{Name: "pdf", Where: "user", File: filepath.Join(h.dir, "home", "pdf", "SKILL.md"), Description: "Fill PDF forms"},
			{Name: "lint", Where: "project", File: filepath.Join(h.dir, ".claude", "skills", "lint", "SKILL.md"), Description: "Run the linters",
				Note: "its allowed-tools wait for trust (reins trust)"},
			{Name: "kit:fmt", Where: "plugin kit", File: "/opt/kit/skills/fmt/SKILL.md", Description: "Format the code"},
		}
	}
	h.typeText("/skills")
	h.press("enter")
	got := h.screen()
	for _, want := range []string{"pdf (user,", "lint (project, .claude/skills/lint/SKILL.md)", "Run the linters", "wait for trust", "kit:fmt (plugin kit, /opt/kit/skills/fmt/SKILL.md)"} {
		if !strings.Contains(got, want) {
			t.Errorf("/skills does not say %q:\n%s", want, got)
		}
	}
	h.golden("skills")
}
