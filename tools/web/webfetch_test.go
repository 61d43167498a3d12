package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

func newEnv(t *testing.T, rules ...permission.Rule) *tool.Env {
	t.Helper()
	pc, err := permission.New(permission.Config{Cwd: t.TempDir(), Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	return &tool.Env{Permissions: func() *permission.Context { return pc }}
}

func fetch(t *testing.T, tl tool.Tool, input Input) tool.Result {
	t.Helper()
	raw, _ := json.Marshal(input)
	in, err := tl.Decode(raw)
	if err != nil {
		return tool.ErrorResult(err.Error())
	}
	env := newEnv(t)
	if fail := tl.ValidateInput(context.Background(), in, env); fail != nil {
		return fail.Result()
	}
	res, err := tl.Call(context.Background(), in, env)
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	return res
}

func TestParseURL(t *testing.T) {
	tests := []struct {
		in, want string // want "" = invalid
	}{
		{"https://example.com/a?b=c", "https://example.com/a?b=c"},
		{"http://example.com/x", "https://example.com/x"},
		{"HTTP://Example.COM/x", "https://example.com/x"}, // the host in its canonical form (hostcanon)
		{"http://localhost:8080/x", "http://localhost:8080/x"},
		{"http://127.0.0.1:9/x", "http://127.0.0.1:9/x"},
		{"http://[::1]:9/x", "http://[::1]:9/x"},
		{"http://10.0.0.1/x", "https://10.0.0.1/x"},
		{"ftp://example.com/x", ""},
		{"example.com", ""},
		{"https://intranet/x", ""},
		{"https://user:pw@example.com/", ""},
		{"https:///path", ""},
		{"https://example.com/" + strings.Repeat("a", MaxURLLength), ""},
		{"mailto:a@example.com", ""},
		{"", ""},
	}
	for _, tt := range tests {
		u, err := ParseURL(tt.in)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("ParseURL(%q) = %v, want an error", tt.in, u)
		case tt.want == "" && !strings.HasPrefix(err.Error(), fmt.Sprintf("invalid URL %q: ", tt.in)):
			t.Errorf("ParseURL(%q) error %q", tt.in, err)
		case tt.want == "":
			// The model reads Claude Code's wording.
			f := validateURL(t.Context(), Input{URL: tt.in}, nil)
			if want := fmt.Sprintf("Error: Invalid URL %q. The URL provided could not be parsed.", tt.in); f == nil || f.Message != want {
				t.Errorf("validateURL(%q) = %v, want %q", tt.in, f, want)
			}
		case tt.want != "" && (err != nil || u.String() != tt.want):
			t.Errorf("ParseURL(%q) = %v, %v; want %s", tt.in, u, err, tt.want)
		}
	}
	// Exactly 2000 characters is fine.
	ok := "https://example.com/" + strings.Repeat("a", MaxURLLength-len("https://example.com/"))
	if _, err := ParseURL(ok); err != nil {
		t.Errorf("2000-character URL refused: %v", err)
	}
}

func TestFetchHTMLToMarkdown(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>T</title><script>evil()</script></head><body><h1>Title</h1><p>Some <b>bold</b> text and a <a href="/doc">link</a>.</p><ul><li>one</li><li>two</li></ul></body></html>`)
	}))
	defer srv.Close()
	res := fetch(t, New(Options{}), Input{URL: srv.URL + "/page", Prompt: "summarise"})
	want := "# Title\n\nSome **bold** text and a [link](" + srv.URL + "/doc).\n\n- one\n- two"
	if res.IsError || res.TextOf() != want {
		t.Errorf("got %q (error %v), want %q", res.TextOf(), res.IsError, want)
	}
	out := res.Output.(Output)
	if out.Code != 200 || out.CodeText != "OK" || out.Bytes == 0 || out.URL != srv.URL+"/page" {
		t.Errorf("output %+v", out)
	}
}

func TestFetchPlainTextAndRefusals(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"a":1}`)
	})
	mux.HandleFunc("/png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n"))
	})
	mux.HandleFunc("/404", http.NotFound)
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		chunk := []byte(strings.Repeat("x", 1<<20))
		for range 11 {
			w.Write(chunk)
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	wf := New(Options{})
	if got := fetch(t, wf, Input{URL: srv.URL + "/json", Prompt: "p"}); got.TextOf() != `{"a":1}` {
		t.Errorf("json: %q", got.TextOf())
	}
	for path, want := range map[string]string{
		"/png":  "the content type image/png is not text",
		"/404":  "request failed with status 404 Not Found",
		"/huge": "the response is larger than the 10 MB limit",
	} {
		res := fetch(t, wf, Input{URL: srv.URL + path, Prompt: "p"})
		if !res.IsError || !strings.Contains(res.TextOf(), want) {
			t.Errorf("%s: got %q (error %v), want %q", path, res.TextOf(), res.IsError, want)
		}
	}
}

