package anthropic

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm"
)

// TestEndpoint: the base URL's path is a folder v1/messages is put in, as the SDK took it.
func TestEndpoint(t *testing.T) {
	tests := []struct{ base, want string }{
		{"", "https://api.anthropic.com/v1/messages"},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080/v1/messages"},
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8080/v1/messages"},
		{"https://proxy.example/anthropic", "https://proxy.example/anthropic/v1/messages"},
		{"https://proxy.example/anthropic/", "https://proxy.example/anthropic/v1/messages"},
	}
	for _, tt := range tests {
		if got, err := endpoint(tt.base); err != nil || got != tt.want {
			t.Errorf("endpoint(%q) = %q, %v; want %q", tt.base, got, err, tt.want)
		}
	}
	_, err := New(Options{BaseURL: "http://[::1"}).Stream(t.Context(), basicRequest(llm.UserText("go")), nil)
	if err == nil || !strings.Contains(err.Error(), "base URL") {
		t.Errorf("bad base URL: error %v", err)
	}
}

// TestErrorBodies: the type and message come from the API's error shape; any other body
// is the message, cut to 300 bytes; the request id and the status are kept.
func TestErrorBodies(t *testing.T) {
	long := strings.Repeat("é", 400)
	tests := []struct {
		name, body        string
		wantType, wantMsg string
	}{
		{"API shape", `{"type":"error","error":{"type":"not_found_error","message":"model: nope"}}`, "not_found_error", "model: nope"},
		{"no message", `{"type":"error","error":{"type":"api_error"}}`, "api_error", `{"type":"error","error":{"type":"api_error"}}`},
		{"long text", long, "", long[:300] + "…"},
		{"empty", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("request-id", "req_42")
				w.WriteHeader(http.StatusNotFound)
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			_, err := newTestProvider(srv.URL, -1, nil).Stream(t.Context(), basicRequest(llm.UserText("go")), nil)
			apiErr, ok := errors.AsType[*llm.APIError](err)
			if !ok {
				t.Fatalf("error %v (%T)", err, err)
			}
			if apiErr.StatusCode != 404 || apiErr.Type != tt.wantType || apiErr.Message != tt.wantMsg || apiErr.RequestID != "req_42" || apiErr.Provider != "anthropic" {
				t.Errorf("APIError = %+v", apiErr)
			}
		})
	}
}
