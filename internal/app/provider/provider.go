package provider

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/internal/app/usage"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/anthropic"
	"github.com/reinsdev/reins/llm/bedrock"
	"github.com/reinsdev/reins/llm/openaicompat"
	"github.com/reinsdev/reins/llm/vertex"
	"github.com/reinsdev/reins/settings"
)

// Provider names accepted by --provider and the "provider" settings key.
const (
	Anthropic = "anthropic"
	OpenAI    = "openai"
	Ollama    = "ollama"
	// Bedrock and Vertex carry Anthropic's models over Amazon's and Google's clouds.
	Bedrock = "bedrock"
	Vertex  = "vertex"
)

// Default models when none is configured.
const (
	defaultAnthropicModel = "claude-sonnet-4-5"
	defaultOpenAIModel    = "gpt-4.1"
)

// modelAliases are the short names Claude Code accepts for --model.
var modelAliases = map[string]string{
	"sonnet": "claude-sonnet-4-5",
	"opus":   "claude-opus-4-5",
	"haiku":  "claude-haiku-4-5",
}

// noProviderError is the error when nothing says which model to talk to; ollama is where a
// local Ollama was looked for.
func noProviderError(ollama string) error {
	return fmt.Errorf(`no model provider is configured. Configure one in any of three ways:
  1. flags:        reins -p --provider anthropic|bedrock|vertex|openai --model NAME "prompt"
  2. settings:     "provider" and "model" keys in ~/.reins/settings.json (or the project's .reins/settings.json)
  3. environment:  ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for a proxy),
                   or OPENAI_API_KEY / OPENAI_BASE_URL for OpenAI or an OpenAI-compatible server
Without any of these Reins uses a local Ollama, but none answered at %s`, ollama)
}

// Provider is the resolved model API and model.
type Provider struct {
	LLM   llm.Provider
	Name  string // anthropic, openai or ollama
	Model string
	// BaseURL is where requests go ("" for the provider's own API).
	BaseURL string
	// Credential says where the requests' credential comes from, never what it is:
	// "ANTHROPIC_API_KEY", "apiKeyHelper from FILE:LINE:COL", "none", …
	Credential string
	// CredentialNotes are credentials configured but not used, and why (an untrusted
	// project's apiKeyHelper, one a variable ranks above).
	CredentialNotes []string
	// Headers are the names of the custom headers every request carries
	// (ANTHROPIC_CUSTOM_HEADERS); their values are not kept here.
	Headers []string
	// keyHelper is the apiKeyHelper in use, if one is (see CheckCredential).
	keyHelper *keyHelper
	// region is Bedrock's, whose model ids depend on it.
	region string
}

// Options say which model API and model a session talks to, and how.
type Options struct {
	// Provider and Model are what the caller asked for (flags); empty leaves the choice to the
	// settings, the environment and a local Ollama.
	Provider, Model string
	// Settings are the session's settings (their "provider", "model" and "smallModel" keys);
	// nil is none.
	Settings *settings.Loaded
	Getenv   func(string) string
	// HTTPClient and Retry carry the model API's requests.
	HTTPClient *http.Client
	Retry      llm.RetryPolicy
	// Trusted says the project is trusted: only then may its settings name an apiKeyHelper.
	Trusted bool
	// Dir is the folder an apiKeyHelper runs in (the session's).
	Dir string
	// Groups, when set, watches an apiKeyHelper's process group while it runs (the hooks'
	// guard), so that it ends even if this process is killed meanwhile.
	Groups hooks.GroupGuard
}

// defaultAnthropicSmallModel summarises pages for WebFetch when nothing else is configured.
const defaultAnthropicSmallModel = "claude-haiku-4-5"

// SmallModel is the model WebFetch applies its prompt to a page with: the smallModel setting,
// then REINS_SMALL_MODEL or Claude Code's ANTHROPIC_SMALL_FAST_MODEL, then a small model of
// the provider (for providers without a known small model, the main model).
func (p *Provider) SmallModel(l *settings.Loaded, getenv func(string) string) string {
	var small string
	if l != nil {
		_, _, small = l.ModelSettings()
	}
	if small = cmp.Or(small, getenv("REINS_SMALL_MODEL")); small != "" {
		return small
	}
	switch p.Name {
	case Anthropic, Bedrock, Vertex:
		return p.ResolveModel(cmp.Or(getenv("ANTHROPIC_SMALL_FAST_MODEL"), defaultAnthropicSmallModel))
	}
	return p.Model
}