func TestFetchRedirects(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "other host")
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/final":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "arrived")
		case r.URL.Path == "/hop":
			http.Redirect(w, r, "/final", http.StatusFound)
		case r.URL.Path == "/away":
			http.Redirect(w, r, other.URL+"/x", http.StatusMovedPermanently)
		case strings.HasPrefix(r.URL.Path, "/loop/"):
			var n int
			fmt.Sscanf(r.URL.Path, "/loop/%d", &n)
			http.Redirect(w, r, fmt.Sprintf("/loop/%d", n+1), http.StatusTemporaryRedirect)
		}
	}))
	defer srv.Close()
	wf := New(Options{})

	if got := fetch(t, wf, Input{URL: srv.URL + "/hop", Prompt: "p"}); got.TextOf() != "arrived" {
		t.Errorf("same-host redirect: %q", got.TextOf())
	}
	res := fetch(t, wf, Input{URL: srv.URL + "/away", Prompt: "what is it"})
	want := fmt.Sprintf(`REDIRECT DETECTED: The URL redirects to a different host.

Original URL: %s/away
Redirect URL: %s/x
Status: 301 Moved Permanently

To complete your request, fetch the content from the redirected URL: use WebFetch again with these parameters:
- url: "%s/x"
- prompt: "what is it"`, srv.URL, other.URL, other.URL)
	if res.IsError || res.TextOf() != want {
		t.Errorf("cross-host redirect:\n%s\nwant:\n%s", res.TextOf(), want)
	}
	res = fetch(t, wf, Input{URL: srv.URL + "/loop/0", Prompt: "p"})
	if !res.IsError || !strings.Contains(res.TextOf(), "too many redirects (exceeded 10)") {
		t.Errorf("redirect loop: %q", res.TextOf())
	}
	// Ten hops are fine: /loop/0 → … → /loop/10 would be the eleventh request's target.
}

func TestPermittedRedirect(t *testing.T) {
	for _, tt := range []struct {
		from, to string
		want     bool
	}{
		{"https://example.com/a", "https://example.com/b", true},
		{"https://example.com/a", "https://www.example.com/b", true},
		{"https://www.example.com/a", "https://EXAMPLE.com/b", true},
		{"https://example.com/a", "http://example.com/b", false},
		{"https://example.com/a", "https://example.com:8443/b", false},
		{"https://example.com/a", "https://evil.com/b", false},
		{"https://example.com/a", "https://sub.example.com/b", false},
		{"https://example.com/a", "https://u:p@example.com/b", false},
	} {
		from, _ := ParseURL(tt.from)
		to, err := from.Parse(tt.to)
		if err != nil {
			t.Fatal(err)
		}
		if got := permittedRedirect(from, to); got != tt.want {
			t.Errorf("%s → %s: %v, want %v", tt.from, tt.to, got, tt.want)
		}
	}
}

func TestFetchCache(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "page %s", r.URL.Path)
	}))
	defer srv.Close()
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	wf := New(Options{Now: clock})

	fetch(t, wf, Input{URL: srv.URL + "/a", Prompt: "p"})
	res := fetch(t, wf, Input{URL: srv.URL + "/a", Prompt: "another prompt"})
	if hits.Load() != 1 || !res.Output.(Output).Cached {
		t.Errorf("second fetch within 15 minutes: %d requests, cached %v", hits.Load(), res.Output.(Output).Cached)
	}
	advance(CacheTTL - time.Second)
	fetch(t, wf, Input{URL: srv.URL + "/a", Prompt: "p"})
	if hits.Load() != 1 {
		t.Errorf("fetched again before the TTL: %d requests", hits.Load())
	}
	advance(2 * time.Second)
	fetch(t, wf, Input{URL: srv.URL + "/a", Prompt: "p"})
	if hits.Load() != 2 {
		t.Errorf("not refetched after the TTL: %d requests", hits.Load())
	}
	// Another tool value has its own cache.
	fetch(t, New(Options{Now: clock}), Input{URL: srv.URL + "/a", Prompt: "p"})
	if hits.Load() != 3 {
		t.Errorf("caches shared between tools: %d requests", hits.Load())
	}
}

