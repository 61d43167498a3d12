// Package anthropic is the [llm.Provider] for the Anthropic Messages API,
// built on github.com/anthropics/anthropic-sdk-go/v2. It is the only package
// that imports that SDK: requests, events, responses and errors cross its
// boundary as llm types.
//
// The adapter streams every turn, places prompt-caching breakpoints (see
// [llm.CacheAuto]) and maps API failures to [*llm.APIError] with the HTTP
// status, error type and retry-after.
//
// # Retries
//
// Retrying is done by [llm.RetryPolicy], not by the SDK, whose own retries
// are switched off (option.WithMaxRetries(0)): running both would multiply
// the attempts. Ours is preferred because it is shared with the
// OpenAI-compatible adapter, so both behave alike; because it can report
// each retry to the user (RetryPolicy.OnRetry) and be run without real waits
// in tests; and because it also retries an "overloaded" error event that
// arrives inside a 200 stream before any content, which the SDK, retrying
// only on HTTP status, cannot.
//
// # Request body
//
// The tools and the system prompt, most of a request's bytes and the same in
// every request of a session, are encoded once per tool set and reused: a
// Provider keeps the encodings of the last few tool sets and compares a
// request's tools and system prompt with them by content, so a tool set that
// changes (MCP tools arriving, a deferred tool loaded) is encoded anew and
// nothing stale is ever sent. The body is byte for byte what the SDK would
// encode for the whole request.
//
// # Configuration
//
// New reads nothing from the environment: the SDK's own environment lookup
// is disabled so that the caller decides. [OptionsFromEnv] reads the usual
// variables (ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, ANTHROPIC_BASE_URL) for
// callers that want them.
package anthropic

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
	"unicode/utf8"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"

	"github.com/reinsdev/reins/llm"
)

// Options configures a Provider. The zero value talks to
// https://api.anthropic.com without credentials.
type Options struct {
	// APIKey is sent as the bearer credential.
	APIKey string
	// BaseURL replaces https://api.anthropic.com, e.g. for a proxy or a test
	// server; the API path v1/messages is appended to it.
	BaseURL string
	// HTTPClient, if set, sends the requests.
	HTTPClient *http.Client
	// MaxRetries is the number of retries of a transient failure: 0 means
	// llm.DefaultMaxRetries, a negative value disables retrying.
	MaxRetries int
	// Retry tunes the backoff (delays, sleep function, OnRetry callback).
	// Its MaxRetries field is ignored in favour of Options.MaxRetries.
	Retry llm.RetryPolicy
}

// OptionsFromEnv returns Options filled from the environment through getenv
// (os.Getenv in production): the key from ANTHROPIC_API_KEY, or else
// ANTHROPIC_AUTH_TOKEN, and the base URL from ANTHROPIC_BASE_URL.
func OptionsFromEnv(getenv func(string) string) Options {
	key := getenv("ANTHROPIC_API_KEY")
	if key == "" {
		key = getenv("ANTHROPIC_AUTH_TOKEN")
	}
	return Options{APIKey: key, BaseURL: getenv("ANTHROPIC_BASE_URL")}
}

// Provider streams turns from the Anthropic Messages API. It is safe for
// concurrent use.
type Provider struct {
	client   sdk.Client
	retry    llm.RetryPolicy
	prefixes prefixCache // encoded tools and system prompts, see body.go
}

// New returns a Provider configured by opts.
func New(opts Options) *Provider {
	sdkOpts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithMaxRetries(0),
	}
	if opts.APIKey != "" {
		sdkOpts = append(sdkOpts, option.WithAPIKey(opts.APIKey))
	}
	if opts.BaseURL != "" {
		sdkOpts = append(sdkOpts, option.WithBaseURL(opts.BaseURL))
	}
	if opts.HTTPClient != nil {
		sdkOpts = append(sdkOpts, option.WithHTTPClient(opts.HTTPClient))
	}
	retry := opts.Retry
	retry.MaxRetries = opts.MaxRetries
	return &Provider{client: sdk.NewClient(sdkOpts...), retry: retry}
}

// Name returns "anthropic".
func (p *Provider) Name() string { return "anthropic" }

// Stream implements [llm.Provider].
func (p *Provider) Stream(ctx context.Context, req *llm.Request, onEvent func(llm.Event)) (*llm.Response, error) {
	body, err := p.requestBody(req)
	if err != nil {
		return nil, fmt.Errorf("anthropic: %w", err)
	}
	return p.retry.Stream(ctx, onEvent, func(ctx context.Context, onEvent func(llm.Event)) (*llm.Response, error) {
		return p.streamOnce(ctx, body, onEvent)
	})
}

// blockState follows one content block of the API's stream.
type blockState struct {
	kind llm.BlockType // "" for block types the adapter skips (thinking, server tools)
	ours int           // index in our message; -1 until a text block has text
}

