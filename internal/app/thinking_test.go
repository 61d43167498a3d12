package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// withEnv is getenv with name set to value.
func withEnv(getenv func(string) string, name, value string) func(string) string {
	return func(k string) string {
		if k == name {
			return value
		}
		return getenv(k)
	}
}

// TestThinkingBudgetSources: the flag wins over MAX_THINKING_TOKENS, which wins over
// alwaysThinkingEnabled; 0 turns thinking off; the budget reaches the agent.
func TestThinkingBudgetSources(t *testing.T) {
	p := newProject(t)
	p.env["ANTHROPIC_API_KEY"] = "test-key"
	n := func(v int) *int { return &v }
	tests := []struct {
		name     string
		flag     *int
		env      string
		settings string
		want     int
	}{
		{"nothing", nil, "", "", 0},
		{"setting on", nil, "", `{"alwaysThinkingEnabled": true}`, DefaultThinkingBudget},
		{"setting off", nil, "", `{"alwaysThinkingEnabled": false}`, 0},
		{"env over setting", nil, "2048", `{"alwaysThinkingEnabled": true}`, 2048},
		{"env zero turns it off", nil, "0", `{"alwaysThinkingEnabled": true}`, 0},
		{"flag over env", n(4096), "2048", "", 4096},
		{"flag zero over env", n(0), "2048", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(filepath.Join(p.dir, ".reins", "settings.local.json"))
			if tt.settings != "" {
				p.write(t, ".reins/settings.local.json", tt.settings)
			}
			t.Setenv("TMPDIR", t.TempDir())
			a, err := New(context.Background(), Options{Cwd: p.dir, Getenv: withEnv(p.getenv, "MAX_THINKING_TOKENS", tt.env),
				NoPersist: true, MaxThinkingTokens: tt.flag})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			if a.Agent.ThinkingBudget != tt.want {
				t.Errorf("budget %d, want %d", a.Agent.ThinkingBudget, tt.want)
			}
		})
	}
}
