package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/internal/app/usage"
	"github.com/reinsdev/reins/settings"
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

// TestResolveProviderErrors checks that an error in what was asked for is a usage.Error (the
// CLI exits 2) and a missing key is not (exit 1), before any network call.
func TestResolveProviderErrors(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	tests := []struct {
		name  string
		opts  Options
		usage bool
	}{
		{"unknown provider", Options{Provider: "nope", Getenv: env(nil)}, true},
		{"compatible server without a model", Options{Provider: "openai", Getenv: env(map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:1/v1"})}, true},
		{"anthropic without a key", Options{Provider: "anthropic", Getenv: env(nil)}, false},
	}
	for _, tt := range tests {
		_, err := Resolve(context.Background(), tt.opts)
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		if _, isUsage := errors.AsType[*usage.Error](err); isUsage != tt.usage {
			t.Errorf("%s: %v: usage error %v, want %v", tt.name, err, isUsage, tt.usage)
		}
	}
}

func TestResolveModelAliases(t *testing.T) {
	a, o := &Provider{Name: Anthropic}, &Provider{Name: OpenAI}
	if got := a.ResolveModel("opus"); got != modelAliases["opus"] {
		t.Errorf("anthropic opus = %q", got)
	}
	if got := o.ResolveModel("opus"); got != "opus" {
		t.Errorf("openai opus = %q", got)
	}
}

// TestResolveCredential checks which credential an Anthropic session uses and what it says
// about it: Claude Code's precedence (ANTHROPIC_AUTH_TOKEN, ANTHROPIC_API_KEY, apiKeyHelper),
// an untrusted project's helper passed over, the custom headers by name.
func TestResolveCredential(t *testing.T) {
	root := t.TempDir()
	home, proj := filepath.Join(root, "home"), filepath.Join(root, "proj")
	userFile := filepath.Join(home, ".claude", "settings.json")
	projFile := filepath.Join(proj, ".claude", "settings.json")
	for p, content := range map[string]string{userFile: `{"apiKeyHelper": "echo user-key"}`, projFile: `{"apiKeyHelper": "echo planted"}`} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	userOnly := filepath.Join(root, "elsewhere")
	if err := os.MkdirAll(userOnly, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		cwd      string
		trusted  bool
		env      map[string]string
		want     string
		notes    []string
		headers  []string
		wantErr  string
		wantName string
	}{
		{name: "helper alone picks anthropic", cwd: userOnly, want: "apiKeyHelper from " + userFile + ":1:18"},
		{name: "trusted project's helper", cwd: proj, trusted: true, want: "apiKeyHelper from " + projFile + ":1:18"},
		{name: "untrusted project's helper is not run", cwd: proj, want: "apiKeyHelper from " + userFile + ":1:18",
			notes: []string{"apiKeyHelper from " + projFile + `:1:18 is not run: this project is not trusted (run "reins trust")`}},
		{name: "API key ranks above the helper", cwd: userOnly, env: map[string]string{"ANTHROPIC_API_KEY": "k"}, want: "ANTHROPIC_API_KEY",
			notes: []string{"apiKeyHelper from " + userFile + ":1:18 is not run: ANTHROPIC_API_KEY ranks above it"}},
		{name: "auth token ranks above the key", cwd: userOnly, env: map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_AUTH_TOKEN": "t"}, want: "ANTHROPIC_AUTH_TOKEN",
			notes: []string{"apiKeyHelper from " + userFile + ":1:18 is not run: ANTHROPIC_AUTH_TOKEN ranks above it"}},
		{name: "custom headers by name", cwd: userOnly, env: map[string]string{"ANTHROPIC_AUTH_TOKEN": "t", "ANTHROPIC_CUSTOM_HEADERS": "X-Team: a\nX-Cost-Center: b"},
			want: "ANTHROPIC_AUTH_TOKEN", headers: []string{"X-Cost-Center", "X-Team"}, notes: []string{"apiKeyHelper from " + userFile + ":1:18 is not run: ANTHROPIC_AUTH_TOKEN ranks above it"}},
		{name: "bad custom headers", cwd: userOnly, env: map[string]string{"ANTHROPIC_CUSTOM_HEADERS": "X-Team"}, wantErr: "ANTHROPIC_CUSTOM_HEADERS line 1"},
		{name: "bad TTL", cwd: userOnly, env: map[string]string{"CLAUDE_CODE_API_KEY_HELPER_TTL_MS": "soon"}, wantErr: "CLAUDE_CODE_API_KEY_HELPER_TTL_MS must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"HOME": home, "OLLAMA_HOST": "127.0.0.1:1"}
			maps.Copy(env, tt.env)
			getenv := func(k string) string { return env[k] }
			// The settings as a session in tt.cwd reads them (app.Locations).
			l, err := settings.Load(settings.Options{Cwd: tt.cwd, Home: home,
				ConfigDir: filepath.Join(home, ".reins"), ClaudeConfigDir: filepath.Join(home, ".claude")})
			if err != nil {
				t.Fatal(err)
			}
			p, err := Resolve(t.Context(), Options{Settings: l, Getenv: getenv, Trusted: tt.trusted, Dir: tt.cwd})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Name != Anthropic || p.Credential != tt.want {
				t.Errorf("provider %s, credential %q; want anthropic, %q", p.Name, p.Credential, tt.want)
			}
			if fmt.Sprint(p.CredentialNotes) != fmt.Sprint(tt.notes) {
				t.Errorf("notes = %q, want %q", p.CredentialNotes, tt.notes)
			}
			if fmt.Sprint(p.Headers) != fmt.Sprint(tt.headers) {
				t.Errorf("headers = %q, want %q", p.Headers, tt.headers)
			}
		})
	}
}
