// Package openaicompat is an [llm.Provider] for servers that implement the
// OpenAI Chat Completions API: OpenAI itself, and the OpenAI-compatible
// endpoints of Ollama, vLLM, llama.cpp, LM Studio, OpenRouter and others.
//
// It is a small hand-written client (net/http and a server-sent-events
// reader) rather than an SDK, because these servers agree only on the core
// of the protocol. Decoding is lenient where they are known to differ:
// tool-call deltas without an index or without an id, arguments sent as a
// JSON object instead of a string, usage in the last chunk, in the finish
// chunk or absent, finish_reason spellings ("stop" with tool calls, "eos",
// "length"...), a stream that ends without the [DONE] sentinel, error
// objects inside the stream, and a plain JSON completion from a server that
// ignored "stream": true.
//
// Translation of the conversation: system blocks become one system message;
// a user message's tool_result blocks become role "tool" messages (images in
// them follow in a user message, since tool messages carry text only); an
// assistant's tool_use blocks become tool_calls; images become data-URL
// image_url parts. The reply comes back as text and tool_use blocks.
// is_error has no equivalent in the protocol and is not sent.
//
// Usage is reported with Anthropic's meaning (see [llm.Usage]): cached
// prompt tokens are subtracted from InputTokens and reported as
// CacheReadInputTokens.
//
// Transient failures are retried by [llm.RetryPolicy], like the Anthropic
// adapter.
package openaicompat

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/internal/sse"
)

// DefaultBaseURL is the OpenAI API.
const DefaultBaseURL = "https://api.openai.com/v1"

// Options configures a Provider.
type Options struct {
	// APIKey is sent as a bearer token when set; local servers need none.
	APIKey string
	// BaseURL is the API root that /chat/completions is appended to;
	// default DefaultBaseURL. For Ollama it is http://localhost:11434/v1.
	BaseURL string
	// HTTPClient sends the requests; default http.DefaultClient.
	HTTPClient *http.Client
	// Header holds extra request headers (e.g. for OpenRouter).
	Header http.Header
	// Name is the provider's name in errors and logs; default "openai".
	Name string
	// MaxTokensParam names the request field for Request.MaxTokens:
	// "max_tokens" or "max_completion_tokens". By default OpenAI's own
	// API gets max_completion_tokens (its newer models reject max_tokens)
	// and every other server gets max_tokens, which they all understand.
	MaxTokensParam string
	// MaxRetries is the number of retries of a transient failure: 0 means
	// llm.DefaultMaxRetries, a negative value disables retrying.
	MaxRetries int
	// Retry tunes the backoff; its MaxRetries field is ignored in favour of
	// Options.MaxRetries.
	Retry llm.RetryPolicy
}

// OptionsFromEnv returns Options filled from OPENAI_API_KEY and
// OPENAI_BASE_URL through getenv (os.Getenv in production).
func OptionsFromEnv(getenv func(string) string) Options {
	return Options{APIKey: getenv("OPENAI_API_KEY"), BaseURL: getenv("OPENAI_BASE_URL")}
}

// Provider streams turns from a Chat Completions server. It is safe for
// concurrent use.
type Provider struct {
	endpoint       string
	apiKey         string
	client         *http.Client
	header         http.Header
	name           string
	maxTokensParam string
	retry          llm.RetryPolicy
}

// New returns a Provider configured by opts.
func New(opts Options) *Provider {
	base := strings.TrimRight(opts.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	p := &Provider{
		endpoint:       base + "/chat/completions",
		apiKey:         opts.APIKey,
		client:         opts.HTTPClient,
		header:         opts.Header.Clone(),
		name:           opts.Name,
		maxTokensParam: opts.MaxTokensParam,
		retry:          opts.Retry,
	}
	p.retry.MaxRetries = opts.MaxRetries
	if p.client == nil {
		p.client = http.DefaultClient
	}
	if p.name == "" {
		p.name = "openai"
	}
	if p.maxTokensParam == "" {
		p.maxTokensParam = "max_tokens"
		if u, err := url.Parse(base); err == nil && u.Host == "api.openai.com" {
			p.maxTokensParam = "max_completion_tokens"
		}
	}
	return p
}

// Name returns Options.Name, by default "openai".
func (p *Provider) Name() string { return p.name }

// Stream implements [llm.Provider].
func (p *Provider) Stream(ctx context.Context, req *llm.Request, onEvent func(llm.Event)) (*llm.Response, error) {
	body, err := p.encodeRequest(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.name, err)
	}
	return p.retry.Stream(ctx, onEvent, func(ctx context.Context, onEvent func(llm.Event)) (*llm.Response, error) {
		return p.streamOnce(ctx, body, onEvent)
	})
}

func (p *Provider) streamOnce(ctx context.Context, body []byte, onEvent func(llm.Event)) (*llm.Response, error) {
	httpReq, err := http.NewRequestWithContext(ctx, http.MethodPost, p.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.name, err)
	}
	for k, v := range p.header {
		httpReq.Header[k] = v
	}
	httpReq.Header.Set("Content-Type", "application/json")
	httpReq.Header.Set("Accept", "text/event-stream")
	if p.apiKey != "" {
		httpReq.Header.Set("Authorization", "Bearer "+p.apiKey)
	}
	resp, err := p.client.Do(httpReq)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%s: %w", p.name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return nil, p.httpError(resp)
	}

	d := newDecoder(p.name, onEvent)
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mediaType == "application/json" {
		err = d.decodeCompletion(resp.Body)
	} else {
		err = d.decodeStream(resp.Body)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return d.response(), nil
}

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 1 << 20

// httpError builds the APIError for an error status.
func (p *Provider) httpError(resp *http.Response) error {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	apiErr := &llm.APIError{
		Provider:   p.name,
		StatusCode: resp.StatusCode,
		RequestID:  resp.Header.Get("X-Request-Id"),
	}
	apiErr.Type, apiErr.Message = parseErrorBody(data)
	if apiErr.Message == "" {
		apiErr.Message = sse.Truncate(strings.TrimSpace(string(data)), 300)
	}
	if d, ok := llm.ParseRetryAfter(resp.Header, time.Now()); ok {
		apiErr.RetryAfter = d
	}
	return apiErr
}

// parseErrorBody reads the error type and message from the bodies servers
// send: {"error":{"message","type","code"}} (OpenAI, vLLM, llama.cpp),
// {"error":"message"} (Ollama), {"message":...} or {"detail":...}.
func parseErrorBody(data []byte) (errType, message string) {
	var body struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(data, &body) != nil {
		return "", ""
	}
	if len(body.Error) > 0 {
		if t, m, ok := parseErrorValue(body.Error); ok {
			return t, m
		}
	}
	if body.Message != "" {
		return "", body.Message
	}
	var detail string
	if json.Unmarshal(body.Detail, &detail) == nil {
		return "", detail
	}
	if len(body.Detail) > 0 {
		return "", sse.Truncate(string(body.Detail), 300)
	}
	return "", ""
}

// parseErrorValue reads an "error" member: an object or a string.
func parseErrorValue(raw json.RawMessage) (errType, message string, ok bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return "", s, s != ""
	}
	var obj struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
	if json.Unmarshal(raw, &obj) != nil || (obj.Message == "" && obj.Type == "") {
		return "", "", false
	}
	errType = obj.Type
	if errType == "" {
		var code string
		if json.Unmarshal(obj.Code, &code) == nil {
			errType = code
		}
	}
	return errType, obj.Message, true
}
