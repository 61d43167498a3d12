// Package llmtest provides fake model servers for tests: an httptest server
// that speaks the Anthropic Messages streaming protocol and one that speaks
// OpenAI Chat Completions streaming. Each plays a script of [Turn]s, one per
// request, and records the requests it received so that a test can check
// what a client sent, for instance the tool_result an agent sent back.
//
//	srv := llmtest.NewAnthropicServer(t,
//		llmtest.UseTools(llmtest.Call("Read", `{"file_path":"a.go"}`)),
//		llmtest.Say("The file ", "is empty."),
//	)
//	p := anthropic.New(anthropic.Options{BaseURL: srv.URL, APIKey: "test"})
//	... run the agent against p ...
//	results, _ := srv.Requests()[1].ToolResults()
//
// The bytes on the wire follow the real APIs: event names, field order,
// ping events, the partial_json pieces of tool input, the usage chunk and
// the [DONE] sentinel. Failure turns ([Overloaded], [RateLimited], [Fail])
// answer with an HTTP error, or with an error inside the stream, so that
// retry logic can be tested.
//
// A request beyond the end of the script is answered with a 500 and fails
// the test.
//
// For tests of what an agent does rather than of the wire, [Script] is the
// same idea in process: a provider that plays one [Answer] per request.
package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/reinsdev/reins/llm"
)

// Turn is the server's answer to one request.
type Turn struct {
	// Thinking is streamed first, as a thinking block (Anthropic: thinking_delta per
	// element, then the Signature as a signature_delta) or as reasoning_content deltas
	// (OpenAI). A request that continues the turn's tool calls must send the block back
	// unchanged (Anthropic), and the request must enable thinking.
	Thinking []string
	// Signature signs the thinking block; empty means sig_llmtest_N.
	Signature string
	// RedactedThinking, if set, is sent as a redacted_thinking block after the thinking,
	// and held to the same round trip.
	RedactedThinking string
	// Text is streamed as a text block, one delta per element; no text block
	// is sent when it is empty.
	Text []string
	// ToolCalls follow the text, one block (or tool call) each.
	ToolCalls []ToolCall
	// StopReason overrides the default: tool_use when there are tool calls,
	// end_turn otherwise.
	StopReason llm.StopReason
	// Usage is reported for the turn. Zero means InputTokens 10 and
	// OutputTokens 5.
	Usage llm.Usage
	// Error, if set, makes the server fail the request instead.
	Error *Failure
	// Stall makes the server stream the content and then hold the response
	// open, without ending the message, until the client goes away. It
	// serves cancellation tests.
	Stall bool

	// respond, set by Reply, computes the turn from the request.
	respond func(Request) Turn
}

// ToolCall is a tool invocation in a scripted turn.
type ToolCall struct {
	// ID defaults to toolu_llmtest_N (Anthropic) or call_llmtest_N (OpenAI).
	ID   string
	Name string
	// Input is the JSON text of the arguments.
	Input string
}

// Failure describes how a failure turn fails.
type Failure struct {
	// Status is the HTTP status of the error response. Ignored when InStream.
	Status int
	// Type is the API error type, e.g. "overloaded_error".
	Type    string
	Message string
	// RetryAfter, if set, is sent as the retry-after header.
	RetryAfter string
	// InStream sends a 200 stream holding the turn's text and then an error
	// event, instead of an HTTP error.
	InStream bool
}

// Say returns a turn that streams the given text deltas and ends the turn.
func Say(deltas ...string) Turn { return Turn{Text: deltas} }

// UseTools returns a turn that calls the given tools.
func UseTools(calls ...ToolCall) Turn { return Turn{ToolCalls: calls} }

// Call returns a tool call of the tool name with the JSON input.
func Call(name, input string) ToolCall { return ToolCall{Name: name, Input: input} }

// Overloaded returns a turn failing with 529 overloaded_error, as Anthropic
// does under load.
func Overloaded() Turn {
	return Turn{Error: &Failure{Status: 529, Type: "overloaded_error", Message: "Overloaded"}}
}

// RateLimited returns a turn failing with 429 rate_limit_error and the
// given retry-after header value (seconds or an HTTP date).
func RateLimited(retryAfter string) Turn {
	return Turn{Error: &Failure{Status: 429, Type: "rate_limit_error",
		Message: "Number of request tokens has exceeded your per-minute rate limit", RetryAfter: retryAfter}}
}

// Fail returns a turn failing with the given HTTP status and error type.
func Fail(status int, errType, message string) Turn {
	return Turn{Error: &Failure{Status: status, Type: errType, Message: message}}
}

func (t Turn) stopReason() llm.StopReason {
	switch {
	case t.StopReason != "":
		return t.StopReason
	case len(t.ToolCalls) > 0:
		return llm.StopToolUse
	}
	return llm.StopEndTurn
}

func (t Turn) usage() llm.Usage {
	if t.Usage == (llm.Usage{}) {
		return llm.Usage{InputTokens: 10, OutputTokens: 5}
	}
	return t.Usage
}

// Request is a request the server received.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
	api    string // "anthropic" or "openai"
}

// Decode unmarshals the JSON body into v.
func (r Request) Decode(v any) error { return json.Unmarshal(r.Body, v) }

