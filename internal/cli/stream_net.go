package cli

import (
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

// streamNet is the HTTP client and retry policy of the model providers: an idle timeout on
// every response (REINS_STREAM_IDLE_TIMEOUT, in seconds), and every retry reported on
// standard error, so that a run that waits says why.
func streamNet(f *Factory) (*http.Client, llm.RetryPolicy) {
	idle := defaultStreamIdle
	if n, err := strconv.Atoi(strings.TrimSpace(f.Getenv("REINS_STREAM_IDLE_TIMEOUT"))); err == nil && n > 0 {
		idle = time.Duration(n) * time.Second
	}
	policy := llm.RetryPolicy{OnRetry: func(ri llm.RetryInfo) {
		fmt.Fprintf(f.ErrOut, "reins: model API: %v; retrying in %s (%d/%d)\n", ri.Err, ri.Delay.Round(100*time.Millisecond), ri.Attempt, ri.MaxRetries)
	}}
	return llm.IdleTimeoutClient(nil, idle), policy
}
