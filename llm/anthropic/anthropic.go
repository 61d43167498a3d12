// Package anthropic is the [llm.Provider] for the Anthropic Messages API. It
// speaks the API itself, with net/http and encoding/json: one POST to
// /v1/messages, a text/event-stream response of six event types (plus ping
// and error), and one error shape. Requests, events, responses and errors
// cross its boundary as llm types.
//
// The adapter streams every turn, places prompt-caching breakpoints (see
// [llm.CacheAuto]) and maps API failures to [*llm.APIError] with the HTTP
// status, error type, request id and retry-after.
//
// # Why not the SDK
//
// This package used to be built on github.com/anthropics/anthropic-sdk-go.
// The SDK's reflective encoder and decoder were about a seventh of a headless
// turn's CPU, and the SDK and what it pulled in (OpenTelemetry among them)
// about half of the binary, whose pages count in the process's memory. The wire
// format is small, so the package writes and reads it directly; the SDK is
// kept as a test-only dependency, the oracle the tests compare against: the
// request body is byte for byte what the SDK encodes for the same request
// (TestRequestBodyMatchesSDK and its property test), and the events,
// response and errors decoded from a stream are what the SDK's decoder gives
// (TestDecodeMatchesSDK). internal/archtest keeps the SDK out of the binary.
//
// Measured again on 2026-12-02 (issue 43), when the binary already linked
// OpenTelemetry, gRPC and the AWS SDK: the same turn through the SDK (the build
// tag anthropicsdk, sdkpath.go) cost 21-24% more CPU per headless turn, 13-15%
// more CPU for `reins --version`, 27% more time to the first text event in
// process, 10 MB more peak RSS and 32 MB more binary. Start-up and first token
// are numbers a user feels, so the package keeps speaking the API itself;
// docs/architecture.md, "The Anthropic client", has the table and the commands.
//
// The request carries the headers the API needs — the credential in
// Authorization: Bearer (an API key or a token alike, as the SDK sends
// them), anthropic-version,
// Content-Type, Accept — a User-Agent naming reins, and the caller's custom
// headers; the SDK's X-Stainless-* telemetry headers (SDK version, OS,
// architecture, Go version) are no longer sent.
//
// # Credentials
//
// A key that changes during a session comes from a [CredentialSource], asked
// before every request. A 401 answer asks it once more for a fresh credential
// and sends the request once more; never more, so a helper that keeps handing
// out a revoked key costs one extra request, not a loop.
//
// # Retries
//
// Retrying is done by [llm.RetryPolicy], shared with the OpenAI-compatible
// adapter so both behave alike: it can report each retry to the user
// (RetryPolicy.OnRetry), be run without real waits in tests, and it also
// retries an "overloaded" error event that arrives inside a 200 stream
// before any content. Timeouts belong to the HTTP client (Options.HTTPClient;
// the CLI passes [llm.IdleTimeoutClient]).
//
// # Request body
//
// The tools and the system prompt, most of a request's bytes and the same in
// every request of a session, are encoded once per tool set and reused: a
// Provider keeps the encodings of the last few tool sets and compares a
// request's tools and system prompt with them by content, so a tool set that
// changes (MCP tools arriving, a deferred tool loaded) is encoded anew and
// nothing stale is ever sent.
//
// # Configuration
//
// New reads nothing from the environment: the caller decides.
// [OptionsFromEnv] reads the usual variables (ANTHROPIC_AUTH_TOKEN,
// ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, ANTHROPIC_CUSTOM_HEADERS) for
// callers that want them.
package anthropic

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/reinsdev/reins/llm"
)

// providerName is the Provider's Name and the Provider of its errors.
const providerName = "anthropic"

// defaultBaseURL is the API's address when Options.BaseURL is empty.
const defaultBaseURL = "https://api.anthropic.com"

// apiVersion is the anthropic-version header: the version of the API whose
// request shape the body has (the SDK version the encoding follows sent it).
const apiVersion = "2026-10-21"

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 1 << 20

// Options configures a Provider. The zero value talks to
// https://api.anthropic.com without credentials.
type Options struct {
	// APIKey (an API key or a token) is sent as Authorization: Bearer.
	// Credentials, if set, replaces it: it is asked before every request.
	APIKey      string
	Credentials CredentialSource
	// Headers are added to every request (ANTHROPIC_CUSTOM_HEADERS); they
	// cannot replace the credential or the headers the protocol needs.
	Headers http.Header
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
	// Platform, if set, sends the requests to another cloud's endpoint with its own
	// authentication; BaseURL, APIKey and Credentials are then not used.
	Platform Platform
}

// OptionsFromEnv returns Options filled from the environment through getenv
// (os.Getenv in production): the credential from ANTHROPIC_AUTH_TOKEN, or
// else ANTHROPIC_API_KEY, as Claude Code ranks them — only the one in use is
// sent; the base URL from ANTHROPIC_BASE_URL; the headers
// of ANTHROPIC_CUSTOM_HEADERS, whose error ([ParseCustomHeaders]) is the only
// one.
func OptionsFromEnv(getenv func(string) string) (Options, error) {
	o := Options{BaseURL: getenv("ANTHROPIC_BASE_URL")}
	if o.APIKey = getenv("ANTHROPIC_AUTH_TOKEN"); o.APIKey == "" {
		o.APIKey = getenv("ANTHROPIC_API_KEY")
	}
	if raw := getenv("ANTHROPIC_CUSTOM_HEADERS"); raw != "" {
		h, err := ParseCustomHeaders(raw)
		if err != nil {
			return Options{}, err
		}
		o.Headers = h
	}
	return o, nil
}

