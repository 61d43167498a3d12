package serve

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tools"
	"github.com/reinsdev/reins/tools/bash"
)

// project is a temporary project directory with a file to read.
func project(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// newServer serves the built-in tools for a session in dir with the given mode and allow rules.
func newServer(t *testing.T, dir string, mode permission.Mode, allow ...string) *Server {
	t.Helper()
	var rules []permission.Rule
	for _, r := range allow {
		rules = append(rules, permission.Rule{Value: permission.ParseRule(r), Behavior: permission.Allow, Source: permission.SourceCLIArg})
	}
	pc, err := permission.New(permission.Config{Cwd: dir, Mode: mode, Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	getenv := func(string) string { return "" }
	s, err := New(t.Context(), Options{
		Name: "reins-test", Version: "0", Permissions: pc,
		NewToolset: func(perms func() *permission.Context) Toolset {
			sh := bash.New(bash.Options{Permissions: perms, KillGrace: 500 * time.Millisecond})
			base := tools.Base(tools.Options{Shell: sh, Getenv: getenv, NoRipgrep: true}).Tools
			return Toolset{Tools: tools.Assemble(pc, base, nil, getenv), Cwd: sh.Cwd, Close: sh.Close}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// connect connects a go-sdk client to s in memory.
func connect(t *testing.T, s *Server, opts *mcp.ClientOptions, roots ...*mcp.Root) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.connect(t.Context(), st)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "0"}, opts)
	client.AddRoots(roots...)
	cs, err := client.Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

func fileURI(p string) string { return (&url.URL{Scheme: "file", Path: p}).String() }

func TestToolsListAnnotations(t *testing.T) {
	s := newServer(t, project(t), permission.ModeDefault)
	cs := connect(t, s, nil)
	got := map[string]*mcp.Tool{}
	for tl, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		got[tl.Name] = tl
	}
	tests := []struct {
		name                                         string
		readOnly, destructive, idempotent, openWorld bool
	}{
		{"Read", true, false, true, false},
		{"Write", false, true, false, false},
		{"Bash", false, true, false, true},
		{"WebFetch", true, false, true, true},
	}
	for _, tt := range tests {
		tl := got[tt.name]
		if tl == nil || tl.Annotations == nil {
			t.Errorf("%s: missing or without annotations", tt.name)
			continue
		}
		a := tl.Annotations
		if a.ReadOnlyHint != tt.readOnly || *a.DestructiveHint != tt.destructive || a.IdempotentHint != tt.idempotent || *a.OpenWorldHint != tt.openWorld {
			t.Errorf("%s: annotations %+v (destructive %v, openWorld %v), want readOnly %v destructive %v idempotent %v openWorld %v",
				tt.name, a, *a.DestructiveHint, *a.OpenWorldHint, tt.readOnly, tt.destructive, tt.idempotent, tt.openWorld)
		}
		if tl.Title == "" || tl.InputSchema == nil {
			t.Errorf("%s: no title or input schema", tt.name)
		}
	}
	for _, name := range conversationTools {
		if got[name] != nil {
			t.Errorf("%s is served; it belongs to the client's own conversation", name)
		}
	}
}

func TestDenyNamesTheRule(t *testing.T) {
	dir := project(t)
	pc, err := permission.New(permission.Config{Cwd: dir, Rules: []permission.Rule{
		{Value: permission.ParseRule("Bash(rm:*)"), Behavior: permission.Deny, Source: permission.SourceCLIArg}}})
	if err != nil {
		t.Fatal(err)
	}
	getenv := func(string) string { return "" }
	s, err := New(t.Context(), Options{Permissions: pc, NewToolset: func(perms func() *permission.Context) Toolset {
		b := tools.Base(tools.Options{Getenv: getenv, NoRipgrep: true})
		return Toolset{Tools: tools.Assemble(pc, b.Tools, nil, getenv), Close: b.Close}
	}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s, nil)
	text, isErr := call(t, cs, "Bash", map[string]any{"command": "rm a.txt"})
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); err != nil {
		t.Fatal("the denied command ran")
	}
	if !isErr || !strings.Contains(text, `"Bash(rm:*)"`) {
		t.Errorf("denied Read: isError %v, %q; want an error naming the rule", isErr, text)
	}
}

// elicitClient answers every elicitation with choice (or declines when choice is ""), and
// counts them.
func elicitClient(choice string, asked *atomic.Int32, offered *[]any) *mcp.ClientOptions {
	var mu sync.Mutex
	return &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked.Add(1)
		if !strings.Contains(req.Params.Message, "Reins asks before running Bash") || !strings.Contains(req.Params.Message, "Reason: ") {
			return nil, fmt.Errorf("the question lacks the call or the engine's reason: %q", req.Params.Message)
		}
		if offered != nil {
			schema, _ := req.Params.RequestedSchema.(map[string]any)
			props, _ := schema["properties"].(map[string]any)
			dec, _ := props["decision"].(map[string]any)
			mu.Lock()
			*offered, _ = dec["enum"].([]any)
			mu.Unlock()
		}
		if choice == "" {
			return &mcp.ElicitResult{Action: "decline"}, nil
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": choice}}, nil
	}}
}

func TestElicitation(t *testing.T) {
	tests := []struct {
		name    string
		choice  string
		wantRun bool
	}{
		{"accepted once", choiceOnce, true},
		{"declined", "", false},
		{"answered deny", choiceDeny, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := project(t)
			cs := connect(t, newServer(t, dir, permission.ModeDefault), elicitClient(tt.choice, new(atomic.Int32), nil))
			text, isErr := call(t, cs, "Bash", map[string]any{"command": "echo hi > out.txt"})
			_, statErr := os.Stat(filepath.Join(dir, "out.txt"))
			if ran := statErr == nil; ran != tt.wantRun || isErr == tt.wantRun {
				t.Errorf("ran %v isError %v (%q), want ran %v", ran, isErr, text, tt.wantRun)
			}
			if !tt.wantRun && !strings.Contains(text, "doesn't want to proceed") {
				t.Errorf("declined call: %q, want the rejection message", text)
			}
		})
	}
}

func TestElicitationForThisSession(t *testing.T) {
	dir := project(t)
	var asked atomic.Int32
	var offered []any
	cs := connect(t, newServer(t, dir, permission.ModeDefault), elicitClient(choiceSession, &asked, &offered))
	// Any write in the working directory asks in default mode; the engine suggests the
	// session rule (or mode) that would let it through.
	for i := range 2 {
		text, isErr := call(t, cs, "Bash", map[string]any{"command": "mkdir -p d"})
		if isErr {
			t.Fatalf("call %d: %q", i, text)
		}
	}
	if fmt.Sprint(offered) != "[once session deny]" {
		t.Fatalf("offered %v, want once, session, deny", offered)
	}
	if n := asked.Load(); n != 1 {
		t.Errorf("asked %d times; the session answer should cover the second call", n)
	}
	// Another client has its own session rules and is asked again.
	var asked2 atomic.Int32
	other := connect(t, newServer(t, dir, permission.ModeDefault), elicitClient(choiceOnce, &asked2, nil))
	call(t, other, "Bash", map[string]any{"command": "mkdir d9"})
	if asked2.Load() != 1 {
		t.Errorf("a second client was asked %d times, want 1", asked2.Load())
	}
}

func TestNoElicitationDeniesWithHint(t *testing.T) {
	dir := project(t)
	cs := connect(t, newServer(t, dir, permission.ModeDefault), nil)
	text, isErr := call(t, cs, "Bash", map[string]any{"command": "echo hi > out.txt"})
	if !isErr || !strings.Contains(text, "does not declare elicitation") || !strings.Contains(text, "--allowedTools") {
		t.Errorf("isError %v, %q; want a deny with the hint", isErr, text)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.txt")); err == nil {
		t.Error("the command ran")
	}
}

// sleepers lists the processes running `sleep arg`.
func sleepers(t *testing.T, arg string) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc to look for processes: %v", err)
	}
	var out []string
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Equal(b, []byte("sleep\x00"+arg+"\x00")) {
			out = append(out, e.Name())
		}
	}
	return out
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestCancelKillsTheCall(t *testing.T) {
	dir := project(t)
	arg := fmt.Sprintf("30.%d", os.Getpid()%100000)
	var progress atomic.Int32
	cs := connect(t, newServer(t, dir, permission.ModeDefault, "Bash(sleep:*)"), &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { progress.Add(1) },
	})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "Bash", Arguments: map[string]any{"command": "sleep " + arg}}
		params.SetProgressToken("tok")
		_, err := cs.CallTool(ctx, params)
		done <- err
	}()
	waitFor(t, "sleep to start", func() bool { return len(sleepers(t, arg)) > 0 })
	waitFor(t, "a progress notification", func() bool { return progress.Load() > 0 })
	cancel()
	if err := <-done; err == nil {
		t.Error("the cancelled call returned no error")
	}
	waitFor(t, "sleep to be killed", func() bool { return len(sleepers(t, arg)) == 0 })
	// The session still works after a cancelled call.
	if text, isErr := call(t, cs, "Read", map[string]any{"file_path": filepath.Join(dir, "a.txt")}); isErr {
		t.Errorf("Read after cancel: %q", text)
	}
}

