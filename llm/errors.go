package llm

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// APIError is an error reported by a model API, either as an HTTP error
// status or as an error event inside a stream that had started fine.
type APIError struct {
	// Provider is the Name of the provider that got the error.
	Provider string
	// StatusCode is the HTTP status of the failed request, or 0 when the
	// error arrived as an event inside a successful (200) stream.
	StatusCode int
	// Type is the API's error type, e.g. "overloaded_error",
	// "rate_limit_error" or "invalid_request_error"; it may be empty.
	Type string
	// Message is the API's human-readable explanation.
	Message string
	// RequestID is the API's request identifier, for support requests.
	RequestID string
	// RetryAfter is how long the API asked the client to wait, from the
	// retry-after-ms or retry-after header; zero if it did not say.
	RetryAfter time.Duration
	// Err is the underlying error (an SDK error, for example), or nil.
	Err error
}

func (e *APIError) Error() string {
	var b strings.Builder
	if e.Provider != "" {
		b.WriteString(e.Provider)
		b.WriteString(": ")
	}
	if e.StatusCode != 0 {
		b.WriteString(strconv.Itoa(e.StatusCode))
		if text := statusText(e.StatusCode); text != "" {
			b.WriteString(" ")
			b.WriteString(text)
		}
	} else {
		b.WriteString("stream error")
	}
	if e.Type != "" {
		b.WriteString(" (")
		b.WriteString(e.Type)
		b.WriteString(")")
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.RequestID != "" {
		b.WriteString(" [request-id ")
		b.WriteString(e.RequestID)
		b.WriteString("]")
	}
	return b.String()
}

func statusText(code int) string {
	if code == 529 {
		return "Overloaded"
	}
	return http.StatusText(code)
}

func (e *APIError) Unwrap() error { return e.Err }

// Retryable reports whether repeating the request may succeed: the status is
// 408, 409, 429 or 5xx (529 "overloaded" included), or an in-stream error
// says the API was overloaded, rate-limited or failed internally.
func (e *APIError) Retryable() bool {
	switch {
	case e.StatusCode == http.StatusRequestTimeout,
		e.StatusCode == http.StatusConflict,
		e.StatusCode == http.StatusTooManyRequests,
		e.StatusCode >= 500:
		return true
	case e.StatusCode != 0:
		return false
	}
	switch e.Type {
	case "overloaded_error", "rate_limit_error", "api_error", "timeout_error":
		return true
	}
	return false
}

// IsRetryable reports whether err is a transient failure worth retrying: an
// [*APIError] that is [APIError.Retryable], a connection that was refused, reset
// or cut short, or a response that went idle ([ErrStreamIdle]). Context
// cancellation and deadlines are never retryable.
func IsRetryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if apiErr, ok := errors.AsType[*APIError](err); ok {
		return apiErr.Retryable()
	}
	if errors.Is(err, ErrStreamIdle) {
		return true
	}
	// A refused connection is a server restarting or a local model not yet up: worth the
	// same backoff as an overload.
	return brokenConnection(err) || errors.Is(err, io.ErrUnexpectedEOF)
}

// brokenConnection reports a connection refused, reset, aborted or cut (a write to a closed
// one), in the syscall package's numbers and the system's own (systemBrokenConnection).
func brokenConnection(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNABORTED) ||
		errors.Is(err, syscall.EPIPE) ||
		systemBrokenConnection(err)
}

// ParseRetryAfter reads how long a response asks the client to wait: the
// retry-after-ms header (milliseconds, a non-standard header the Anthropic
// and OpenAI APIs send) or else retry-after (seconds, or an HTTP date,
// measured from now). It reports false when neither header holds a usable
// value.
func ParseRetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && ms < float64(maxRetryAfterParse/time.Millisecond) {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if !(s >= 0 && s < float64(maxRetryAfterParse/time.Second)) { // also rejects NaN
			return 0, false
		}
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now)), true
	}
	return 0, false
}

// maxRetryAfterParse bounds parsed values so that absurd headers cannot
// overflow a time.Duration.
const maxRetryAfterParse = 365 * 24 * time.Hour