// Provider streams turns from the Anthropic Messages API. It is safe for
// concurrent use.
type Provider struct {
	client   *http.Client
	endpoint string
	urlErr   error            // a BaseURL that does not parse, reported by Stream
	header   http.Header      // custom headers, then the protocol's
	creds    CredentialSource // nil: the key, if any, is in header
	platform Platform         // nil: the first-party API
	retry    llm.RetryPolicy
	prefixes prefixCache // encoded tools and system prompts, see body.go
}

// New returns a Provider configured by opts.
func New(opts Options) *Provider {
	p := &Provider{client: opts.HTTPClient, retry: opts.Retry, platform: opts.Platform}
	p.retry.MaxRetries = opts.MaxRetries
	if p.client == nil {
		p.client = http.DefaultClient
	}
	p.endpoint, p.urlErr = endpoint(opts.BaseURL)
	p.header = opts.Headers.Clone()
	if p.header == nil {
		p.header = http.Header{}
	}
	for k, v := range map[string]string{
		"Accept":            "application/json",
		"Anthropic-Version": apiVersion,
		"Content-Type":      "application/json",
		"User-Agent":        "reins",
	} {
		p.header[k] = []string{v}
	}
	// A fixed key is set once here; a source is asked before every request.
	if p.creds = opts.Credentials; p.creds == nil {
		setCredential(p.header, Credential{Bearer: opts.APIKey})
	}
	return p
}

// endpoint is base's v1/messages: relative to base's path, which is taken as a folder,
// as the SDK took it ("http://proxy/anthropic" gives http://proxy/anthropic/v1/messages).
func endpoint(base string) (string, error) {
	if base == "" {
		base = defaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("base URL: %w", err)
	}
	if u.Path != "" && !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u.ResolveReference(&url.URL{Path: "v1/messages"}).String(), nil
}

// Name returns "anthropic".
func (p *Provider) Name() string { return providerName }

// Stream implements [llm.Provider].
func (p *Provider) Stream(ctx context.Context, req *llm.Request, onEvent func(llm.Event)) (*llm.Response, error) {
	if p.urlErr != nil && p.platform == nil {
		return nil, fmt.Errorf("anthropic: %w", p.urlErr)
	}
	if sdkStream != nil && p.platform == nil {
		return sdkStream(p, ctx, req, onEvent)
	}
	body, err := p.requestBody(req)
	if err != nil {
		return nil, fmt.Errorf("anthropic: %w", err)
	}
	return p.retry.Stream(ctx, onEvent, func(ctx context.Context, onEvent func(llm.Event)) (*llm.Response, error) {
		return p.streamOnce(ctx, body, onEvent)
	})
}

// streamOnce sends the encoded request and decodes its answer. A 401 gets one more try with a
// refreshed credential (see [CredentialSource]).
func (p *Provider) streamOnce(ctx context.Context, body []byte, onEvent func(llm.Event)) (*llm.Response, error) {
	resp, err := p.send(ctx, body, false)
	if err == nil && resp.StatusCode == http.StatusUnauthorized && p.creds != nil {
		drain(resp.Body)
		resp, err = p.send(ctx, body, true)
	}
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return nil, httpError(resp)
	}
	out, err := decodeStream(resp.Body, onEvent)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if _, ok := errors.AsType[*llm.APIError](err); ok {
			return nil, err
		}
		return nil, fmt.Errorf("anthropic: %w", err)
	}
	return out, nil
}

// send posts body with the credential the source gives (refreshed if refresh).
func (p *Provider) send(ctx context.Context, body []byte, refresh bool) (*http.Response, error) {
	if p.platform != nil {
		return p.sendPlatform(ctx, body)
	}
	var cred Credential
	if p.creds != nil {
		var err error
		if cred, err = p.credential(ctx, refresh); err != nil {
			return nil, err
		}
	}
	httpReq, err := http.NewRequestWithContext(ctx, http.MethodPost, p.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("anthropic: %w", err)
	}
	for k, v := range p.header {
		httpReq.Header[k] = v
	}
	if p.creds != nil {
		setCredential(httpReq.Header, cred)
	}
	resp, err := p.client.Do(httpReq)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("anthropic: %w", err)
	}
	return resp, nil
}

// httpError is the *llm.APIError for a response with an error status.
func httpError(resp *http.Response) error {
	data, readErr := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	e := &llm.APIError{
		Provider:   providerName,
		StatusCode: resp.StatusCode,
		RequestID:  resp.Header.Get("request-id"),
		Err:        readErr,
	}
	e.Type, e.Message = parseError(data)
	if d, ok := llm.ParseRetryAfter(resp.Header, time.Now()); ok {
		e.RetryAfter = d
	}
	return e
}