// Server is a scripted fake model server. Its methods are safe for
// concurrent use.
type Server struct {
	// URL is the server's root, e.g. http://127.0.0.1:1234. The Anthropic
	// fake serves /v1/messages below it, so URL is the base URL for the
	// Anthropic SDK; the OpenAI fake serves /v1/chat/completions, so its
	// base URL is URL+"/v1".
	URL string

	t      testing.TB
	api    string
	mu     sync.Mutex
	turns  []Turn
	next   int
	served int
	reqs   []Request
	repeat bool
	done   chan struct{} // closed before the server shuts down, to end stalls
	sides  []*sideScript
	// thinking is what the fake streamed before each tool_use id it sent (Anthropic).
	thinking map[string]sentThinking
}

// NewAnthropicServer starts a fake Anthropic Messages API playing turns. It
// is closed when the test ends.
func NewAnthropicServer(t testing.TB, turns ...Turn) *Server {
	return newServer(t, "anthropic", turns)
}

// NewOpenAIServer starts a fake OpenAI Chat Completions API playing turns.
// It is closed when the test ends.
func NewOpenAIServer(t testing.TB, turns ...Turn) *Server {
	return newServer(t, "openai", turns)
}

func newServer(t testing.TB, api string, turns []Turn) *Server {
	t.Helper()
	s := &Server{t: t, api: api, turns: turns, done: make(chan struct{})}
	hs := httptest.NewServer(s)
	s.URL = hs.URL
	t.Cleanup(hs.Close)
	// Cleanups run last-in first-out: stalled handlers return before Close
	// waits for them.
	t.Cleanup(func() { close(s.done) })
	return s
}

// ServeHTTP answers one request as the fake API. A test can mount the fake under a handler of
// its own, such as an Ollama server that also answers /api/tags, without a proxy between them.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.api == "anthropic" {
		s.serveAnthropic(w, r)
		return
	}
	s.serveOpenAI(w, r)
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Served returns the number of scripted turns played so far.
func (s *Server) Served() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.served
}

// Repeat makes the script start over when it runs out, and stops recording
// requests so that memory stays flat. It is meant for benchmarks.
func (s *Server) Repeat() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repeat = true
	s.reqs = nil
}

// record keeps a copy of the request, unless Repeat turned recording off.
func (s *Server) record(r *http.Request, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.repeat {
		s.reqs = append(s.reqs, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body, api: s.api})
	}
}

// take records r and returns the next turn and its number (counting from
// 1), or false when the script is exhausted.
func (s *Server) take(r *http.Request, body []byte) (Turn, int, bool) {
	s.record(r, body)
	req := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header, Body: body, api: s.api}
	t, n, ok := s.takeScripted(body)
	return t.resolve(req), n, ok
}

func (s *Server) takeScripted(body []byte) (Turn, int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, n, matched, ok := s.takeSide(body); matched {
		return t, n, ok
	}
	if s.repeat && s.next >= len(s.turns) && len(s.turns) > 0 {
		s.next = 0
	}
	if s.next >= len(s.turns) {
		return Turn{}, s.next + 1, false
	}
	s.next++
	s.served++
	return s.turns[s.next-1], s.next, true
}

func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return nil, false
	}
	return body, true
}

func (s *Server) exhausted(w http.ResponseWriter, n int) {
	s.t.Errorf("llmtest: %s server got request for turn %d, but the script has only %d turns", s.api, n, len(s.turns))
	http.Error(w, "llmtest: script exhausted", http.StatusInternalServerError)
}

// splitRunes cuts s into pieces of at most n bytes without splitting a
// UTF-8 sequence, the way the APIs cut partial tool input.
func splitRunes(s string, n int) []string {
	var parts []string
	for len(s) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		if cut == 0 {
			_, cut = utf8.DecodeRuneInString(s)
		}
		parts = append(parts, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		parts = append(parts, s)
	}
	return parts
}

// jsonString returns s as a JSON string literal. Like the real APIs, it
// leaves <, > and & unescaped.
func jsonString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// sseWriter writes server-sent events and flushes after each one.
type sseWriter struct {
	w  io.Writer
	rc *http.ResponseController
}

func newSSEWriter(w http.ResponseWriter) *sseWriter {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	w.WriteHeader(http.StatusOK)
	return &sseWriter{w: w, rc: http.NewResponseController(w)}
}

// event writes an event with a name (omitted when empty) and one data line.
func (s *sseWriter) event(name, data string) {
	var b strings.Builder
	if name != "" {
		fmt.Fprintf(&b, "event: %s\n", name)
	}
	fmt.Fprintf(&b, "data: %s\n\n", data)
	io.WriteString(s.w, b.String())
	s.rc.Flush()
}

// stall holds the response open until the client goes away or the server
// shuts down.
func (s *Server) stall(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.done:
	}
}

// Sleeps records the waits of a retry policy instead of waiting, so retry tests run at once
// and can assert the backoff. Use Sleep as llm.RetryPolicy.Sleep.
type Sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

// Sleep records d and returns at once (with ctx's error, if any).
func (s *Sleeps) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return ctx.Err()
}

// Durations returns the recorded waits in order.
func (s *Sleeps) Durations() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// PromptTooLong returns a turn failing as Anthropic refuses a prompt over the model's
// context window: 400 invalid_request_error "prompt is too long".
func PromptTooLong() Turn {
	return Fail(400, "invalid_request_error", "prompt is too long: 210345 tokens > 200000 maximum")
}
