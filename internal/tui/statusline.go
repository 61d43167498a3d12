package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// StatusCommand is the settings' statusLine: a command that gets the session as JSON on
// standard input and whose first line of output is shown under the input. Run runs it, bounded
// like a hook (the front end passes the hooks' runner); the chat runs it when what the JSON
// says changes (the mode, a message, the cost), at most once per StatusThrottle and never two
// at once, so a slow or hanging command only leaves the line as it was.
type StatusCommand struct {
	Run func(ctx context.Context, input []byte) (string, error)
	// Padding indents the line by this many columns.
	Padding int
	// Version, TranscriptPath, ProjectDir and OutputStyle are fields of the JSON.
	Version, TranscriptPath, ProjectDir, OutputStyle string
}

// StatusThrottle is the least time between two runs of the status command.
const StatusThrottle = 300 * time.Millisecond

type (
	statusDoneMsg struct {
		line string
		err  error
	}
	statusTickMsg struct{}
)

// statusState is the status command's state in the model.
type statusState struct {
	// key is what the JSON of the last run said; a new run starts when it changes.
	key     string
	running bool
	queued  bool // a throttle tick is on its way
	last    time.Time
	line    string
	started time.Time
}

// statusModel is the Model with the status command around its updates: every update may
// change what the status JSON says.
type statusModel struct{ *Model }

func (s statusModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case statusDoneMsg:
		s.status.running = false
		if msg.err == nil {
			s.status.line = msg.line
		}
		return s, s.statusMaybe()
	case statusTickMsg:
		s.status.queued = false
		return s, s.statusMaybe()
	}
	_, cmd := s.Model.Update(msg)
	return s, tea.Batch(cmd, s.statusMaybe())
}

// statusMaybe starts the status command when what it would be told changed, no run is under
// way and the last began at least StatusThrottle ago; otherwise a tick comes back later.
func (s statusModel) statusMaybe() tea.Cmd {
	sc := s.cfg.StatusLine
	if sc == nil || sc.Run == nil {
		return nil
	}
	st := &s.status
	input := s.statusInput()
	key := durationField.ReplaceAllString(string(input), "")
	if key == st.key || st.running {
		return nil
	}
	if wait := StatusThrottle - s.cfg.now().Sub(st.last); wait > 0 {
		if st.queued {
			return nil
		}
		st.queued = true
		return tea.Tick(wait, func(time.Time) tea.Msg { return statusTickMsg{} })
	}
	st.key, st.running, st.last = key, true, s.cfg.now()
	ctx := s.ctx
	return func() tea.Msg {
		out, err := sc.Run(ctx, input)
		return statusDoneMsg{line: firstLine(out), err: err}
	}
}

// statusInput is the session as the status command reads it, in Claude Code's shape.
func (m *Model) statusInput() []byte {
	sc := m.cfg.StatusLine
	pc := m.perms()
	if m.status.started.IsZero() {
		m.status.started = m.cfg.now()
	}
	u := m.ctxUsage
	in := map[string]any{
		"hook_event_name": "Status",
		"session_id":      m.cfg.SessionID,
		"transcript_path": sc.TranscriptPath,
		"cwd":             pc.Cwd(),
		"model":           map[string]any{"id": m.cfg.Agent.Model, "display_name": displayName(m.cfg.Agent.Model)},
		"workspace":       map[string]any{"current_dir": pc.Cwd(), "project_dir": sc.ProjectDir},
		"version":         sc.Version,
		"output_style":    map[string]any{"name": sc.OutputStyle},
		"permission_mode": string(pc.Mode()),
		"cost": map[string]any{
			"total_cost_usd":        m.spent.costUSD,
			"total_duration_ms":     m.cfg.now().Sub(m.status.started).Milliseconds(),
			"total_api_duration_ms": 0,
			"total_lines_added":     0,
			"total_lines_removed":   0,
		},
		"context_window": map[string]any{
			"total_input_tokens":   m.spent.usage.InputTokens + m.spent.usage.CacheReadInputTokens + m.spent.usage.CacheCreationInputTokens,
			"total_output_tokens":  m.spent.usage.OutputTokens,
			"context_window_size":  u.Window,
			"used_percentage":      u.Percent(),
			"remaining_percentage": 100 - u.Percent(),
		},
		"exceeds_200k_tokens": u.Tokens > 200_000,
		"messages":            len(m.msgs),
	}
	b, _ := json.Marshal(in)
	return b
}

// statusKey drops what changes by itself (the running time) from the JSON: the command runs
// when something happened, not every second.
var durationField = regexp.MustCompile(`"total_duration_ms":\d+`)

// commandStatus is the status command's line, indented and cut to the width; "" without one.
func (m *Model) commandStatus() string {
	sc := m.cfg.StatusLine
	if sc == nil || m.status.line == "" {
		return ""
	}
	pad := strings.Repeat(" ", min(sc.Padding, max(m.width-1, 0)))
	return pad + ansi.Truncate(m.status.line, max(m.width-len(pad), 1), "…")
}

// maxStatusLine bounds the line kept: the rest of a flood is never looked at.
const maxStatusLine = 4096

// firstLine is the first line of a command's output with every control character and escape
// sequence removed but colours (SGR): a line must not move the cursor or retitle the terminal.
func firstLine(out string) string {
	line, _, _ := strings.Cut(out, "\n")
	if len(line) > maxStatusLine {
		line = line[:maxStatusLine]
	}
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == 0x1b {
			if m := sgr.FindString(line[i:]); m != "" {
				b.WriteString(m)
				i += len(m) - 1
			}
			continue
		}
		if c < 0x20 || c == 0x7f {
			if c == '\t' {
				b.WriteByte(' ')
			}
			continue
		}
		b.WriteByte(c)
	}
	return strings.TrimRight(b.String(), " \r")
}

var sgr = regexp.MustCompile(`^\x1b\[[0-9;]*m`)

// displayName is a model id as people say it: claude-sonnet-4-5-20250929 is Sonnet 4.5.
func displayName(id string) string {
	parts := strings.Split(strings.TrimPrefix(id, "claude-"), "-")
	if !strings.HasPrefix(id, "claude-") || len(parts) < 2 {
		return id
	}
	name := strings.ToUpper(parts[0][:1]) + parts[0][1:]
	var nums []string
	for _, p := range parts[1:] {
		if len(p) >= 8 {
			break // a date
		}
		nums = append(nums, p)
	}
	return fmt.Sprintf("%s %s", name, strings.Join(nums, "."))
}
