package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpServer serves a go-sdk server with one tool over streamable HTTP or SSE, and records
// the Authorization headers it saw.
func httpServer(t *testing.T, sse bool) (url string, auth func() []string) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "web", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "hello", Description: "Says hello.", InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("hello over http"), nil
		})
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	if sse {
		h = mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	}
	var mu sync.Mutex
	var seen []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), seen...) }
}

func TestHTTPAndSSETransports(t *testing.T) {
	for _, typ := range []string{TypeHTTP, TypeSSE} {
		t.Run(typ, func(t *testing.T) {
			url, auth := httpServer(t, typ == TypeSSE)
			e := Entry{State: StateReady, Config: ServerConfig{Name: "web", Type: typ, URL: "${BASE}",
				Headers: map[string]string{"Authorization": "Bearer ${TOKEN:-none}"}}}
			env := map[string]string{"BASE": url, "TOKEN": "s3cret"}
			m := start(t, Options{Getenv: func(k string) string { return env[k] }}, e)
			if st := m.Status()[0]; st.State != StateConnected || st.Tools != 1 {
				t.Fatalf("status = %+v", st)
			}
			if got := run(t, find(t, m.Tools(), "mcp__web__hello"), `{}`).TextOf(); got != "hello over http" {
				t.Errorf("result = %q", got)
			}
			for _, a := range auth() {
				if a != "Bearer s3cret" {
					t.Errorf("Authorization = %q", a)
				}
			}
			if len(auth()) == 0 {
				t.Error("no requests seen")
			}
		})
	}
}