// ResolveModel turns a model alias (sonnet, opus, haiku) into the Anthropic model it names;
// other providers' names, and names that are no alias, are kept.
func (p *Provider) ResolveModel(m string) string {
	id, ok := modelAliases[m]
	if !ok {
		id = m
	}
	switch p.Name {
	case Anthropic:
		return id
	case Bedrock:
		return bedrock.ModelID(id, p.region)
	case Vertex:
		return vertex.ModelID(id)
	}
	return m
}

// Resolve picks the provider and model from, in order: the options (flags), the
// settings, the environment, and a local Ollama. An unknown provider, or an OpenAI-compatible
// server without a model, is a usage.Error.
func Resolve(ctx context.Context, o Options) (*Provider, error) {
	var setModel, setProvider string
	if o.Settings != nil {
		setModel, setProvider, _ = o.Settings.ModelSettings()
	}
	name := cmp.Or(o.Provider, setProvider)
	model := cmp.Or(o.Model, setModel)
	getenv := o.Getenv
	ollamaURL := ollamaBase(getenv("OLLAMA_HOST"))
	var helper *settings.KeyHelper
	var skipped []settings.KeyHelper
	if o.Settings != nil {
		helper, skipped = o.Settings.APIKeyHelper(o.Trusted)
	}
	if name == "" {
		var err error
		if name, err = detectProvider(ctx, getenv, helper != nil, ollamaURL); err != nil {
			return nil, err
		}
	}
	if model == "" {
		model = getenv("REINS_MODEL")
	}
	c := &Provider{Name: name}
	switch name {
	case Anthropic:
		if model == "" {
			model = cmp.Or(getenv("ANTHROPIC_MODEL"), defaultAnthropicModel)
		}
		if full, ok := modelAliases[model]; ok {
			model = full
		}
		opts, err := anthropic.OptionsFromEnv(getenv)
		if err != nil {
			return nil, err
		}
		if err := c.anthropicCredential(&opts, o, helper, skipped); err != nil {
			return nil, err
		}
		if err := needKey(c.Credential, opts.BaseURL, "", "anthropic", "ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN, or an apiKeyHelper in settings)"); err != nil {
			return nil, err
		}
		opts.HTTPClient, opts.Retry = o.HTTPClient, o.Retry
		c.LLM, c.BaseURL = anthropic.New(opts), opts.BaseURL
	case Bedrock, Vertex:
		if err := c.cloud(ctx, o, cmp.Or(model, getenv("ANTHROPIC_MODEL"), defaultAnthropicModel)); err != nil {
			return nil, err
		}
		model = c.Model
	case OpenAI:
		opts := openaicompat.OptionsFromEnv(getenv)
		if model == "" {
			model = getenv("OPENAI_MODEL")
		}
		if model == "" {
			if opts.BaseURL != "" && strings.TrimRight(opts.BaseURL, "/") != openaicompat.DefaultBaseURL {
				return nil, &usage.Error{Err: fmt.Errorf("no model for the OpenAI-compatible server at %s: pass --model or set \"model\" in settings", opts.BaseURL)}
			}
			model = defaultOpenAIModel
		}
		if opts.APIKey != "" {
			c.Credential = "OPENAI_API_KEY"
		}
		if err := needKey(c.Credential, opts.BaseURL, openaicompat.DefaultBaseURL, "openai", "OPENAI_API_KEY"); err != nil {
			return nil, err
		}
		opts.HTTPClient, opts.Retry = o.HTTPClient, o.Retry
		c.LLM, c.BaseURL = openaicompat.New(opts), opts.BaseURL
	case Ollama:
		if model == "" {
			model = getenv("OPENAI_MODEL")
		}
		if model == "" {
			models, err := ollamaModels(ctx, ollamaURL)
			if err != nil {
				return nil, err
			}
			if len(models) == 0 {
				return nil, fmt.Errorf("the Ollama server at %s has no models: pull one (ollama pull qwen3) or pass --model", ollamaURL)
			}
			model = models[0]
		}
		opts := openaicompat.Options{BaseURL: ollamaURL + "/v1", Name: Ollama}
		opts.HTTPClient, opts.Retry = o.HTTPClient, o.Retry
		c.LLM, c.BaseURL = openaicompat.New(opts), opts.BaseURL
	default:
		return nil, &usage.Error{Err: fmt.Errorf("unknown provider %q (valid providers: anthropic, bedrock, vertex, openai, ollama)", name)}
	}
	c.Model = model
	if c.Credential == "" {
		c.Credential = "none"
	}
	return c, nil
}