func TestCacheIsBounded(t *testing.T) {
	now := time.Now()
	c := newCache(3*(100+64), CacheTTL, func() time.Time { return now })
	for i := range 5 {
		c.put(fmt.Sprint(i), &page{markdown: strings.Repeat("x", 100)})
	}
	if c.len() != 3 {
		t.Errorf("cache holds %d pages, want 3", c.len())
	}
	if _, ok := c.get("0"); ok {
		t.Error("oldest page still cached")
	}
	c.get("2") // used: now the most recent
	c.put("5", &page{markdown: strings.Repeat("x", 100)})
	if _, ok := c.get("2"); !ok {
		t.Error("recently used page evicted")
	}
	if _, ok := c.get("3"); ok {
		t.Error("least recently used page kept")
	}
	c.put("big", &page{markdown: strings.Repeat("x", 10000)})
	if _, ok := c.get("big"); ok {
		t.Error("a page larger than the cache was cached")
	}
}

type fakeSummarizer struct {
	prompt, markdown string
}

func (f *fakeSummarizer) Summarize(_ context.Context, prompt, markdown string) (string, error) {
	f.prompt, f.markdown = prompt, markdown
	return "summary: " + prompt, nil
}

func TestSummarizerAndCap(t *testing.T) {
	long := strings.Repeat("é", MaxMarkdownChars+10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, long)
	}))
	defer srv.Close()

	res := fetch(t, New(Options{}), Input{URL: srv.URL, Prompt: "p"})
	want := strings.Repeat("é", MaxMarkdownChars) + fmt.Sprintf("\n\n[Content truncated: showing the first %d of %d characters.]", MaxMarkdownChars, MaxMarkdownChars+10)
	if res.TextOf() != want {
		t.Errorf("capped Markdown: %d characters, tail %q", len([]rune(res.TextOf())), res.TextOf()[len(res.TextOf())-80:])
	}

	s := &fakeSummarizer{}
	res = fetch(t, New(Options{Summarizer: s}), Input{URL: srv.URL, Prompt: "what language?"})
	if res.TextOf() != "summary: what language?" || s.prompt != "what language?" || len([]rune(s.markdown)) != MaxMarkdownChars {
		t.Errorf("summariser: result %q, got prompt %q and %d characters", res.TextOf(), s.prompt, len([]rune(s.markdown)))
	}
}

type fakeProvider struct{ req *llm.Request }

func (p *fakeProvider) Name() string { return "fake" }
func (p *fakeProvider) Stream(_ context.Context, req *llm.Request, _ func(llm.Event)) (*llm.Response, error) {
	p.req = req
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text(" the answer ")}}}, nil
}

func TestModelSummarizer(t *testing.T) {
	p := &fakeProvider{}
	got, err := ModelSummarizer{Provider: p, Model: "small"}.Summarize(context.Background(), "Q?", "# Page")
	if err != nil || got != "the answer" {
		t.Fatalf("got %q, %v", got, err)
	}
	if p.req.Model != "small" || !strings.Contains(p.req.Messages[0].Text(), "Web page content:\n---\n# Page\n---\n\nQ?\n") {
		t.Errorf("request %+v", p.req)
	}
}

