package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// A Platform carries the Messages API over another cloud's endpoint (Amazon Bedrock, Google
// Vertex AI): the same request body and event stream, a different address, body envelope and
// authentication. The cloud SDKs stay in the Platform's package (llm/bedrock, llm/vertex); this
// package only calls the two methods.
type Platform interface {
	// Request turns a first-party request body into the platform's request: its URL (the model
	// moves from the body into the path), its envelope (anthropic_version in the body) and its
	// signature or token. header holds the protocol's and the caller's custom headers.
	Request(ctx context.Context, body []byte, header http.Header) (*http.Request, error)
	// Events returns a successful response's body as the API's text/event-stream.
	Events(resp *http.Response) io.ReadCloser
	// Name names the platform in errors ("bedrock", "vertex").
	Name() string
}

// sendPlatform is send for a Provider on a Platform: credentials are the platform's own.
func (p *Provider) sendPlatform(ctx context.Context, body []byte) (*http.Response, error) {
	req, err := p.platform.Request(ctx, body, p.header)
	if err != nil {
		return nil, &platformError{p.platform.Name(), err}
	}
	resp, err := p.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &platformError{p.platform.Name(), err}
	}
	if resp.StatusCode < 400 {
		resp.Body = p.platform.Events(resp)
	}
	return resp, nil
}

type platformError struct {
	platform string
	err      error
}

func (e *platformError) Error() string { return "anthropic on " + e.platform + ": " + e.err.Error() }
func (e *platformError) Unwrap() error { return e.err }

// Envelope rewrites a first-party request body for a cloud platform: the model leaves the body
// (the platform names it in the URL) and is returned, anthropic_version names the platform's
// API version, and "stream" is dropped when the platform says streaming in the URL instead.
func Envelope(body []byte, version string, dropStream bool) (model string, out []byte, err error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return "", nil, fmt.Errorf("request body: %w", err)
	}
	if err := json.Unmarshal(fields["model"], &model); err != nil || model == "" {
		return "", nil, errors.New("request body names no model")
	}
	delete(fields, "model")
	if dropStream {
		delete(fields, "stream")
	}
	fields["anthropic_version"], _ = json.Marshal(version)
	out, err = json.Marshal(fields)
	return model, out, err
}

// PlatformBase checks a platform's base URL: an absolute http(s) URL.
func PlatformBase(platform, base string) (*url.URL, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("%s: base URL %q is not an http(s) URL", platform, base)
	}
	return u, nil
}

// NewPlatformRequest is the POST of body to base joined with escapedPath (its segments already
// escaped: a model id is one segment, "/" in an ARN included), carrying the caller's custom
// headers and the content type, never a first-party credential or anthropic-version (the
// platform's version is in the body, its credential its own).
func NewPlatformRequest(ctx context.Context, base *url.URL, escapedPath string, body []byte, header http.Header) (*http.Request, error) {
	u := *base
	u.RawPath = strings.TrimSuffix(base.EscapedPath(), "/") + escapedPath
	var err error
	if u.Path, err = url.PathUnescape(u.RawPath); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	for _, k := range []string{"Authorization", "X-Api-Key", "Anthropic-Version"} {
		req.Header.Del(k)
	}
	return req, nil
}
