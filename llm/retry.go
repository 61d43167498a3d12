package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// DefaultMaxRetries is the number of retries after the first attempt when a
// [RetryPolicy] does not set one.
const DefaultMaxRetries = 4

// RetryPolicy retries transient failures (see [IsRetryable]) with
// exponential backoff and jitter, honouring the API's retry-after. The zero
// value is the default policy. Delays and the clock are injectable so that
// tests run without waiting.
type RetryPolicy struct {
	// MaxRetries is the number of retries after the first attempt: 0 means
	// DefaultMaxRetries, a negative value disables retrying.
	MaxRetries int
	// BaseDelay is the wait before the first retry, doubled for each later
	// one; default 500ms.
	BaseDelay time.Duration
	// MaxDelay caps the exponential backoff; default 32s.
	MaxDelay time.Duration
	// MaxRetryAfter is the longest retry-after the policy will wait for; a
	// longer one ends the retries with the error, since the caller is better
	// told than left hanging. Default 5 minutes.
	MaxRetryAfter time.Duration
	// Sleep waits for d or until ctx is done, returning ctx.Err() in the
	// latter case. Nil means a real timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter returns a number in [0, 1) that scales the random part of the
	// backoff. Nil means math/rand/v2.
	Jitter func() float64
	// OnRetry, if set, is called before each wait, e.g. to tell the user
	// "overloaded, retrying in 2s (1/4)".
	OnRetry func(RetryInfo)
}

// RetryInfo describes a retry about to happen.
type RetryInfo struct {
	// Attempt counts retries from 1.
	Attempt    int
	MaxRetries int
	Delay      time.Duration
	// Err is the failure being retried.
	Err error
}

func (p RetryPolicy) maxRetries() int {
	switch {
	case p.MaxRetries == 0:
		return DefaultMaxRetries
	case p.MaxRetries < 0:
		return 0
	}
	return p.MaxRetries
}

// Delay returns how long to wait before retry number attempt (counting from
// 1) after err, and false if the policy gives up instead because the API
// asked for a wait longer than MaxRetryAfter.
//
// Without a retry-after, the wait is BaseDelay·2^(attempt-1), capped at
// MaxDelay, plus up to 25% jitter so that many clients hit by the same
// overload do not come back in lockstep.
func (p RetryPolicy) Delay(attempt int, err error) (time.Duration, bool) {
	if apiErr, ok := errors.AsType[*APIError](err); ok && apiErr.RetryAfter > 0 {
		limit := p.MaxRetryAfter
		if limit == 0 {
			limit = 5 * time.Minute
		}
		return apiErr.RetryAfter, apiErr.RetryAfter <= limit
	}
	base, limit := p.BaseDelay, p.MaxDelay
	if base <= 0 {
		base = 500 * time.Millisecond
	}
	if limit <= 0 {
		limit = 32 * time.Second
	}
	d := base
	for i := 1; i < attempt && d < limit; i++ {
		d *= 2
	}
	d = min(d, limit)
	jitter := p.Jitter
	if jitter == nil {
		jitter = rand.Float64
	}
	return d + time.Duration(jitter()*0.25*float64(d)), true
}

// Stream runs attempt, and runs it again after a delay while it fails with a
// retryable error, up to the policy's limit. An attempt that has delivered
// any event to onEvent is never repeated, because the caller has already
// shown that output; its error is returned as it is. Adapters wrap their
// single-attempt streaming in Stream.
func (p RetryPolicy) Stream(ctx context.Context, onEvent func(Event), attempt func(ctx context.Context, onEvent func(Event)) (*Response, error)) (*Response, error) {
	maxRetries := p.maxRetries()
	for retry := 0; ; retry++ {
		emitted := false
		resp, err := attempt(ctx, func(ev Event) {
			// A message_start carries no content: a stream that failed after it is tried
			// again, and the caller gets the next attempt's message_start.
			emitted = emitted || ev.Type != EventMessageStart
			if onEvent != nil {
				onEvent(ev)
			}
		})
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil || emitted || !IsRetryable(err) {
			return nil, err
		}
		if retry >= maxRetries {
			if retry == 0 {
				return nil, err
			}
			return nil, fmt.Errorf("giving up after %d retries: %w", retry, err)
		}
		d, ok := p.Delay(retry+1, err)
		if !ok {
			return nil, err
		}
		if p.OnRetry != nil {
			p.OnRetry(RetryInfo{Attempt: retry + 1, MaxRetries: maxRetries, Delay: d, Err: err})
		}
		if err := p.sleep(ctx, d); err != nil {
			return nil, err
		}
	}
}

func (p RetryPolicy) sleep(ctx context.Context, d time.Duration) error {
	if p.Sleep != nil {
		return p.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// WithRetry returns a Provider that retries p's transient failures under
// policy. The adapters in this module already retry, so use it only for
// providers that do not.
func WithRetry(p Provider, policy RetryPolicy) Provider {
	return retrying{p: p, policy: policy}
}

type retrying struct {
	p      Provider
	policy RetryPolicy
}

func (r retrying) Name() string { return r.p.Name() }

func (r retrying) Stream(ctx context.Context, req *Request, onEvent func(Event)) (*Response, error) {
	return r.policy.Stream(ctx, onEvent, func(ctx context.Context, onEvent func(Event)) (*Response, error) {
		return r.p.Stream(ctx, req, onEvent)
	})
}
