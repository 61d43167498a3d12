package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/anthropic"
	"github.com/reinsdev/reins/llm/openaicompat"
	"github.com/reinsdev/reins/settings"
)

// Provider names accepted by --provider and the "provider" settings key.
const (
	providerAnthropic = "anthropic"
	providerOpenAI    = "openai"
	providerOllama    = "ollama"
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
  1. flags:        reins -p --provider anthropic|openai --model NAME "prompt"
  2. settings:     "provider" and "model" keys in ~/.reins/settings.json (or the project's .reins/settings.json)
  3. environment:  ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for a proxy),
                   or OPENAI_API_KEY / OPENAI_BASE_URL for OpenAI or an OpenAI-compatible server
Without any of these Reins uses a local Ollama, but none answered at %s`, ollama)
}

// providerChoice is the resolved provider and model.
type providerChoice struct {
	provider llm.Provider
	name     string // anthropic, openai or ollama
	model    string
}

// defaultAnthropicSmallModel summarises pages for WebFetch when nothing else is configured.
const defaultAnthropicSmallModel = "claude-haiku-4-5"

// smallModel is the model WebFetch applies its prompt to a page with: the smallModel setting,
// then REINS_SMALL_MODEL or Claude Code's ANTHROPIC_SMALL_FAST_MODEL, then a small model of
// the provider (for providers without a known small model, the main model).
func smallModel(f *Factory, l *settings.Loaded, choice *providerChoice) string {
	_, _, small := l.ModelSettings()
	if small = cmp.Or(small, f.Getenv("REINS_SMALL_MODEL")); small != "" {
		return small
	}
	if choice.name == "anthropic" {
		return cmp.Or(f.Getenv("ANTHROPIC_SMALL_FAST_MODEL"), defaultAnthropicSmallModel)
	}
	return choice.model
}

// resolveProvider picks the provider and model from, in order: the flags, the settings, the
// environment, and a local Ollama.
func resolveProvider(ctx context.Context, f *Factory, flagProvider, flagModel string, l *settings.Loaded) (*providerChoice, error) {
	setModel, setProvider, _ := l.ModelSettings()
	name := flagProvider
	if name == "" {
		name = setProvider
	}
	model := flagModel
	if model == "" {
		model = setModel
	}
	getenv := f.Getenv
	ollamaURL := ollamaBase(getenv("OLLAMA_HOST"))
	if name == "" {
		switch {
		case getenv("ANTHROPIC_API_KEY") != "" || getenv("ANTHROPIC_AUTH_TOKEN") != "" || getenv("ANTHROPIC_BASE_URL") != "":
			name = providerAnthropic
		case getenv("OPENAI_API_KEY") != "" || getenv("OPENAI_BASE_URL") != "":
			name = providerOpenAI
		case openaicompat.ProbeOllama(ctx, ollamaURL):
			name = providerOllama
		default:
			return nil, noProviderError(ollamaURL)
		}
	}
	if model == "" {
		model = getenv("REINS_MODEL")
	}
	c := &providerChoice{name: name}
	switch name {
	case providerAnthropic:
		if model == "" {
			model = cmp.Or(getenv("ANTHROPIC_MODEL"), defaultAnthropicModel)
		}
		if full, ok := modelAliases[model]; ok {
			model = full
		}
		opts := anthropic.OptionsFromEnv(getenv)
		if err := needKey(opts.APIKey, opts.BaseURL, "", "anthropic", "ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN)"); err != nil {
			return nil, err
		}
		opts.HTTPClient, opts.Retry = streamNet(f)
		c.provider = anthropic.New(opts)
	case providerOpenAI:
		opts := openaicompat.OptionsFromEnv(getenv)
		if model == "" {
			model = getenv("OPENAI_MODEL")
		}
		if model == "" {
			if opts.BaseURL != "" && strings.TrimRight(opts.BaseURL, "/") != openaicompat.DefaultBaseURL {
				return nil, &usageError{fmt.Errorf("no model for the OpenAI-compatible server at %s: pass --model or set \"model\" in settings", opts.BaseURL)}
			}
			model = defaultOpenAIModel
		}
		if err := needKey(opts.APIKey, opts.BaseURL, openaicompat.DefaultBaseURL, "openai", "OPENAI_API_KEY"); err != nil {
			return nil, err
		}
		opts.HTTPClient, opts.Retry = streamNet(f)
		c.provider = openaicompat.New(opts)
	case providerOllama:
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
		opts := openaicompat.Options{BaseURL: ollamaURL + "/v1", Name: providerOllama}
		opts.HTTPClient, opts.Retry = streamNet(f)
		c.provider = openaicompat.New(opts)
	default:
		return nil, &usageError{fmt.Errorf("unknown provider %q (valid providers: anthropic, openai, ollama)", name)}
	}
	c.model = model
	return c, nil
}

// needKey refuses, before any network call, a provider's own API without a key. A base URL
// other than the provider's (a proxy, a local server) may need none. official is the
// provider's own base URL ("" when only an empty base URL means the provider's own API).
func needKey(key, baseURL, official, provider, envName string) error {
	own := baseURL == "" || (official != "" && strings.TrimRight(baseURL, "/") == official)
	if key != "" || !own {
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
