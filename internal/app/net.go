package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
)

// defaultStreamIdle is how long a model response may send nothing before the request is
// abandoned and retried. Anthropic's stream sends a ping every few seconds; a local model
// loading its weights can take a minute before the first byte.
const defaultStreamIdle = 2 * time.Minute

// streamNet is the HTTP client and retry policy of the model providers: an idle timeout on
// every response (REINS_STREAM_IDLE_TIMEOUT, in seconds), and every retry reported, so that a
// run that waits says why.
func streamNet(getenv func(string) string, rep Reporter) (*http.Client, llm.RetryPolicy) {
	idle := defaultStreamIdle
	if n, err := strconv.Atoi(strings.TrimSpace(getenv("REINS_STREAM_IDLE_TIMEOUT"))); err == nil && n > 0 {
		idle = time.Duration(n) * time.Second
	}
	policy := llm.RetryPolicy{OnRetry: func(ri llm.RetryInfo) {
		rep.note("model API: %v; retrying in %s (%d/%d)", ri.Err, ri.Delay.Round(100*time.Millisecond), ri.Attempt, ri.MaxRetries)
	}}
	return llm.IdleTimeoutClient(nil, idle), policy
}

// fallbackProvider switches to another model when the model stays overloaded after the
// provider's own retries, as Claude Code's --fallback-model does.
type fallbackProvider struct {
	llm.Provider
	fallback string
	note     func(string)
}

func (p *fallbackProvider) Stream(ctx context.Context, req *llm.Request, onEvent func(llm.Event)) (*llm.Response, error) {
	resp, err := p.Provider.Stream(ctx, req, onEvent)
	if err == nil || ctx.Err() != nil || req.Model == p.fallback || !overloaded(err) {
		return resp, err
	}
	if p.note != nil {
		p.note(fmt.Sprintf("%s is overloaded; switching to the fallback model %s", req.Model, p.fallback))
	}
	r := *req
	r.Model = p.fallback
	return p.Provider.Stream(ctx, &r, onEvent)
}

// overloaded reports whether err says the model is overloaded (HTTP 529 or an
// overloaded_error event).
func overloaded(err error) bool {
	ae, ok := errors.AsType[*llm.APIError](err)
	return ok && (ae.StatusCode == 529 || ae.Type == "overloaded_error")
}

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
