package app

import (
	"context"
	"errors"
	"testing"
)

func TestOllamaBase(t *testing.T) {
	for in, want := range map[string]string{
		"":                      "http://localhost:11434",
		"0.0.0.0:11434":         "http://0.0.0.0:11434",
		"https://ollama.local/": "https://ollama.local",
		" http://127.0.0.1:9 ":  "http://127.0.0.1:9",
	} {
		if got := ollamaBase(in); got != want {
			t.Errorf("ollamaBase(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestResolveProviderErrors checks that an error in what was asked for is a UsageError (the
// CLI exits 2) and a missing key is not (exit 1), before any network call.
func TestResolveProviderErrors(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	tests := []struct {
		name  string
		opts  ProviderOptions
		usage bool
	}{
		{"unknown provider", ProviderOptions{Provider: "nope", Getenv: env(nil)}, true},
		{"compatible server without a model", ProviderOptions{Provider: "openai", Getenv: env(map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:1/v1"})}, true},
		{"anthropic without a key", ProviderOptions{Provider: "anthropic", Getenv: env(nil)}, false},
	}
	for _, tt := range tests {
		_, err := ResolveProvider(context.Background(), tt.opts)
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		if _, usage := errors.AsType[*UsageError](err); usage != tt.usage {
			t.Errorf("%s: %v: usage error %v, want %v", tt.name, err, usage, tt.usage)
		}
	}
}

func TestResolveModelAliases(t *testing.T) {
	a, o := &Provider{Name: ProviderAnthropic}, &Provider{Name: ProviderOpenAI}
	if got := a.ResolveModel("opus"); got != modelAliases["opus"] {
		t.Errorf("anthropic opus = %q", got)
	}
	if got := o.ResolveModel("opus"); got != "opus" {
		t.Errorf("openai opus = %q", got)
	}
}
