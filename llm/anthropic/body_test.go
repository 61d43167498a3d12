package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"
	"github.com/google/go-cmp/cmp"

	"github.com/reinsdev/reins/llm"
)

// bodyRecorder is an API that records each request body and answers with an error, so that
// no retry or stream follows.
type bodyRecorder struct {
	*httptest.Server
	mu      sync.Mutex
	bodies  [][]byte
	headers []http.Header
}

func newBodyRecorder(t testing.TB) *bodyRecorder {
	r := &bodyRecorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.bodies = append(r.bodies, b)
		r.headers = append(r.headers, req.Header.Clone())
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"type":"error","error":{"type":"invalid_request_error","message":"recorded"}}`)
	}))
	t.Cleanup(r.Close)
	return r
}

// lastHeader is the last request's headers, without those that name the client: the
// SDK's User-Agent and X-Stainless-* telemetry, which the adapter does not send.
func (r *bodyRecorder) lastHeader() http.Header {
	h := r.lastRawHeader()
	for k := range h {
		if strings.HasPrefix(k, "X-Stainless-") || k == "User-Agent" {
			delete(h, k)
		}
	}
	return h
}

func (r *bodyRecorder) lastRawHeader() http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.headers[len(r.headers)-1].Clone()
}

func (r *bodyRecorder) last() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bodies[len(r.bodies)-1]
}

// sdkPathBody sends req the way the adapter did before the static part was cached: the whole
// request as SDK params through Messages.NewStreaming, which encodes it and sets "stream".
// It is the reference the cached path must match byte for byte.
func sdkPathBody(t *testing.T, rec *bodyRecorder, req *llm.Request) []byte {
	t.Helper()
	params, opts, err := sdkParams(req)
	if err != nil {
		t.Fatal(err)
	}
	client := sdk.NewClient(option.WithoutEnvironmentDefaults(), option.WithMaxRetries(0), option.WithAPIKey("k"), option.WithBaseURL(rec.URL))
	stream := client.Messages.NewStreaming(context.Background(), params, opts...)
	for stream.Next() {
	}
	stream.Close()
	return rec.last()
}

// sdkParams is the adapter's former translation of a request into the SDK's params.
func sdkParams(req *llm.Request) (sdk.MessageNewParams, []option.RequestOption, error) {
	params := sdk.MessageNewParams{Model: req.Model, MaxTokens: int64(req.MaxTokens), StopSequences: req.StopSequences}
	if req.ThinkingBudget != 0 {
		// The SDK sends any budget; the API refuses these, and so does the adapter, before.
		if req.ThinkingBudget < 1024 || req.ThinkingBudget >= req.MaxTokens || (req.Temperature != nil && *req.Temperature != 1) {
			return params, nil, fmt.Errorf("thinking budget %d with max tokens %d", req.ThinkingBudget, req.MaxTokens)
		}
		params.Thinking = sdk.ThinkingConfigParamOfEnabled(int64(req.ThinkingBudget))
	}
	var explicit []bool
	for _, b := range req.System {
		if b.Text == "" {
			continue
		}
		params.System = append(params.System, sdk.TextBlockParam{Text: b.Text})
		explicit = append(explicit, b.CacheBreakpoint)
	}
	for _, t := range req.Tools {
		schema := t.InputSchema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		tool := &sdk.ToolParam{Name: t.Name, InputSchema: param.Override[sdk.ToolInputSchemaParam](schema)}
		if t.Description != "" {
			tool.Description = sdk.String(t.Description)
		}
		params.Tools = append(params.Tools, sdk.ToolUnionParam{OfTool: tool})
	}
	for i, m := range req.Messages {
		content, err := convertBlocks(m.Role, m.Content)
		if err != nil {
			return params, nil, fmt.Errorf("message %d: %w", i, err)
		}
		if m.Role == llm.RoleUser {
			params.Messages = append(params.Messages, sdk.MessageParam{OfUser: &sdk.UserMessageParam{Content: content}})
		} else {
			params.Messages = append(params.Messages, sdk.MessageParam{OfAssistant: &sdk.AssistantMessageParam{Content: content}})
		}
	}
	if req.Cache == llm.CacheAuto {
		budget := maxBreakpoints
		if n := len(params.Tools); n > 0 {
			params.Tools[n-1].OfTool.CacheControl = sdk.NewCacheControlEphemeralParam()
			budget--
		}
		if n := len(params.System); n > 0 {
			params.System[n-1].CacheControl = sdk.NewCacheControlEphemeralParam()
			budget--
		}
		for i := len(params.Messages) - 1; i >= 0; i-- {
			u := params.Messages[i].OfUser
			if u == nil {
				continue
			}
			if n := len(u.Content); n > 0 {
				if cc := u.Content[n-1].GetCacheControl(); cc != nil {
					*cc = sdk.NewCacheControlEphemeralParam()
					budget--
				}
			}
			break
		}
		for i := len(params.System) - 2; i >= 0 && budget > 0; i-- {
			if explicit[i] {
				params.System[i].CacheControl = sdk.NewCacheControlEphemeralParam()
				budget--
			}
		}
	}
	var opts []option.RequestOption
	if req.Temperature != nil {
		opts = append(opts, option.WithJSONSet("temperature", *req.Temperature))
	}
	return params, opts, nil
}

// bigTools is a tool set the size of the built-in one, with what JSON encoders treat
// specially in descriptions and schemas: HTML characters, U+2028, invalid UTF-8, escapes,
// white space between tokens.
func bigTools(n int) []llm.ToolSpec {
	var tools []llm.ToolSpec
	for i := range n {
		tools = append(tools, llm.ToolSpec{
			Name:        fmt.Sprintf("Tool%d", i),
			Description: strings.Repeat(fmt.Sprintf("Tool %d does <things> & \"stuff\" — ünïcode\n\t\u2028\xff", i), 20),
			InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object",
				"properties":{"path":{"type":"string","description":"a <path> & more \u00e9 %s é","default":"x","pattern":"^[<>]\\d+$"},
				  "n":{"type":"integer","minimum":%d, "maximum": 1e3}},
				"required":["path"],"additionalProperties":false}`, "\u2028", i)),
		})
	}
	return tools
}