// anthropicCredential chooses the credential of the Anthropic API, by Claude Code's precedence:
// ANTHROPIC_AUTH_TOKEN, then ANTHROPIC_API_KEY (OptionsFromEnv took the first set), then the
// apiKeyHelper. It records which one and what was passed over, and names the custom headers.
func (c *Provider) anthropicCredential(opts *anthropic.Options, o Options, helper *settings.KeyHelper, skipped []settings.KeyHelper) error {
	for name := range opts.Headers {
		c.Headers = append(c.Headers, name)
	}
	slices.Sort(c.Headers)
	for _, h := range skipped {
		c.CredentialNotes = append(c.CredentialNotes, fmt.Sprintf(`apiKeyHelper from %s is not run: this project is not trusted (run "reins trust")`, h.Origin()))
	}
	switch {
	case o.Getenv("ANTHROPIC_AUTH_TOKEN") != "":
		c.Credential = "ANTHROPIC_AUTH_TOKEN"
	case o.Getenv("ANTHROPIC_API_KEY") != "":
		c.Credential = "ANTHROPIC_API_KEY"
	case helper != nil:
		kh, err := newKeyHelper(*helper, o.Dir, o.Getenv)
		if err != nil {
			return err
		}
		kh.groups = o.Groups
		opts.Credentials, c.keyHelper = kh, kh
		c.Credential = "apiKeyHelper from " + helper.Origin()
		return nil
	}
	if helper != nil && c.Credential != "" {
		c.CredentialNotes = append(c.CredentialNotes, fmt.Sprintf("apiKeyHelper from %s is not run: %s ranks above it", helper.Origin(), c.Credential))
	}
	return nil
}

// CheckCredential runs the apiKeyHelper in use, if there is one, and returns its error: what
// `reins doctor` tells before any request. The key is not returned.
func (c *Provider) CheckCredential(ctx context.Context) error {
	if c.keyHelper == nil {
		return nil
	}
	_, err := c.keyHelper.Credential(ctx, true)
	return err
}

// needKey refuses, before any network call, a provider's own API without a credential
// (source is where it comes from, "" for none). A base URL other than the provider's (a
// proxy, a local server) may need none. official is the provider's own base URL ("" when only
// an empty base URL means the provider's own API).
func needKey(source, baseURL, official, provider, envName string) error {
	own := baseURL == "" || (official != "" && strings.TrimRight(baseURL, "/") == official)
	if source != "" || !own {
		return nil
	}
	return fmt.Errorf("the %s provider needs an API key: set %s", provider, envName)
}

// ollamaBase turns an OLLAMA_HOST value ("host:port", "http://host:port" or empty) into a base
// URL.
func ollamaBase(host string) string {
	host = strings.TrimRight(strings.TrimSpace(host), "/")
	switch {
	case host == "":
		return openaicompat.OllamaURL
	case strings.HasPrefix(host, "http://"), strings.HasPrefix(host, "https://"):
		return host
	}
	return "http://" + host
}

// ollamaModels lists the models of an Ollama server, most recently changed first.
func ollamaModels(ctx context.Context, base string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/tags", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("listing Ollama models: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("listing Ollama models: %s", resp.Status)
	}
	var tags struct {
		Models []struct {
			Name string `json:"name"`
		} `json:"models"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tags); err != nil {
		return nil, fmt.Errorf("listing Ollama models: %w", err)
	}
	var names []string
	for _, m := range tags.Models {
		if m.Name != "" {
			names = append(names, m.Name)
		}
	}
	return names, nil
}

// detectProvider picks the provider when neither flags nor settings name one: Claude Code's
// cloud switches, then the variables of each API, then a local Ollama.
func detectProvider(ctx context.Context, getenv func(string) string, keyHelper bool, ollamaURL string) (string, error) {
	switch {
	// Claude Code's switches rank above every key: a company that sets one means it.
	case llm.EnvTrue(getenv("CLAUDE_CODE_USE_BEDROCK")):
		return Bedrock, nil
	case llm.EnvTrue(getenv("CLAUDE_CODE_USE_VERTEX")):
		return Vertex, nil
	case getenv("ANTHROPIC_API_KEY") != "" || getenv("ANTHROPIC_AUTH_TOKEN") != "" || getenv("ANTHROPIC_BASE_URL") != "" || keyHelper:
		return Anthropic, nil
	case getenv("OPENAI_API_KEY") != "" || getenv("OPENAI_BASE_URL") != "":
		return OpenAI, nil
	case openaicompat.ProbeOllama(ctx, ollamaURL):
		return Ollama, nil
	}
	return "", noProviderError(ollamaURL)
}
