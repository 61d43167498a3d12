package app

import (
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
)

// envInt reads a positive integer from the environment; anything else is 0 (the default).
func envInt(getenv func(string) string, name string) int {
	n, err := strconv.Atoi(strings.TrimSpace(getenv(name)))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// debugEvents is an event-bus subscriber that writes a run's events to the debug log.
func debugEvents(l *slog.Logger) func(agent.Event) {
	return func(e agent.Event) {
		switch e.Type {
		case agent.EventAssistant:
			r := e.Response
			var uses []string
			for _, b := range r.Message.Content {
				if b.Type == llm.BlockToolUse {
					uses = append(uses, fmt.Sprintf("%s %s %s", b.ID, b.Name, b.Input))
				}
			}
			l.Debug("model reply", "model", r.Model, "stop_reason", r.StopReason,
				"input_tokens", r.Usage.InputTokens, "output_tokens", r.Usage.OutputTokens, "tool_uses", strings.Join(uses, "; "))
		case agent.EventToolResults:
			for _, b := range e.Message.Content {
				if b.Type != llm.BlockToolResult {
					continue
				}
				var text strings.Builder
				for _, c := range b.Content {
					text.WriteString(c.Text)
				}
				l.Debug("tool result", "tool_use_id", b.ToolUseID, "is_error", b.IsError, "text", clip(text.String(), 300))
			}
		case agent.EventNotice:
			l.Debug("notice", "tool_use_id", e.ToolUseID, "text", e.Text)
		case agent.EventCompact:
			b := e.Boundary
			l.Debug("compacted", "trigger", b.Trigger, "pre_tokens", b.PreTokens, "post_tokens", b.PostTokens, "messages", b.Messages, "duration", b.Duration)
		case agent.EventResult:
			l.Debug("run finished", "subtype", e.Result.Subtype, "turns", e.Result.NumTurns, "denials", len(e.Result.PermissionDenials))
		}
	}
}

// clip shortens s to about n bytes for a log line.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… (%d bytes)", len(s))
}
