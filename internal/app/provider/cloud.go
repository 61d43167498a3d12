package provider

import (
	"context"

	"github.com/reinsdev/reins/llm/anthropic"
	"github.com/reinsdev/reins/llm/bedrock"
	"github.com/reinsdev/reins/llm/vertex"
)

// cloud sets c up for Anthropic's models on Amazon Bedrock or Google Vertex AI, each with its
// own authentication (the AWS SDK's credential chain, Google's Application Default
// Credentials): the Anthropic API's keys and apiKeyHelper play no part. model is a first-party
// id or alias, mapped to the platform's id.
func (c *Provider) cloud(ctx context.Context, o Options, model string) error {
	opts, err := anthropic.OptionsFromEnv(o.Getenv)
	if err != nil {
		return err
	}
	opts.APIKey = "" // a first-party key never travels to another cloud
	for name := range opts.Headers {
		c.Headers = append(c.Headers, name)
	}
	switch c.Name {
	case Bedrock:
		p, err := bedrock.FromEnv(ctx, o.Getenv)
		if err != nil {
			return err
		}
		opts.Platform, c.region, c.BaseURL = p, p.Region(), o.Getenv("ANTHROPIC_BEDROCK_BASE_URL")
		c.Credential = p.Credential()
	case Vertex:
		p, err := vertex.FromEnv(ctx, o.Getenv)
		if err != nil {
			return err
		}
		opts.Platform, c.BaseURL = p, o.Getenv("ANTHROPIC_VERTEX_BASE_URL")
		c.Credential = p.Credential()
	}
	opts.HTTPClient, opts.Retry = o.HTTPClient, o.Retry
	c.LLM = anthropic.New(opts)
	c.Model = c.ResolveModel(model)
	return nil
}
