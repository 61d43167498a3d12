package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// ErrStreamIdle is the failure of a request whose response sent no bytes for the idle
// timeout: a server or proxy that holds a connection open without answering. It is
// retryable (see [IsRetryable]); an attempt that already delivered events is not repeated,
// as for any error.
var ErrStreamIdle = errors.New("the model API sent nothing")

// IdleTimeoutClient returns a client that sends requests like base (nil: the default
// transport) but fails any request whose response does not start, or stops sending bytes, for
// idle. Without it a stalled stream waits for ever: streaming requests have no overall
// timeout, since a long answer is normal.
func IdleTimeoutClient(base *http.Client, idle time.Duration) *http.Client {
	c := &http.Client{}
	if base != nil {
		*c = *base
	}
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	c.Transport = &idleTransport{base: rt, idle: idle}
	return c
}

type idleTransport struct {
	base http.RoundTripper
	idle time.Duration
}

// idleWatch cancels one request when its timer fires.
type idleWatch struct {
	mu     sync.Mutex
	fired  bool
	timer  *time.Timer
	cancel context.CancelCauseFunc
	idle   time.Duration
}

func (w *idleWatch) err() error {
	return fmt.Errorf("%w for %s: the request was abandoned", ErrStreamIdle, w.idle)
}

func (w *idleWatch) hasFired() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fired
}

func (w *idleWatch) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.fired {
		w.timer.Reset(w.idle)
	}
}

func (t *idleTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	w := &idleWatch{cancel: cancel, idle: t.idle}
	w.mu.Lock()
	w.timer = time.AfterFunc(t.idle, func() {
		w.mu.Lock()
		w.fired = true
		w.mu.Unlock()
		cancel(ErrStreamIdle)
	})
	w.mu.Unlock()
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		w.timer.Stop()
		cancel(nil)
		if w.hasFired() {
			return nil, w.err()
		}
		return nil, err
	}
	w.reset()
	resp.Body = &idleBody{rc: resp.Body, w: w}
	return resp, nil
}

// idleBody restarts the timer on every read that brings bytes.
type idleBody struct {
	rc io.ReadCloser
	w  *idleWatch
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.w.reset()
	}
	if err != nil && err != io.EOF && b.w.hasFired() {
		return n, b.w.err()
	}
	return n, err
}

func (b *idleBody) Close() error {
	b.w.timer.Stop()
	err := b.rc.Close()
	b.w.cancel(nil)
	return err
}