// streamOnce sends the encoded request once. It posts the body itself
// rather than through Messages.NewStreaming, which would encode the whole
// request again (see body.go); the SDK still adds the headers, sends, maps
// HTTP errors and decodes the event stream.
func (p *Provider) streamOnce(ctx context.Context, body []byte, onEvent func(llm.Event)) (*llm.Response, error) {
	var raw *http.Response
	err := p.client.Post(ctx, "v1/messages", nil, &raw, option.WithRequestBody("application/json", body))
	stream := ssestream.NewStream[sdk.MessageStreamEventUnion](ssestream.NewDecoder(raw), err)
	defer stream.Close()

	var (
		acc    llm.Accumulator
		blocks []blockState
		n      int // blocks of our message so far
		usage  llm.Usage
		stop   llm.StopReason
		model  string
		id     string
	)
	emit := func(ev llm.Event) error {
		if err := acc.Add(ev); err != nil {
			return fmt.Errorf("anthropic: malformed stream: %w", err)
		}
		onEvent(ev)
		return nil
	}
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "message_start":
			m := ev.Message
			model, id = m.Model, m.ID
			usage = llm.Usage{
				InputTokens:              int(m.Usage.InputTokens),
				OutputTokens:             int(m.Usage.OutputTokens),
				CacheReadInputTokens:     int(m.Usage.CacheReadInputTokens),
				CacheCreationInputTokens: int(m.Usage.CacheCreationInputTokens),
			}
		case "content_block_start":
			i := int(ev.Index)
			if i != len(blocks) {
				return nil, fmt.Errorf("anthropic: malformed stream: block %d started after %d blocks", i, len(blocks))
			}
			cb := ev.ContentBlock
			switch cb.Type {
			case "text":
				blocks = append(blocks, blockState{kind: llm.BlockText, ours: -1})
				if cb.Text != "" {
					blocks[i].ours, n = n, n+1
					if err := emit(llm.Event{Type: llm.EventTextDelta, Index: blocks[i].ours, Text: cb.Text}); err != nil {
						return nil, err
					}
				}
			case "tool_use":
				blocks = append(blocks, blockState{kind: llm.BlockToolUse, ours: n})
				n++
				if err := emit(llm.Event{Type: llm.EventToolUseStart, Index: n - 1, ToolUseID: cb.ID, ToolName: cb.Name}); err != nil {
					return nil, err
				}
			default:
				blocks = append(blocks, blockState{ours: -1})
			}
		case "content_block_delta":
			i := int(ev.Index)
			if i < 0 || i >= len(blocks) {
				return nil, fmt.Errorf("anthropic: malformed stream: delta for block %d of %d", i, len(blocks))
			}
			b := &blocks[i]
			switch {
			case ev.Delta.Type == "text_delta" && b.kind == llm.BlockText && ev.Delta.Text != "":
				if b.ours < 0 {
					b.ours, n = n, n+1
				}
				if err := emit(llm.Event{Type: llm.EventTextDelta, Index: b.ours, Text: ev.Delta.Text}); err != nil {
					return nil, err
				}
			case ev.Delta.Type == "input_json_delta" && b.kind == llm.BlockToolUse && ev.Delta.PartialJSON != "":
				if err := emit(llm.Event{Type: llm.EventToolInputDelta, Index: b.ours, PartialJSON: ev.Delta.PartialJSON}); err != nil {
					return nil, err
				}
			}
		case "message_delta":
			stop = llm.StopReason(ev.Delta.StopReason)
			// The counts are totals for the message; those absent keep the
			// values from message_start.
			usage.OutputTokens = int(ev.Usage.OutputTokens)
			if ev.Usage.JSON.InputTokens.Valid() {
				usage.InputTokens = int(ev.Usage.InputTokens)
			}
			if ev.Usage.JSON.CacheReadInputTokens.Valid() {
				usage.CacheReadInputTokens = int(ev.Usage.CacheReadInputTokens)
			}
			if ev.Usage.JSON.CacheCreationInputTokens.Valid() {
				usage.CacheCreationInputTokens = int(ev.Usage.CacheCreationInputTokens)
			}
		case "message_stop":
			if err := emit(llm.Event{Type: llm.EventMessageStop, StopReason: stop, Usage: usage}); err != nil {
				return nil, err
			}
		}
	}
	if err := stream.Err(); err != nil {
		return nil, p.mapError(ctx, err)
	}
	if !acc.Stopped() {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("anthropic: stream ended before message_stop: %w", io.ErrUnexpectedEOF)
	}
	resp := acc.Response()
	resp.Model, resp.ID = model, id
	return resp, nil
}

// mapError turns an SDK or transport error into an *llm.APIError or a
// wrapped error; cancellation comes back as the context's error.
func (p *Provider) mapError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var se *sdk.Error
	if !errors.As(err, &se) {
		return fmt.Errorf("anthropic: %w", err)
	}
	apiErr := &llm.APIError{
		Provider:   p.Name(),
		StatusCode: se.StatusCode,
		Type:       string(se.Type()),
		Message:    se.Message,
		RequestID:  se.RequestID,
		Err:        err,
	}
	if apiErr.StatusCode < 400 {
		// An error event inside a stream that began with 200.
		apiErr.StatusCode = 0
	}
	if apiErr.Message == "" {
		apiErr.Message = truncate(se.RawJSON(), 300)
	}
	if se.Response != nil && apiErr.StatusCode != 0 {
		if d, ok := llm.ParseRetryAfter(se.Response.Header, time.Now()); ok {
			apiErr.RetryAfter = d
		}
	}
	return apiErr
}

// truncate shortens s to at most n bytes, without splitting a character.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
