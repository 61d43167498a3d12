package anthropic

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
)

// TestStreamIdleIsRetried: a server that holds the first request open without sending a
// byte (before the headers, or after them) is abandoned after the idle timeout and the
// request is retried; the next attempt's answer arrives.
func TestStreamIdleIsRetried(t *testing.T) {
	for _, afterHeaders := range []bool{false, true} {
		real := llmtest.NewAnthropicServer(t, llmtest.Say("ok"))
		target, _ := url.Parse(real.URL)
		proxy := httputil.NewSingleHostReverseProxy(target)
		proxy.FlushInterval = -1
		var n atomic.Int32
		front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) == 1 {
				// Read the body, so the server notices when the client hangs up.
				io.Copy(io.Discard, r.Body)
				if afterHeaders {
					w.Header().Set("Content-Type", "text/event-stream")
					w.WriteHeader(http.StatusOK)
					w.(http.Flusher).Flush()
				}
				select {
				case <-r.Context().Done():
				case <-time.After(10 * time.Second): // a bound, so a failing test cannot hang Close
				}
				return
			}
			proxy.ServeHTTP(w, r)
		}))
		t.Cleanup(front.Close)
		sl := &llmtest.Sleeps{}
		var retried []error
		p := New(Options{APIKey: "k", BaseURL: front.URL, HTTPClient: llm.IdleTimeoutClient(nil, 200*time.Millisecond),
			Retry: llm.RetryPolicy{Sleep: sl.Sleep, OnRetry: func(ri llm.RetryInfo) { retried = append(retried, ri.Err) }}})
		resp, err := p.Stream(context.Background(), basicRequest(llm.UserText("hi")), nil)
		if err != nil {
			t.Fatalf("after headers %v: %v", afterHeaders, err)
		}
		if resp.Message.Content[0].Text != "ok" || len(retried) != 1 || !errors.Is(retried[0], llm.ErrStreamIdle) {
			t.Errorf("after headers %v: response %+v, retries %v", afterHeaders, resp.Message, retried)
		}
	}
}

// TestRefusedConnectionIsRetried: nothing listening is retried with backoff, then ends in an
// error that says what happened.
func TestRefusedConnectionIsRetried(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	sl := &llmtest.Sleeps{}
	p := newTestProvider("http://"+addr, 2, sl)
	_, err = p.Stream(context.Background(), basicRequest(llm.UserText("hi")), nil)
	if err == nil || !strings.Contains(err.Error(), "giving up after 2 retries") || !strings.Contains(err.Error(), "refused") {
		t.Errorf("err = %v", err)
	}
	if len(sl.Durations()) != 2 {
		t.Errorf("waits %v, want 2", sl.Durations())
	}
}
