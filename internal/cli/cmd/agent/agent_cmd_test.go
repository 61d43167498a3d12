package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/internal/sdkproto"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
)

func TestModelSettingsPrecedence(t *testing.T) {
	root := t.TempDir()
	cwd, home := filepath.Join(root, "p"), filepath.Join(root, "h")
	write := func(p, s string) {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, ".claude", "settings.json"), `{"model":"claude-user","provider":"anthropic"}`)
	write(filepath.Join(home, ".reins", "settings.json"), `{"model":"reins-user"}`)
	write(filepath.Join(cwd, ".claude", "settings.json"), `{"permissions":{}}`)
	write(filepath.Join(cwd, ".reins", "settings.local.json"), `{"model":"local"}`)

	tests := []struct {
		name, flag      string
		model, provider string
		sources         []permission.Source
		wantErr         bool
	}{
		{name: "local beats user", model: "local", provider: "anthropic"},
		{name: "flag settings beat local", flag: `{"model":"inline","provider":"openai"}`, model: "inline", provider: "openai"},
		{name: "reins file beats claude file", sources: []permission.Source{permission.SourceUser}, model: "reins-user", provider: "anthropic"},
		{name: "wrong type", flag: `{"model":3}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := settings.Load(settings.Options{Cwd: cwd, Home: home, ManagedDir: root, Flag: tt.flag, Sources: tt.sources})
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			model, provider, _ := l.ModelSettings()
			if model != tt.model || provider != tt.provider {
				t.Errorf("got %q/%q, want %q/%q", model, provider, tt.model, tt.provider)
			}
		})
	}
}

func TestReadPrompt(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		stdin    string
		terminal bool
		want     string
	}{
		{"args only", []string{"fix", "it"}, "", false, "fix it"},
		{"stdin only", nil, "  from stdin\n", false, "from stdin"},
		{"both", []string{"review"}, "diff --git", false, "review\n\ndiff --git"},
		{"terminal is not read", []string{"hi"}, "ignored", true, "hi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &cmdutil.Factory{In: strings.NewReader(tt.stdin), IsTerminal: func() bool { return tt.terminal }}
			got, err := readPrompt(f, tt.args)
			if err != nil || got != tt.want {
				t.Errorf("readPrompt = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestDescribeDenials(t *testing.T) {
	var ds []sdkproto.Denial
	for _, in := range []string{`{"command":"rm -rf /"}`, `{"file_path":"/etc/passwd"}`, `{}`} {
		ds = append(ds, sdkproto.Denial{Denial: agent.Denial{ToolName: "T", ToolInput: json.RawMessage(in)}})
	}
	ds = append(ds, sdkproto.Denial{Denial: agent.Denial{ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"curl x"}`)},
		ParentToolUseID: "toolu_1", AgentType: "Explore"})
	if got, want := describeDenials(ds), "T(rm -rf /), T(/etc/passwd), T, Bash(curl x) in sub-agent Explore (toolu_1)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
