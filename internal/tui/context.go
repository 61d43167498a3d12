package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
)

// contextWarnLeft is the share of the window left before automatic compaction below which
// the status line shows it, as Claude Code's does: a figure that is always there is noise.
const contextWarnLeft = 30

// compact runs /compact [instructions] like a turn: the conversation becomes the summary.
func (m *Model) compact(instructions string) tea.Cmd {
	if m.running {
		m.entries = append(m.entries, &entry{kind: entryError, text: "wait for the turn to finish, or press Esc, before /compact"})
		return nil
	}
	if len(m.msgs) == 0 {
		m.entries = append(m.entries, &entry{kind: entryError, text: "nothing to compact: the conversation is empty"})
		return nil
	}
	ctx, cancel := context.WithCancel(m.ctx)
	m.running, m.cancel = true, cancel
	m.stream = map[int]*entry{}
	m.entries = append(m.entries, &entry{kind: entryInfo, text: "Compacting the conversation…"})
	history, a := m.msgs, m.cfg.Agent
	m.turn.Add(1)
	run := func() tea.Msg {
		defer m.turn.Done()
		defer cancel()
		res, err := a.Compact(ctx, history, instructions)
		m.fence.wait(res)
		return turnDoneMsg{res: res, err: err}
	}
	return tea.Batch(run, tick())
}

// compacted tells of a compaction, automatic or asked for.
func (m *Model) compacted(b *agent.Boundary) {
	if b == nil {
		return
	}
	how := "Conversation compacted"
	if b.Trigger == agent.TriggerAuto {
		how = "Conversation compacted automatically (the context window was nearly full)"
	}
	m.entries = append(m.entries, &entry{kind: entryInfo, text: fmt.Sprintf("%s: %s → %s tokens. The history before it stays in the session file.",
		how, kTokens(b.PreTokens), kTokens(b.PostTokens))})
	m.ctxUsage = m.cfg.Agent.ContextUsage(nil)
	m.ctxUsage.Tokens = b.PostTokens
}

// measured updates the context figure from a response's usage, during a turn.
func (m *Model) measured(u llm.Usage) {
	if m.ctxUsage.Threshold == 0 {
		m.ctxUsage = m.cfg.Agent.ContextUsage(m.msgs)
	}
	m.ctxUsage.Tokens = u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens + u.OutputTokens
}

// contextStatus is the status line's figure: the share left before automatic compaction,
// once it is low.
func (m *Model) contextStatus() string {
	u := m.ctxUsage
	if u.Threshold == 0 || !u.AutoCompact || u.Left() > contextWarnLeft {
		return ""
	}
	return fmt.Sprintf("%d%% context left until auto-compact", u.Left())
}

// contextReport is /context: what fills the window, by kind.
func (m *Model) contextReport() string {
	u := m.cfg.Agent.ContextUsage(m.msgs)
	m.ctxUsage = u
	var b strings.Builder
	fmt.Fprintf(&b, "Context: %s of %s tokens (%d%%) · %s\n", kTokens(u.Tokens), kTokens(u.Window), u.Percent(), u.Model)
	row := func(name string, n int) {
		fmt.Fprintf(&b, "  %-20s %8s  %5.1f%%\n", name, kTokens(n), pct(n, u.Window))
	}
	row("System prompt", u.System-u.Memory)
	row("Memory files", u.Memory)
	row("System tools", u.Tools)
	row("Messages", u.Messages)
	if u.AutoCompact {
		row("Autocompact buffer", u.Window-u.Threshold)
		row("Free space", max(0, u.Threshold-u.Tokens))
	} else {
		row("Free space", max(0, u.Window-u.Tokens))
	}
	switch {
	case u.AutoCompact:
		fmt.Fprintf(&b, "Automatic compaction at %s tokens (%d%% left).", kTokens(u.Threshold), u.Left())
	default:
		b.WriteString("Automatic compaction is off (autoCompactEnabled, DISABLE_AUTO_COMPACT); /compact compacts now.")
	}
	if u.Measured {
		b.WriteString(" The total is the last reply's usage plus an estimate of what was added since; the rows are estimates.")
	} else {
		b.WriteString(" Every figure is an estimate (about four characters a token) until the model replies.")
	}
	return b.String()
}

func pct(n, of int) float64 {
	if of <= 0 {
		return 0
	}
	return float64(n) * 100 / float64(of)
}

// kTokens writes a token count the way Claude Code's /context does: 12.3k above a thousand.
func kTokens(n int) string {
	if n < 1000 {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%.1fk", float64(n)/1000)
}