// TestRequestBodyMatchesSDK: the body sent with the cached tools and system prompt is byte for
// byte the body the SDK builds from the whole request, for each kind of request, and stays so
// across requests of one provider while the conversation grows and the tool set changes.
func TestRequestBodyMatchesSDK(t *testing.T) {
	temp, one := 0.7, 1.0
	thinkingConversation := []llm.Message{
		llm.UserText("think <hard>"),
		{Role: llm.RoleAssistant, Content: []llm.Block{
			llm.Thinking("Let me see: a < b && \u2028 \"quoted\"\n", "EqQBCkgIARABGAIiQL+/sig=="),
			llm.RedactedThinking("EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"),
			llm.Thinking("", "sig-only"),
			llm.ToolUse("t1", "Tool1", json.RawMessage(`{"path":"a"}`)),
		}},
		{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult("t1", []llm.Block{llm.Text("out")}, false)}},
	}
	conversation := []llm.Message{
		llm.UserText("first <question> & more"),
		{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("calling"), llm.ToolUse("t1", "Tool1", json.RawMessage(`{"path":"a"}`)), llm.ToolUse("t2", "Tool2", nil)}},
		{Role: llm.RoleUser, Content: []llm.Block{
			llm.ToolResult("t1", []llm.Block{llm.Text("out"), {Type: llm.BlockImage, MediaType: "image/png", Data: "iVBORw0KGgo="}}, false),
			llm.ToolResult("t2", []llm.Block{llm.Text("bad")}, true),
			llm.Text("and also this"),
		}},
	}
	tests := []struct {
		name string
		req  llm.Request
	}{
		{"nothing static", llm.Request{Messages: conversation[:1]}},
		{"system only", llm.Request{System: llm.SystemText("sys <&> \u2028 \xff é"), Messages: conversation}},
		{"tools only", llm.Request{Tools: bigTools(3), Messages: conversation}},
		{"many tools", llm.Request{System: llm.SystemText("You are <reins>."), Tools: bigTools(40), Messages: conversation}},
		{"empty schema and description", llm.Request{Tools: []llm.ToolSpec{{Name: "Bare"}}, Messages: conversation[:1]}},
		{"explicit breakpoints", llm.Request{
			System:   []llm.SystemBlock{{Text: "a", CacheBreakpoint: true}, {Text: ""}, {Text: "b", CacheBreakpoint: true}, {Text: "c"}},
			Tools:    bigTools(2),
			Messages: conversation,
		}},
		{"explicit breakpoints, assistant last", llm.Request{
			System:   []llm.SystemBlock{{Text: "a", CacheBreakpoint: true}, {Text: "b", CacheBreakpoint: true}, {Text: "c"}},
			Tools:    bigTools(2),
			Messages: conversation[:2],
		}},
		{"cache off", llm.Request{System: llm.SystemText("sys"), Tools: bigTools(2), Messages: conversation, Cache: llm.CacheOff}},
		{"temperature and stop sequences", llm.Request{System: llm.SystemText("sys"), Tools: bigTools(2), Messages: conversation,
			Temperature: &temp, StopSequences: []string{"</done>", "STOP"}}},
		{"thinking", llm.Request{System: llm.SystemText("sys"), Tools: bigTools(2), Messages: thinkingConversation, ThinkingBudget: 1024}},
		{"thinking, no system or tools", llm.Request{Messages: thinkingConversation, ThinkingBudget: 1024}},
		{"thinking blocks sent back without a budget", llm.Request{System: llm.SystemText("sys"), Messages: thinkingConversation}},
		{"thinking with temperature 1", llm.Request{Tools: bigTools(1), Messages: thinkingConversation, ThinkingBudget: 4096, Temperature: &one}},
	}
	rec := newBodyRecorder(t)
	p := New(Options{APIKey: "k", BaseURL: rec.URL, MaxRetries: -1})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := tt.req
			req.Model, req.MaxTokens = "claude-test-1", 8000
			// Twice: the first request encodes the static part, the second reuses it.
			for range 2 {
				want := sdkPathBody(t, rec, &req)
				wantHeader := rec.lastHeader()
				p.Stream(t.Context(), &req, nil)
				if got := rec.last(); !bytes.Equal(got, want) {
					t.Fatalf("body differs from the SDK's\n got: %s\nwant: %s", got, want)
				}
				if diff := cmp.Diff(wantHeader, rec.lastHeader()); diff != "" {
					t.Fatalf("headers differ from the SDK's (-want +got):\n%s", diff)
				}
				raw := rec.lastRawHeader()
				for k := range raw {
					if strings.HasPrefix(k, "X-Stainless-") {
						t.Errorf("telemetry header %s sent", k)
					}
				}
				if ua := raw.Get("User-Agent"); ua != "reins" {
					t.Errorf("User-Agent = %q", ua)
				}
			}
		})
	}

	// One session: tools arrive (an MCP server connects) and a deferred tool is loaded midway.
	req := llm.Request{Model: "m", MaxTokens: 100, System: llm.SystemText("sys"), Tools: bigTools(5)}
	for turn := range 6 {
		req.Messages = append(req.Messages, conversation[turn%len(conversation)])
		switch turn {
		case 2:
			req.Tools = append(bigTools(5), llm.ToolSpec{Name: "mcp__srv__x", Description: "from MCP", InputSchema: json.RawMessage(`{"type":"object"}`)})
		case 4:
			tools := bigTools(6)
			tools[5].InputSchema = json.RawMessage(`{"type":"object","properties":{"changed":{"type":"boolean"}}}`)
			req.Tools = tools
		}
		want := sdkPathBody(t, rec, &req)
		p.Stream(t.Context(), &req, nil)
		if got := rec.last(); !bytes.Equal(got, want) {
			t.Fatalf("turn %d: body differs from the SDK's\n got: %s\nwant: %s", turn, got, want)
		}
	}
}

