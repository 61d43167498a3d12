// Package bedrock carries the Anthropic Messages API over Amazon Bedrock: an
// [anthropic.Platform] that moves the model into the URL, puts Bedrock's
// anthropic_version in the body, signs each request with AWS Signature Version 4
// (or sends a Bedrock API key as a bearer token), and turns Bedrock's binary
// event stream back into the API's server-sent events. The AWS SDK's types stay
// in this package.
//
// Configuration follows Claude Code's variables: CLAUDE_CODE_USE_BEDROCK=1
// switches it on; AWS_REGION (or AWS_DEFAULT_REGION) names the region;
// credentials come from the AWS SDK's default chain (environment, shared
// config and credentials files with AWS_PROFILE, SSO, web identity, the
// container and instance metadata services), or from AWS_BEARER_TOKEN_BEDROCK;
// ANTHROPIC_BEDROCK_BASE_URL replaces the regional endpoint (a proxy or a
// test server), and CLAUDE_CODE_SKIP_BEDROCK_AUTH=1 sends requests unsigned
// for a proxy that signs them itself.
package bedrock

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/reinsdev/reins/built"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/anthropic"
)

// apiVersion is the anthropic_version Bedrock's Anthropic models expect in the body.
const apiVersion = "bedrock-2023-05-31"

// Options configures the platform.
type Options struct {
	Region string
	// BaseURL replaces https://bedrock-runtime.<region>.amazonaws.com.
	BaseURL string
	// BearerToken, if set, is sent instead of a signature (a Bedrock API key).
	BearerToken string
	// Credentials sign the requests when there is no bearer token.
	Credentials aws.CredentialsProvider
	// SkipAuth sends requests with neither (for a proxy that authenticates them).
	SkipAuth bool
	// Now is the signing clock; nil means time.Now.
	Now func() time.Time
}

// Platform is the Bedrock [anthropic.Platform].
type Platform struct {
	opts   Options
	base   *url.URL
	signer *v4.Signer
}

// New checks opts and returns the platform.
func New(opts Options) (*Platform, error) {
	if opts.Region == "" {
		return nil, errors.New("bedrock: no region: set AWS_REGION")
	}
	base := opts.BaseURL
	if base == "" {
		base = "https://bedrock-runtime." + opts.Region + ".amazonaws.com"
	}
	u, err := anthropic.PlatformBase("bedrock", base)
	if err != nil {
		return nil, err
	}
	if !opts.SkipAuth && opts.BearerToken == "" && opts.Credentials == nil {
		return nil, errors.New("bedrock: no AWS credentials: configure the AWS SDK's default chain (AWS_PROFILE, AWS_ACCESS_KEY_ID, SSO, ...) or set AWS_BEARER_TOKEN_BEDROCK")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Platform{opts: opts, base: u, signer: v4.NewSigner()}, nil
}

// FromEnv builds the platform from Claude Code's variables and the AWS SDK's default
// configuration chain.
func FromEnv(ctx context.Context, getenv func(string) string) (*Platform, error) {
	opts := Options{
		Region:      getenv("AWS_REGION"),
		BaseURL:     getenv("ANTHROPIC_BEDROCK_BASE_URL"),
		BearerToken: getenv("AWS_BEARER_TOKEN_BEDROCK"),
		SkipAuth:    llm.EnvTrue(getenv("CLAUDE_CODE_SKIP_BEDROCK_AUTH")),
	}
	if opts.Region == "" {
		opts.Region = getenv("AWS_DEFAULT_REGION")
	}
	if !opts.SkipAuth && opts.BearerToken == "" {
		load := []func(*config.LoadOptions) error{}
		if opts.Region != "" {
			load = append(load, config.WithRegion(opts.Region))
		}
		if p := getenv("AWS_PROFILE"); p != "" {
			load = append(load, config.WithSharedConfigProfile(p))
		}
		built.Mark(built.AWSCredentials)
		cfg, err := config.LoadDefaultConfig(ctx, load...)
		if err != nil {
			return nil, fmt.Errorf("bedrock: loading the AWS configuration: %w", err)
		}
		opts.Credentials = cfg.Credentials
		if opts.Region == "" {
			opts.Region = cfg.Region // from the profile's config file
		}
	}
	return New(opts)
}

// Name implements [anthropic.Platform].
func (p *Platform) Name() string { return "bedrock" }

// Request implements [anthropic.Platform]: POST <base>/model/<model>/invoke-with-response-stream.
func (p *Platform) Request(ctx context.Context, body []byte, header http.Header) (*http.Request, error) {
	model, body, err := anthropic.Envelope(body, apiVersion, true)
	if err != nil {
		return nil, err
	}
	req, err := anthropic.NewPlatformRequest(ctx, p.base, "/model/"+url.PathEscape(model)+"/invoke-with-response-stream", body, header)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/vnd.amazon.eventstream")
	req.Header.Set("X-Amzn-Bedrock-Accept", "*/*")
	switch {
	case p.opts.SkipAuth:
	case p.opts.BearerToken != "":
		req.Header.Set("Authorization", "Bearer "+p.opts.BearerToken)
	default:
		creds, err := p.opts.Credentials.Retrieve(ctx)
		if err != nil {
			return nil, fmt.Errorf("AWS credentials: %w", err)
		}
		sum := sha256.Sum256(body)
		if err := p.signer.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), "bedrock", p.opts.Region, p.opts.Now()); err != nil {
			return nil, fmt.Errorf("signing: %w", err)
		}
	}
	return req, nil
}

// Events implements [anthropic.Platform].
func (p *Platform) Events(resp *http.Response) io.ReadCloser {
	return newEventReader(resp.Body)
}

// Region is the region the requests go to.
func (p *Platform) Region() string { return p.opts.Region }

// Credential says where the requests' authentication comes from, never what it is.
func (p *Platform) Credential() string {
	switch {
	case p.opts.SkipAuth:
		return "none (CLAUDE_CODE_SKIP_BEDROCK_AUTH)"
	case p.opts.BearerToken != "":
		return "AWS_BEARER_TOKEN_BEDROCK"
	}
	return "AWS credentials (SigV4)"
}
