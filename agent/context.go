package agent

import (
	"cmp"
	"encoding/json"
	"sync"

	"github.com/reinsdev/reins/llm"
)

// Claude Code's compaction arithmetic: a summary may need up to summaryReserve tokens of
// output, so the window usable for the conversation is the model's window less that (or
// less the reply's bound when smaller); automatic compaction starts autoCompactBuffer tokens
// before the end of it.
const (
	summaryReserve    = 20_000
	autoCompactBuffer = 13_000
)

// Compaction configures when and how the conversation is compacted. The zero value
// compacts automatically at Claude Code's threshold.
type Compaction struct {
	// AutoDisabled turns automatic compaction off (the autoCompactEnabled setting false,
	// DISABLE_AUTO_COMPACT). A "prompt is too long" answer still compacts once, unless
	// Disabled.
	AutoDisabled bool
	// Disabled turns every compaction off, /compact included (DISABLE_COMPACT).
	Disabled bool
	// Percent, between 1 and 100, lowers the threshold to that share of the usable window
	// (CLAUDE_AUTOCOMPACT_PCT_OVERRIDE); 0 keeps the default. It can only make compaction
	// come earlier.
	Percent int
	// Window replaces the model's context window from [llm.ContextWindow] when positive.
	Window int
	// Carry returns texts to carry over into the compacted conversation so that the work can
	// go on: the todo list, the plan, the working directories. It sees the conversation
	// being compacted. Nil carries none of them.
	Carry func(msgs []llm.Message) []string
}

// ContextUsage is how much of the model's window the next request would fill, with a
// breakdown by what fills it.
type ContextUsage struct {
	Model string
	// Window is the model's context window; Threshold the size at which automatic
	// compaction starts (it is computed even when AutoCompact is off).
	Window, Threshold int
	AutoCompact       bool
	// Tokens is the estimate for the next request: the last response's usage (its whole
	// prompt and its reply) plus an estimate of what was added since; Measured says a
	// response's usage is part of it.
	Tokens   int
	Measured bool
	// Last is the last response's usage, when Measured.
	Last llm.Usage
	// The breakdown, local estimates: the system prompt (Memory of it, the parts whose
	// text came from memory files), the tool schemas sent, and the messages.
	System, Memory, Tools, Messages int
}

// Percent is the share of the window in use, rounded down.
func (u ContextUsage) Percent() int {
	if u.Window <= 0 {
		return 0
	}
	return u.Tokens * 100 / u.Window
}

// Left is the share of the window left before automatic compaction, as Claude Code's status
// line shows it.
func (u ContextUsage) Left() int {
	if u.Threshold <= 0 {
		return 0
	}
	return max(0, (u.Threshold-u.Tokens)*100/u.Threshold)
}

// accounting is what the last response measured: its usage, and how many messages of the
// conversation it covered (the prompt it answered and its reply).
type accounting struct {
	mu       sync.Mutex
	usage    llm.Usage
	measured int
}

func (c *accounting) set(u llm.Usage, measured int) {
	c.mu.Lock()
	c.usage, c.measured = u, measured
	c.mu.Unlock()
}

func (c *accounting) get() (llm.Usage, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.usage, c.measured
}

// window is the context window of the agent's model.
func (a *Agent) window() int { return cmp.Or(a.Compaction.Window, llm.ContextWindow(a.Model)) }

// threshold is the size at which automatic compaction starts.
func (a *Agent) threshold() int {
	usable := a.window() - min(cmp.Or(a.MaxTokens, DefaultMaxTokens), summaryReserve)
	t := usable - autoCompactBuffer
	if p := a.Compaction.Percent; p > 0 && p <= 100 {
		t = min(t, usable*p/100)
	}
	return max(t, 1)
}

// ContextUsage reports how much of the window the conversation msgs fills: the figure the
// chat's status line, /context and the SDK's get_context_usage show. It may be called while
// a run goes on.
func (a *Agent) ContextUsage(msgs []llm.Message) ContextUsage {
	u := ContextUsage{Model: a.Model, Window: a.window(), Threshold: a.threshold(),
		AutoCompact: !a.Compaction.AutoDisabled && !a.Compaction.Disabled}
	for _, s := range a.System {
		n := llm.EstimateTokens(s.Text)
		u.System += n
		if s.Memory {
			u.Memory += n
		}
	}
	for _, s := range a.specs() {
		b, _ := json.Marshal(s)
		u.Tools += llm.EstimateTokens(string(b))
	}
	u.Messages = llm.EstimateMessageTokens(msgs)
	u.Tokens = u.System + u.Tools + u.Messages
	usage, measured := a.acct.get()
	if measured > 0 && measured <= len(msgs) {
		u.Measured, u.Last = true, usage
		u.Tokens = usage.InputTokens + usage.CacheReadInputTokens + usage.CacheCreationInputTokens + usage.OutputTokens +
			llm.EstimateMessageTokens(msgs[measured:])
	}
	return u
}
