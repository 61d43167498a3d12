package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestAPIErrorRetryable(t *testing.T) {
	tests := []struct {
		err  *APIError
		want bool
	}{
		{&APIError{StatusCode: 400}, false},
		{&APIError{StatusCode: 401}, false},
		{&APIError{StatusCode: 403}, false},
		{&APIError{StatusCode: 404}, false},
		{&APIError{StatusCode: 408}, true},
		{&APIError{StatusCode: 409}, true},
		{&APIError{StatusCode: 413}, false},
		{&APIError{StatusCode: 422}, false},
		{&APIError{StatusCode: 429}, true},
		{&APIError{StatusCode: 500}, true},
		{&APIError{StatusCode: 502}, true},
		{&APIError{StatusCode: 503}, true},
		{&APIError{StatusCode: 529, Type: "overloaded_error"}, true},
		// A 4xx status decides even if the type sounds transient.
		{&APIError{StatusCode: 400, Type: "overloaded_error"}, false},
		// In-stream errors have no status; the type decides.
		{&APIError{Type: "overloaded_error"}, true},
		{&APIError{Type: "rate_limit_error"}, true},
		{&APIError{Type: "api_error"}, true},
		{&APIError{Type: "invalid_request_error"}, false},
		{&APIError{}, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d_%s", tt.err.StatusCode, tt.err.Type), func(t *testing.T) {
			if got := tt.err.Retryable(); got != tt.want {
				t.Errorf("Retryable() = %v, want %v", got, tt.want)
			}
			if got := IsRetryable(fmt.Errorf("wrapped: %w", tt.err)); got != tt.want {
				t.Errorf("IsRetryable(wrapped) = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestIsRetryableTransport(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"reset", fmt.Errorf("read tcp: %w", syscall.ECONNRESET), true},
		{"broken pipe", fmt.Errorf("write: %w", syscall.EPIPE), true},
		{"unexpected eof", fmt.Errorf("stream: %w", io.ErrUnexpectedEOF), true},
		{"canceled", context.Canceled, false},
		{"deadline", fmt.Errorf("x: %w", context.DeadlineExceeded), false},
		{"refused", fmt.Errorf("dial tcp: %w", syscall.ECONNREFUSED), true},
		{"idle", fmt.Errorf("read: %w", ErrStreamIdle), true},
		{"other", errors.New("boom"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsRetryable(tt.err); got != tt.want {
				t.Errorf("IsRetryable(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

func TestAPIErrorMessage(t *testing.T) {
	tests := []struct {
		err  *APIError
		want string
	}{
		{&APIError{Provider: "anthropic", StatusCode: 529, Type: "overloaded_error", Message: "Overloaded", RequestID: "req_1"},
			"anthropic: 529 Overloaded (overloaded_error): Overloaded [request-id req_1]"},
		{&APIError{Provider: "openai", StatusCode: 401, Message: "bad key"}, "openai: 401 Unauthorized: bad key"},
		{&APIError{Type: "overloaded_error"}, "stream error (overloaded_error)"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	inner := errors.New("sdk")
	if !errors.Is(&APIError{Err: inner}, inner) {
		t.Error("APIError does not unwrap to Err")
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name    string
		headers map[string]string
		want    time.Duration
		wantOK  bool
	}{
		{"none", nil, 0, false},
		{"seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second, true},
		{"fractional seconds", map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond, true},
		{"ms wins", map[string]string{"Retry-After": "7", "Retry-After-Ms": "250"}, 250 * time.Millisecond, true},
		{"bad ms falls back", map[string]string{"Retry-After": "2", "Retry-After-Ms": "soon"}, 2 * time.Second, true},
		{"date", map[string]string{"Retry-After": now.Add(30 * time.Second).Format(http.TimeFormat)}, 30 * time.Second, true},
		{"past date", map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0, true},
		{"negative", map[string]string{"Retry-After": "-3"}, 0, false},
		{"huge", map[string]string{"Retry-After": "1e30"}, 0, false},
		{"nan", map[string]string{"Retry-After": "NaN", "Retry-After-Ms": "NaN"}, 0, false},
		{"garbage", map[string]string{"Retry-After": "later"}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.headers {
				h.Set(k, v)
			}
			got, ok := ParseRetryAfter(h, now)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("ParseRetryAfter = %v, %v; want %v, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"0", "7", "1.5", "-1", "1e400", "NaN", "Wed, 21 Oct 2015 07:28:00 GMT", ""} {
		f.Add(s, s)
	}
	now := time.Unix(1_700_000_000, 0)
	f.Fuzz(func(t *testing.T, retryAfter, retryAfterMs string) {
		h := http.Header{}
		h.Set("Retry-After", retryAfter)
		h.Set("Retry-After-Ms", retryAfterMs)
		d, ok := ParseRetryAfter(h, now)
		if d < 0 {
			t.Errorf("negative delay %v", d)
		}
		if !ok && d != 0 {
			t.Errorf("delay %v reported with ok=false", d)
		}
	})
}

func TestRetryPolicyDelay(t *testing.T) {
	p := RetryPolicy{Jitter: func() float64 { return 0 }}
	var got []time.Duration
	for attempt := 1; attempt <= 8; attempt++ {
		d, ok := p.Delay(attempt, errors.New("x"))
		if !ok {
			t.Fatalf("Delay(%d) gave up", attempt)
		}
		got = append(got, d)
	}
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second,
		8 * time.Second, 16 * time.Second, 32 * time.Second, 32 * time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("backoff (-want +got):\n%s", diff)
	}

	p.Jitter = func() float64 { return 0.999 }
	if d, _ := p.Delay(1, nil); d <= 500*time.Millisecond || d > 625*time.Millisecond {
		t.Errorf("jittered first delay %v outside (500ms, 625ms]", d)
	}
	if d, _ := (RetryPolicy{}).Delay(3, nil); d < 2*time.Second || d > 2500*time.Millisecond {
		t.Errorf("default jittered delay %v outside [2s, 2.5s]", d)
	}

	ra := &APIError{StatusCode: 429, RetryAfter: 3 * time.Second}
	if d, ok := p.Delay(1, ra); d != 3*time.Second || !ok {
		t.Errorf("Delay with retry-after = %v, %v; want 3s, true", d, ok)
	}
	long := &APIError{StatusCode: 429, RetryAfter: time.Hour}
	if _, ok := p.Delay(1, long); ok {
		t.Error("Delay waits for a retry-after of an hour")
	}
}

// scripted returns an attempt func that fails with errs in turn and then
// succeeds, emitting an event first when emit is set.
func scripted(calls *int, emit bool, errs ...error) func(context.Context, func(Event)) (*Response, error) {
	return func(ctx context.Context, onEvent func(Event)) (*Response, error) {
		i := *calls
		*calls++
		if emit {
			onEvent(Event{Type: EventTextDelta, Text: "partial"})
		}
		if i < len(errs) {
			return nil, errs[i]
		}
		return &Response{StopReason: StopEndTurn}, nil
	}
}

func TestRetryPolicyStream(t *testing.T) {
	overloaded := &APIError{StatusCode: 529, Type: "overloaded_error"}
	limited := &APIError{StatusCode: 429, RetryAfter: 2 * time.Second}
	badRequest := &APIError{StatusCode: 400}
	tests := []struct {
		name       string
		maxRetries int
		emit       bool
		errs       []error
		wantCalls  int
		wantDelays []time.Duration
		wantErr    string // "" means success
	}{
		{"success first", 0, false, nil, 1, nil, ""},
		{"overloaded then success", 0, false, []error{overloaded}, 2, []time.Duration{500 * time.Millisecond}, ""},
		{"retry-after honoured", 0, false, []error{limited, overloaded}, 3,
			[]time.Duration{2 * time.Second, time.Second}, ""},
		{"give up after default 4", 0, false, []error{overloaded, overloaded, overloaded, overloaded, overloaded, overloaded}, 5,
			[]time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second}, "giving up after 4 retries"},
		{"give up after 2", 2, false, []error{overloaded, overloaded, overloaded}, 3,
			[]time.Duration{500 * time.Millisecond, time.Second}, "giving up after 2 retries"},
		{"disabled", -1, false, []error{overloaded}, 1, nil, "529"},
		{"400 not retried", 0, false, []error{badRequest}, 1, nil, "400"},
		{"no retry after output", 0, true, []error{overloaded}, 1, nil, "529"},
		{"connection reset", 0, false, []error{syscall.ECONNRESET}, 2, []time.Duration{500 * time.Millisecond}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var delays []time.Duration
			var infos []RetryInfo
			p := RetryPolicy{
				MaxRetries: tt.maxRetries,
				Jitter:     func() float64 { return 0 },
				Sleep: func(ctx context.Context, d time.Duration) error {
					delays = append(delays, d)
					return nil
				},
				OnRetry: func(info RetryInfo) { infos = append(infos, info) },
			}
			calls := 0
			resp, err := p.Stream(t.Context(), nil, scripted(&calls, tt.emit, tt.errs...))
			if tt.wantErr == "" {
				if err != nil || resp == nil {
					t.Fatalf("Stream = %v, %v; want success", resp, err)
				}
			} else if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Stream error = %v, want one containing %q", err, tt.wantErr)
			}
			if calls != tt.wantCalls {
				t.Errorf("attempts = %d, want %d", calls, tt.wantCalls)
			}
			if diff := cmp.Diff(tt.wantDelays, delays); diff != "" {
				t.Errorf("delays (-want +got):\n%s", diff)
			}
			if len(infos) != len(delays) {
				t.Fatalf("OnRetry called %d times for %d waits", len(infos), len(delays))
			}
			for i, info := range infos {
				if info.Attempt != i+1 || info.Delay != delays[i] || info.Err == nil {
					t.Errorf("RetryInfo[%d] = %+v", i, info)
				}
			}
			if err != nil && tt.wantErr != "" {
				var apiErr *APIError
				if len(tt.errs) > 0 && errors.As(tt.errs[0], &apiErr) && !errors.As(err, &apiErr) {
					t.Errorf("returned error %v does not wrap the APIError", err)
				}
			}
		})
	}
}

func TestRetryPolicyStreamCancelDuringWait(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	p := RetryPolicy{BaseDelay: time.Hour}
	calls := 0
	done := make(chan error, 1)
	go func() {
		_, err := p.Stream(ctx, nil, scripted(&calls, false, &APIError{StatusCode: 503}, &APIError{StatusCode: 503}))
		done <- err
	}()
	time.Sleep(10 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Stream kept waiting after cancel")
	}
}

type fakeProvider struct {
	calls int
	errs  []error
}

func (f *fakeProvider) Name() string { return "fake" }

func (f *fakeProvider) Stream(ctx context.Context, req *Request, onEvent func(Event)) (*Response, error) {
	return scripted(&f.calls, false, f.errs...)(ctx, onEvent)
}

func TestWithRetry(t *testing.T) {
	f := &fakeProvider{errs: []error{&APIError{StatusCode: 500}, &APIError{StatusCode: 502}}}
	p := WithRetry(f, RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }})
	if p.Name() != "fake" {
		t.Errorf("Name() = %q", p.Name())
	}
	resp, err := p.Stream(t.Context(), &Request{}, nil)
	if err != nil || resp.StopReason != StopEndTurn {
		t.Fatalf("Stream = %+v, %v", resp, err)
	}
	if f.calls != 3 {
		t.Errorf("calls = %d, want 3", f.calls)
	}
}
