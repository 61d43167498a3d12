package cli

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
)

// debugFlags are the root's --debug and --debug-file, shared by every command.
type debugFlags struct {
	on   bool
	file string
}

func (d *debugFlags) register(root *cobra.Command) {
	root.PersistentFlags().BoolVar(&d.on, "debug", false, "write a debug log (what reins does, step by step) to standard error")
	root.PersistentFlags().StringVar(&d.file, "debug-file", "", "write the debug log to this file instead (implies --debug)")
}

// open starts the debug log on f. The returned function closes it.
func (d *debugFlags) open(f *Factory) (func(), error) {
	if !d.on && d.file == "" {
		return func() {}, nil
	}
	var w io.Writer = f.ErrOut
	closeFn := func() {}
	if d.file != "" {
		file, err := os.OpenFile(d.file, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, fmt.Errorf("--debug-file: %w", err)
		}
		w, closeFn = file, func() { file.Close() }
	}
	f.Debug = slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return closeFn, nil
}

// debugf logs to the debug log when there is one.
func (f *Factory) debugf(msg string, args ...any) {
	if f.Debug != nil {
		f.Debug.Debug(msg, args...)
	}
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
