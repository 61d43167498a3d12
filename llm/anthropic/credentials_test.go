package anthropic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
)

// countingSource is a CredentialSource that hands out key-1, key-2, … and records each ask.
type countingSource struct {
	mu      sync.Mutex
	refresh []bool
	fail    error
	empty   bool
	issued  int
	both    bool
}

func (s *countingSource) Credential(_ context.Context, refresh bool) (Credential, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refresh = append(s.refresh, refresh)
	if s.fail != nil {
		return Credential{}, s.fail
	}
	if s.empty {
		return Credential{}, nil
	}
	if refresh || s.issued == 0 {
		s.issued++
	}
	key := fmt.Sprintf("key-%d", s.issued)
	if s.both {
		return Credential{Bearer: key, XAPIKey: key}, nil
	}
	return Credential{Bearer: key}, nil
}

func (s *countingSource) asks() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprint(s.refresh)
}

func sourceProvider(url string, src CredentialSource) *Provider {
	return New(Options{BaseURL: url, Credentials: src, MaxRetries: 2,
		Retry: llm.RetryPolicy{Sleep: (&llmtest.Sleeps{}).Sleep, Jitter: func() float64 { return 0 }}})
}

func TestCredentialHeaders(t *testing.T) {
	custom := http.Header{"X-Team": {"infra"}, "Authorization": {"Bearer from-custom"}, "Anthropic-Version": {"1999-01-01"}}
	tests := []struct {
		name string
		opts Options
		want map[string]string // header → value; "" means absent
	}{
		{"api key", Options{APIKey: "k"}, map[string]string{"Authorization": "Bearer k", "X-Api-Key": ""}},
		{"source, both headers", Options{APIKey: "ignored", Credentials: &countingSource{both: true}},
			map[string]string{"X-Api-Key": "key-1", "Authorization": "Bearer key-1"}},
		{"custom headers without a credential", Options{Headers: custom},
			map[string]string{"X-Team": "infra", "Authorization": "Bearer from-custom", "Anthropic-Version": apiVersion}},
		{"the credential replaces a custom Authorization", Options{APIKey: "t", Headers: custom},
			map[string]string{"X-Team": "infra", "Authorization": "Bearer t"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewAnthropicServer(t, llmtest.Say("ok"))
			tt.opts.BaseURL = srv.URL
			if _, err := New(tt.opts).Stream(t.Context(), basicRequest(llm.UserText("go")), nil); err != nil {
				t.Fatal(err)
			}
			h := srv.Requests()[0].Header
			for k, v := range tt.want {
				if got := h.Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
		})
	}
	if custom.Get("Anthropic-Version") != "1999-01-01" {
		t.Error("New changed the caller's header map")
	}
}

func TestCredentialRefreshedOnceOn401(t *testing.T) {
	unauthorized := llmtest.Fail(401, "authentication_error", "invalid x-api-key")
	tests := []struct {
		name      string
		turns     []llmtest.Turn
		wantErr   bool
		wantKeys  []string
		wantAsked string
	}{
		{"a fresh key passes", []llmtest.Turn{unauthorized, llmtest.Say("ok")}, false, []string{"key-1", "key-2"}, "[false true]"},
		// A second 401 is the answer: the helper is not run again, the request not sent again.
		{"a second 401 is the error", []llmtest.Turn{unauthorized, unauthorized}, true, []string{"key-1", "key-2"}, "[false true]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewAnthropicServer(t, tt.turns...)
			src := &countingSource{}
			_, err := sourceProvider(srv.URL, src).Stream(t.Context(), basicRequest(llm.UserText("go")), nil)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if apiErr, ok := errors.AsType[*llm.APIError](err); tt.wantErr && (!ok || apiErr.StatusCode != 401) {
				t.Errorf("err = %v, want the 401", err)
			}
			var keys []string
			for _, r := range srv.Requests() {
				keys = append(keys, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
			}
			if fmt.Sprint(keys) != fmt.Sprint(tt.wantKeys) {
				t.Errorf("keys sent = %v, want %v", keys, tt.wantKeys)
			}
			if got := src.asks(); got != tt.wantAsked {
				t.Errorf("source asked with refresh %s, want %s", got, tt.wantAsked)
			}
		})
	}
}

func TestFixedKeyNotRetriedOn401(t *testing.T) {
	srv := llmtest.NewAnthropicServer(t, llmtest.Fail(401, "authentication_error", "invalid x-api-key"))
	_, err := newTestProvider(srv.URL, 2, nil).Stream(t.Context(), basicRequest(llm.UserText("go")), nil)
	if apiErr, ok := errors.AsType[*llm.APIError](err); !ok || apiErr.StatusCode != 401 {
		t.Fatalf("err = %v, want the 401", err)
	}
	if n := srv.Served(); n != 1 {
		t.Errorf("%d requests, want 1: a key nobody can refresh is not sent twice", n)
	}
}

func TestCredentialSourceFailure(t *testing.T) {
	tests := []struct {
		name string
		src  *countingSource
		want string
	}{
		{"error", &countingSource{fail: errors.New(`apiKeyHelper "get-key" exited with status 3: vault sealed`)}, "vault sealed"},
		{"empty", &countingSource{empty: true}, "the credential source gave no key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewAnthropicServer(t)
			_, err := sourceProvider(srv.URL, tt.src).Stream(t.Context(), basicRequest(llm.UserText("go")), nil)
			if _, ok := errors.AsType[*CredentialError](err); !ok || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want a CredentialError saying %q", err, tt.want)
			}
			if llm.IsRetryable(err) {
				t.Error("a credential failure is retryable")
			}
			// Not retried: the source was asked once, and nothing went out without a key.
			if got := tt.src.asks(); got != "[false]" || srv.Served() != 0 {
				t.Errorf("asked %s, %d requests sent; want [false] and none", got, srv.Served())
			}
		})
	}
}

// FuzzParseCustomHeaders checks that what the parser accepts can be sent: every name a token,
// no value that could end the header early, and an error never quotes a value.
func FuzzParseCustomHeaders(f *testing.F) {
	f.Add("X-Team: infra\nX-Trace: 1")
	f.Add("Authorization: Bearer secret-value\r\n")
	f.Add("no colon here")
	f.Add("X-A: b\x00secret-value")
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseCustomHeaders(s)
		if err != nil {
			if strings.Contains(err.Error(), "secret-value") {
				t.Fatalf("the error shows a value: %v", err)
			}
			return
		}
		for name, values := range h {
			if !validHeaderName(name) {
				t.Fatalf("accepted name %q", name)
			}
			for _, v := range values {
				if strings.ContainsAny(v, "\r\n\x00") {
					t.Fatalf("accepted value %q", v)
				}
			}
		}
	})
}