func TestCheckPermissions(t *testing.T) {
	rule := func(b permission.Behavior, content string) permission.Rule {
		return permission.Rule{Value: permission.RuleValue{Tool: Name, Content: content}, Behavior: b, Source: permission.SourceLocal}
	}
	tests := []struct {
		name  string
		rules []permission.Rule
		url   string
		want  permission.Behavior
	}{
		{"no rule passes", nil, "https://example.com/", permission.Passthrough},
		{"exact allow", []permission.Rule{rule(permission.Allow, "domain:example.com")}, "https://example.com/x", permission.Allow},
		{"case-insensitive", []permission.Rule{rule(permission.Allow, "domain:Example.COM")}, "https://EXAMPLE.com/x", permission.Allow},
		{"trailing dot in rule", []permission.Rule{rule(permission.Allow, "domain:example.com.")}, "https://example.com/x", permission.Allow},
		{"trailing dot in URL", []permission.Rule{rule(permission.Allow, "domain:example.com")}, "https://example.com./x", permission.Allow},
		{"wildcard subdomain", []permission.Rule{rule(permission.Allow, "domain:*.example.com")}, "https://docs.example.com/", permission.Allow},
		{"wildcard deep subdomain", []permission.Rule{rule(permission.Allow, "domain:*.example.com")}, "https://a.b.example.com/", permission.Allow},
		{"wildcard not apex", []permission.Rule{rule(permission.Allow, "domain:*.example.com")}, "https://example.com/", permission.Passthrough},
		{"wildcard not suffix", []permission.Rule{rule(permission.Allow, "domain:*.example.com")}, "https://badexample.com/", permission.Passthrough},
		{"other host", []permission.Rule{rule(permission.Allow, "domain:example.com")}, "https://example.org/", permission.Passthrough},
		{"subdomain needs wildcard", []permission.Rule{rule(permission.Allow, "domain:example.com")}, "https://www.example.com/", permission.Passthrough},
		{"deny beats allow", []permission.Rule{rule(permission.Allow, "domain:example.com"), rule(permission.Deny, "domain:*.com")}, "https://example.com/", permission.Deny},
		{"ask beats allow", []permission.Rule{rule(permission.Allow, "domain:example.com"), rule(permission.Ask, "domain:example.com")}, "https://example.com/", permission.Ask},
		{"http upgrade keeps host", []permission.Rule{rule(permission.Allow, "domain:example.com")}, "http://example.com/", permission.Allow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pc, err := permission.New(permission.Config{Cwd: t.TempDir(), Rules: tt.rules})
			if err != nil {
				t.Fatal(err)
			}
			d := CheckPermissions(context.Background(), pc, Input{URL: tt.url})
			if d.Behavior != tt.want {
				t.Fatalf("%s, want %s", d.Behavior, tt.want)
			}
			switch d.Behavior {
			case permission.Deny:
				if !strings.HasPrefix(d.Message, "WebFetch denied access to domain:") {
					t.Errorf("message %q", d.Message)
				}
			case permission.Passthrough:
				if len(d.Suggestions) != 1 || d.Suggestions[0].Destination != permission.SourceLocal ||
					d.Suggestions[0].Rules[0].String() != "WebFetch(domain:"+normalizeHost(mustHost(tt.url))+")" {
					t.Errorf("suggestions %+v", d.Suggestions)
				}
			}
		})
	}
}

func mustHost(u string) string {
	p, err := ParseURL(u)
	if err != nil {
		panic(err)
	}
	return p.Hostname()
}

// TestEngineAsksForUnknownHosts runs the whole pipeline: no rule → ask with the suggestion;
// a deny rule → deny even in bypass mode.
func TestEngineAsksForUnknownHosts(t *testing.T) {
	wf := New(Options{})
	in, err := wf.Decode(json.RawMessage(`{"url":"https://example.com","prompt":"p"}`))
	if err != nil {
		t.Fatal(err)
	}
	var e permission.Engine
	pc, _ := permission.New(permission.Config{Cwd: t.TempDir()})
	d, _ := e.Decide(context.Background(), pc, wf, in)
	if d.Behavior != permission.Ask || d.Message != "Reins requested permissions to use WebFetch, but you haven't granted it yet." || len(d.Suggestions) != 1 {
		t.Errorf("default: %+v", d)
	}
	pc, _ = permission.New(permission.Config{Cwd: t.TempDir(), Mode: permission.ModeBypass, Rules: []permission.Rule{
		{Value: permission.RuleValue{Tool: Name, Content: "domain:example.com"}, Behavior: permission.Deny, Source: permission.SourceProject}}})
	if d, _ := e.Decide(context.Background(), pc, wf, in); d.Behavior != permission.Deny {
		t.Errorf("bypass with deny rule: %s", d.Behavior)
	}
}

func TestWebFetchFlags(t *testing.T) {
	wf := New(Options{})
	in, _ := wf.Decode(json.RawMessage(`{"url":"https://example.com","prompt":"p"}`))
	if !wf.Is(tool.ReadOnly, in) || !wf.Is(tool.ConcurrencySafe, in) || !wf.Spec().Defer || !wf.Is(tool.OpenWorld, in) {
		t.Error("WebFetch should be read-only, concurrency-safe, deferred and open-world")
	}
}
