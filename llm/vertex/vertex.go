// Package vertex carries the Anthropic Messages API over Google Cloud's Vertex AI: an
// [anthropic.Platform] that moves the model into the URL
// (…/publishers/anthropic/models/<model>:streamRawPredict), puts Vertex's anthropic_version
// in the body and authenticates with an OAuth 2 access token from Google's Application Default
// Credentials. The stream is the API's own server-sent events. Google's types stay here.
//
// Configuration follows Claude Code's variables: CLAUDE_CODE_USE_VERTEX=1 switches it on;
// CLOUD_ML_REGION names the region ("global" for the global endpoint);
// ANTHROPIC_VERTEX_PROJECT_ID the project (else the credentials' own); credentials come from
// GOOGLE_APPLICATION_CREDENTIALS, gcloud's application-default login, or the metadata server;
// ANTHROPIC_VERTEX_BASE_URL replaces the endpoint (a proxy or a test server), and
// CLAUDE_CODE_SKIP_VERTEX_AUTH=1 sends requests without a token for a proxy that adds one.
package vertex

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/reinsdev/reins/built"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/anthropic"
)

// apiVersion is the anthropic_version Vertex AI's Anthropic models expect in the body.
const apiVersion = "vertex-2023-10-16"

// scope is the OAuth scope Vertex AI's prediction endpoints accept.
const scope = "https://www.googleapis.com/auth/cloud-platform"

// Options configures the platform.
type Options struct {
	Region, ProjectID string
	// BaseURL replaces https://<region>-aiplatform.googleapis.com (aiplatform.googleapis.com
	// for the global region); the path v1/projects/… is appended to it.
	BaseURL string
	// Tokens supplies the access tokens; nil only with SkipAuth.
	Tokens   oauth2.TokenSource
	SkipAuth bool
}

// Platform is the Vertex AI [anthropic.Platform].
type Platform struct {
	opts Options
	base *url.URL
}

// New checks opts and returns the platform.
func New(opts Options) (*Platform, error) {
	if opts.Region == "" {
		return nil, errors.New("vertex: no region: set CLOUD_ML_REGION (e.g. us-east5, or global)")
	}
	if opts.ProjectID == "" {
		return nil, errors.New("vertex: no project: set ANTHROPIC_VERTEX_PROJECT_ID")
	}
	if !opts.SkipAuth && opts.Tokens == nil {
		return nil, errors.New("vertex: no Google credentials")
	}
	base := opts.BaseURL
	if base == "" {
		host := opts.Region + "-aiplatform.googleapis.com"
		if opts.Region == "global" {
			host = "aiplatform.googleapis.com"
		}
		base = "https://" + host
	}
	u, err := anthropic.PlatformBase("vertex", base)
	if err != nil {
		return nil, err
	}
	if opts.Tokens != nil {
		opts.Tokens = oauth2.ReuseTokenSource(nil, opts.Tokens)
	}
	return &Platform{opts: opts, base: u}, nil
}

// FromEnv builds the platform from Claude Code's variables and Google's Application Default
// Credentials.
func FromEnv(ctx context.Context, getenv func(string) string) (*Platform, error) {
	opts := Options{
		Region:    getenv("CLOUD_ML_REGION"),
		ProjectID: getenv("ANTHROPIC_VERTEX_PROJECT_ID"),
		BaseURL:   getenv("ANTHROPIC_VERTEX_BASE_URL"),
		SkipAuth:  llm.EnvTrue(getenv("CLAUDE_CODE_SKIP_VERTEX_AUTH")),
	}
	if !opts.SkipAuth {
		built.Mark(built.GoogleCredentials)
		creds, err := google.FindDefaultCredentials(ctx, scope)
		if err != nil {
			return nil, fmt.Errorf("vertex: Google credentials: %w", err)
		}
		opts.Tokens = creds.TokenSource
		if opts.ProjectID == "" {
			opts.ProjectID = creds.ProjectID
		}
	}
	return New(opts)
}

// Name implements [anthropic.Platform].
func (p *Platform) Name() string { return "vertex" }

// Request implements [anthropic.Platform].
func (p *Platform) Request(ctx context.Context, body []byte, header http.Header) (*http.Request, error) {
	model, body, err := anthropic.Envelope(body, apiVersion, false)
	if err != nil {
		return nil, err
	}
	path := "/v1/projects/" + url.PathEscape(p.opts.ProjectID) + "/locations/" + url.PathEscape(p.opts.Region) +
		"/publishers/anthropic/models/" + url.PathEscape(model) + ":streamRawPredict"
	req, err := anthropic.NewPlatformRequest(ctx, p.base, path, body, header)
	if err != nil {
		return nil, err
	}
	if !p.opts.SkipAuth {
		tok, err := p.opts.Tokens.Token()
		if err != nil {
			return nil, fmt.Errorf("access token from the Google credentials: %w", err)
		}
		tok.SetAuthHeader(req)
	}
	return req, nil
}

// Events implements [anthropic.Platform]: Vertex streams the API's own events.
func (p *Platform) Events(resp *http.Response) io.ReadCloser { return resp.Body }

// Credential says where the requests' authentication comes from, never what it is.
func (p *Platform) Credential() string {
	if p.opts.SkipAuth {
		return "none (CLAUDE_CODE_SKIP_VERTEX_AUTH)"
	}
	return "Google Application Default Credentials"
}
