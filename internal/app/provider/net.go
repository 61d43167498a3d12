package provider

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/reinsdev/reins/llm"
)

// defaultStreamIdle is how long a model response may send nothing before the request is
// abandoned and retried. Anthropic's stream sends a ping every few seconds; a local model
// loading its weights can take a minute before the first byte.
const defaultStreamIdle = 2 * time.Minute

// StreamNet is the HTTP client and retry policy of the model providers: an idle timeout on
// every response (REINS_STREAM_IDLE_TIMEOUT, in seconds), and every retry reported to note
// (nil reports none), so that a run that waits says why.
func StreamNet(getenv func(string) string, note func(string)) (*http.Client, llm.RetryPolicy) {
	idle := defaultStreamIdle
	if n, err := strconv.Atoi(strings.TrimSpace(getenv("REINS_STREAM_IDLE_TIMEOUT"))); err == nil && n > 0 {
		idle = time.Duration(n) * time.Second
	}
	policy := llm.RetryPolicy{OnRetry: func(ri llm.RetryInfo) {
		if note != nil {
			note(fmt.Sprintf("model API: %v; retrying in %s (%d/%d)", ri.Err, ri.Delay.Round(100*time.Millisecond), ri.Attempt, ri.MaxRetries))
		}
	}}
	return llm.IdleTimeoutClient(nil, idle), policy
}

// WithFallback is p switching to the model fallback when the model stays overloaded after
// the provider's own retries; note (nil for none) is told of each switch.
func WithFallback(p llm.Provider, fallback string, note func(string)) llm.Provider {
	return &fallbackProvider{Provider: p, fallback: fallback, note: note}
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