// TestPrefixCacheInvalidation: a change of any tool's name, description or schema, of the
// system prompt, of the cache mode or of the thinking budget gives a new static part; the same content in new slices
// does not.
func TestPrefixCacheInvalidation(t *testing.T) {
	var c prefixCache
	sys := func() []llm.SystemBlock { return []llm.SystemBlock{{Text: "s"}, {Text: "u"}} }
	think := 0
	get := func(system []llm.SystemBlock, tools []llm.ToolSpec, mode llm.CacheMode) []byte {
		t.Helper()
		b, err := c.get(&staticKey{system: system, tools: tools, cache: mode, budget: 1, think: think})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	first := get(sys(), bigTools(3), llm.CacheAuto)
	if same := get(sys(), bigTools(3), llm.CacheAuto); &same[0] != &first[0] {
		t.Error("equal tools in new slices were encoded again")
	}
	tools := func(change func([]llm.ToolSpec)) []llm.ToolSpec { ts := bigTools(3); change(ts); return ts }
	changes := map[string][]byte{
		"name":        get(sys(), tools(func(ts []llm.ToolSpec) { ts[1].Name = "X" }), llm.CacheAuto),
		"description": get(sys(), tools(func(ts []llm.ToolSpec) { ts[2].Description += "." }), llm.CacheAuto),
		"schema":      get(sys(), tools(func(ts []llm.ToolSpec) { ts[0].InputSchema = json.RawMessage(`{"type":"object"}`) }), llm.CacheAuto),
		"tool added":  get(sys(), bigTools(4), llm.CacheAuto),
		"system":      get([]llm.SystemBlock{{Text: "s"}, {Text: "v"}}, bigTools(3), llm.CacheAuto),
		"cache mode":  get(sys(), bigTools(3), llm.CacheOff),
		"breakpoints": get([]llm.SystemBlock{{Text: "s", CacheBreakpoint: true}, {Text: "u"}}, bigTools(3), llm.CacheAuto),
	}
	think = 2048
	changes["thinking budget"] = get(sys(), bigTools(3), llm.CacheAuto)
	think = 0
	for name, got := range changes {
		if bytes.Equal(got, first) {
			t.Errorf("after a change of %s the cached static part was reused", name)
		}
	}
	// A change made in place, to the very slices of an earlier request, is seen too.
	inPlaceSys, inPlaceTools := []llm.SystemBlock{{Text: "s"}, {Text: "not seen before"}}, bigTools(3)
	before := get(inPlaceSys, inPlaceTools, llm.CacheAuto)
	inPlaceSys[1].Text = "changed"
	afterText := get(inPlaceSys, inPlaceTools, llm.CacheAuto)
	if bytes.Equal(afterText, before) {
		t.Error("a system block changed in place was not encoded again")
	}
	schema := inPlaceTools[0].InputSchema
	copy(schema[bytes.Index(schema, []byte("object")):], "OBJECT")
	if got := get(inPlaceSys, inPlaceTools, llm.CacheAuto); bytes.Equal(got, afterText) || !bytes.Contains(got, []byte("OBJECT")) {
		t.Error("a schema changed in place was not encoded again")
	}
	if len(c.entries) > maxPrefixes {
		t.Errorf("%d entries, the bound is %d", len(c.entries), maxPrefixes)
	}
}

// BenchmarkRequestBody compares encoding a request — a session's first (static part
// encoded), a later one (static part cached) — against encoding the whole request through
// the SDK's params, as the adapter did before for every request.
func BenchmarkRequestBody(b *testing.B) {
	req := &llm.Request{Model: "m", MaxTokens: 1000, System: llm.SystemText(strings.Repeat("You are a coding agent. ", 200)),
		Tools: bigTools(18), Messages: []llm.Message{llm.UserText("read file.txt"),
			{Role: llm.RoleAssistant, Content: []llm.Block{llm.ToolUse("t1", "Read", json.RawMessage(`{"file_path":"file.txt"}`))}},
			{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult("t1", []llm.Block{llm.Text("1\thello\n")}, false)}}}}
	b.Run("first", func(b *testing.B) {
		// A session's first request: the static part is encoded too.
		b.ReportAllocs()
		for b.Loop() {
			body, err := New(Options{}).requestBody(req)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(body)))
		}
	})
	b.Run("cached", func(b *testing.B) {
		p := New(Options{})
		b.ReportAllocs()
		for b.Loop() {
			body, err := p.requestBody(req)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(body)))
		}
	})
	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			params, _, err := sdkParams(req)
			if err != nil {
				b.Fatal(err)
			}
			body, err := json.Marshal(params)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(body)))
		}
	})
}