func TestClientsKeepSeparateFileState(t *testing.T) {
	dir := project(t)
	s := newServer(t, dir, permission.ModeAcceptEdits)
	a, b := connect(t, s, nil), connect(t, s, nil)
	path := filepath.Join(dir, "a.txt")
	if text, isErr := call(t, a, "Read", map[string]any{"file_path": path}); isErr {
		t.Fatalf("Read: %q", text)
	}
	edit := map[string]any{"file_path": path, "old_string": "hello", "new_string": "bye"}
	if text, isErr := call(t, b, "Edit", edit); !isErr || !strings.Contains(text, "not been read") {
		t.Errorf("Edit by the client that read nothing: isError %v, %q; want the read-first error", isErr, text)
	}
	if text, isErr := call(t, a, "Edit", edit); isErr {
		t.Errorf("Edit by the client that read the file: %q", text)
	}
	if s.sessions() != 2 {
		t.Errorf("%d sessions, want 2", s.sessions())
	}
}

func TestRoots(t *testing.T) {
	parent := t.TempDir()
	if r, err := filepath.EvalSymlinks(parent); err == nil {
		parent = r
	}
	proj, other := filepath.Join(parent, "proj"), filepath.Join(parent, "other")
	for _, d := range []string{filepath.Join(proj, "sub"), other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(proj, "a.txt"), filepath.Join(proj, "sub", "b.txt"), filepath.Join(other, "c.txt")} {
		if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := newServer(t, proj, permission.ModeDefault)

	t.Run("outside refused", func(t *testing.T) {
		cs := connect(t, s, nil, &mcp.Root{URI: fileURI(other)})
		text, isErr := call(t, cs, "Read", map[string]any{"file_path": filepath.Join(other, "c.txt")})
		if !isErr || !strings.Contains(text, "outside the server's working directories") {
			t.Errorf("Read under a root outside the configured dirs: isError %v, %q", isErr, text)
		}
	})
	t.Run("inside narrows", func(t *testing.T) {
		cs := connect(t, s, nil, &mcp.Root{URI: fileURI(filepath.Join(proj, "sub"))}, &mcp.Root{URI: fileURI(other)})
		if text, isErr := call(t, cs, "Read", map[string]any{"file_path": filepath.Join(proj, "sub", "b.txt")}); isErr {
			t.Errorf("Read inside the root: %q", text)
		}
		// The rest of the project is outside the client's roots: no longer a working dir.
		if text, isErr := call(t, cs, "Read", map[string]any{"file_path": filepath.Join(proj, "a.txt")}); !isErr {
			t.Errorf("Read outside the roots ran: %q", text)
		}
		if text, isErr := call(t, cs, "Read", map[string]any{"file_path": filepath.Join(other, "c.txt")}); !isErr {
			t.Errorf("Read under the refused root ran: %q", text)
		}
	})
	t.Run("roots changed", func(t *testing.T) {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.connect(t.Context(), st)
		if err != nil {
			t.Fatal(err)
		}
		client := mcp.NewClient(&mcp.Implementation{Name: "roots-client", Version: "0"}, nil)
		client.AddRoots(&mcp.Root{URI: fileURI(filepath.Join(proj, "sub"))})
		cs, err := client.Connect(t.Context(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { cs.Close(); ss.Wait() }()
		a := map[string]any{"file_path": filepath.Join(proj, "a.txt")}
		if _, isErr := call(t, cs, "Read", a); !isErr {
			t.Fatal("Read outside the root ran")
		}
		client.AddRoots(&mcp.Root{URI: fileURI(proj)})
		waitFor(t, "the new root to apply", func() bool { _, isErr := call(t, cs, "Read", a); return !isErr })
	})
	t.Run("no roots keeps the configured dirs", func(t *testing.T) {
		cs := connect(t, s, nil)
		if text, isErr := call(t, cs, "Read", map[string]any{"file_path": filepath.Join(proj, "a.txt")}); isErr {
			t.Errorf("Read: %q", text)
		}
	})
}

// bearer adds a token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func TestHTTPToken(t *testing.T) {
	dir := project(t)
	s := newServer(t, dir, permission.ModeDefault)
	hs := httptest.NewServer(s.Handler("s3cret"))
	defer hs.Close()

	for _, auth := range []string{"", "Bearer wrong", "s3cret"} {
		req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("Authorization %q: status %d, want 401", auth, resp.StatusCode)
		}
	}

	req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer s3cret")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a cross-origin browser request with the token: status %d, want 403", resp.StatusCode)
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "http-client", Version: "0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: &http.Client{Transport: bearer{"s3cret"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if text, isErr := call(t, cs, "Read", map[string]any{"file_path": filepath.Join(dir, "a.txt")}); isErr || !strings.Contains(text, "hello") {
		t.Errorf("Read over HTTP with the token: %q", text)
	}

	// Elicitation works over HTTP too: the question travels on the call's event stream.
	var asked atomic.Int32
	ec := mcp.NewClient(&mcp.Implementation{Name: "http-elicit", Version: "0"}, elicitClient(choiceOnce, &asked, nil))
	ecs, err := ec.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: &http.Client{Transport: bearer{"s3cret"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ecs.Close()
	if text, isErr := call(t, ecs, "Bash", map[string]any{"command": "echo hi > http.txt"}); isErr || asked.Load() != 1 {
		t.Errorf("Bash write over HTTP, approved by elicitation: isError %v asked %d, %q", isErr, asked.Load(), text)
	}
	if _, err := os.Stat(filepath.Join(dir, "http.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
}

// BenchmarkCallRead is one tools/call Read through the whole pipeline over an in-memory
// connection: JSON-RPC both ways, schema validation, the permission decision, the read.
func BenchmarkCallRead(b *testing.B) {
	dir := b.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	pc, err := permission.New(permission.Config{Cwd: dir})
	if err != nil {
		b.Fatal(err)
	}
	getenv := func(string) string { return "" }
	s, err := New(b.Context(), Options{Permissions: pc, NewToolset: func(func() *permission.Context) Toolset {
		b := tools.Base(tools.Options{Getenv: getenv, NoRipgrep: true})
		return Toolset{Tools: tools.Assemble(pc, b.Tools, nil, getenv), Close: b.Close}
	}})
	if err != nil {
		b.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.connect(b.Context(), st)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(b.Context(), ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	params := &mcp.CallToolParams{Name: "Read", Arguments: map[string]any{"file_path": filepath.Join(dir, "a.txt")}}
	for b.Loop() {
		res, err := cs.CallTool(b.Context(), params)
		if err != nil || res.IsError {
			b.Fatalf("Read: %v %+v", err, res)
		}
	}
}

// TestHTTPDeleteCancelsTheSessionsCalls: a DELETE of a streamable-HTTP session cancels its
// running calls (the Bash command is killed) and returns, where the go-sdk alone waits for
// them to end by themselves; a call of another session goes on.
func TestHTTPDeleteCancelsTheSessionsCalls(t *testing.T) {
	dir := project(t)
	s := newServer(t, dir, permission.ModeDefault, "Bash(sleep:*)")
	hs := httptest.NewServer(s.Handler("s3cret"))
	t.Cleanup(hs.Close) // after the sessions' Close, which end their streams
	connectHTTP := func() *mcp.ClientSession {
		client := mcp.NewClient(&mcp.Implementation{Name: "http-client", Version: "0"}, nil)
		cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: &http.Client{Transport: bearer{"s3cret"}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	doomed, other := connectHTTP(), connectHTTP()
	pid := os.Getpid() % 100000
	arg, otherArg := fmt.Sprintf("3600.%d", pid), fmt.Sprintf("3601.%d", pid)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	for _, c := range []struct {
		cs  *mcp.ClientSession
		arg string
	}{{doomed, arg}, {other, otherArg}} {
		go func() {
			_, _ = c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "Bash", Arguments: map[string]any{"command": "sleep " + c.arg}})
		}()
	}
	waitFor(t, "both sleeps to start", func() bool { return len(sleepers(t, arg)) > 0 && len(sleepers(t, otherArg)) > 0 })
	t.Cleanup(func() {
		// When the test fails the sleeps are still there, and the sessions' Close would wait
		// for them: end them first.
		for _, a := range []string{arg, otherArg} {
			for _, p := range sleepers(t, a) {
				if n, err := strconv.Atoi(p); err == nil {
					if p, err := os.FindProcess(n); err == nil {
						_ = p.Kill()
					}
				}
			}
		}
	})

	deleted := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodDelete, hs.URL, nil)
		req.Header.Set("Authorization", "Bearer s3cret")
		req.Header.Set("Mcp-Session-Id", doomed.ID())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			deleted <- -1
			return
		}
		resp.Body.Close()
		deleted <- resp.StatusCode
	}()
	waitFor(t, "the deleted session's sleep to be killed", func() bool { return len(sleepers(t, arg)) == 0 })
	if code := <-deleted; code != http.StatusNoContent {
		t.Errorf("DELETE answered %d, want 204", code)
	}
	if len(sleepers(t, otherArg)) == 0 {
		t.Error("the other session's call was stopped too")
	}
	cancel()
	waitFor(t, "the other sleep to be killed by its own cancel", func() bool { return len(sleepers(t, otherArg)) == 0 })
}
