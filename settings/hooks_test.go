package settings

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParseHookSettings(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		want    []string // event|matcher|command|timeout@line:col
		warns   []string
		wantErr string // "line:col: fragment"
	}{
		{name: "none", doc: `{}`},
		{name: "claude code shape", doc: "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"check.sh\", \"timeout\": 5}]}\n    ],\n    \"SessionStart\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo hi\"}]}]\n  }\n}",
			want: []string{"PreToolUse|Bash|check.sh|5@4:37", "SessionStart||echo hi|0@6:33"}},
		{name: "regex and mcp matchers", doc: `{"hooks":{"PostToolUse":[{"matcher":"mcp__memory__.*","hooks":[{"type":"command","command":"log"}]},{"matcher":"Edit|Write","hooks":[{"type":"command","command":"fmt"}]}]}}`,
			want: []string{"PostToolUse|mcp__memory__.*|log|0@1:64", "PostToolUse|Edit|Write|fmt|0@1:134"}},
		{name: "unknown event warns", doc: `{"hooks":{"PostCompact":[{"hooks":[{"type":"command","command":"x"}]}]}}`, warns: []string{"1:11: hook event \"PostCompact\" is not supported"}},
		{name: "prompt hook on Stop warns", doc: `{"hooks":{"Stop":[{"hooks":[{"type":"prompt","prompt":"x"}]}]}}`, warns: []string{"1:29: hooks.Stop[0].hooks[0].type \"prompt\" is not supported"}},
		{name: "prompt hook on PreToolUse is an error", doc: `{"hooks":{"PreToolUse":[{"hooks":[{"type":"prompt","prompt":"x"}]}]}}`, wantErr: "1:43: hooks.PreToolUse[0].hooks[0].type \"prompt\" is not supported"},
		{name: "hooks not an object", doc: `{"hooks": []}`, wantErr: "1:11: hooks must be an object"},
		{name: "event not an array", doc: `{"hooks": {"Stop": {}}}`, wantErr: "1:20: hooks.Stop must be an array"},
		{name: "group without hooks", doc: `{"hooks": {"Stop": [{"matcher": "x"}]}}`, wantErr: "1:21: hooks.Stop[0].hooks must be an array of hooks, not nothing"},
		{name: "bad regex", doc: `{"hooks": {"PreToolUse": [{"matcher": "Bash(", "hooks": []}]}}`, wantErr: "1:39: hooks.PreToolUse[0].matcher \"Bash(\" is not a valid regular expression"},
		{name: "missing command", doc: `{"hooks": {"Stop": [{"hooks": [{"type": "command"}]}]}}`, wantErr: "1:32: hooks.Stop[0].hooks[0].command must be a non-empty string"},
		{name: "bad timeout", doc: `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": "5"}]}]}}`, wantErr: "1:79: hooks.Stop[0].hooks[0].timeout must be a positive number"},
		{name: "negative timeout", doc: `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": -1}]}]}}`, wantErr: "timeout must be a positive number"},
		{name: "disableAllHooks not a bool", doc: `{"disableAllHooks": "yes"}`, wantErr: "1:21: disableAllHooks must be true or false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.write(t, "user", tt.doc)
			l, err := Load(e.opts)
			if tt.wantErr != "" {
				var pe *ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("err %v, want a ParseError", err)
				}
				if got := fmt.Sprintf("%d:%d: %s", pe.Line, pe.Col, pe.Msg); !strings.Contains(got, tt.wantErr) {
					t.Fatalf("error %q, want %q", got, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range l.Hooks(true) {
				got = append(got, fmt.Sprintf("%s|%s|%s|%g@%d:%d", h.Event, h.Matcher, h.Command, h.TimeoutSeconds, h.Line, h.Col))
				if h.File != e.path("user") || h.Skipped != "" {
					t.Errorf("hook %+v", h)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("hooks\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			var ws []string
			for _, w := range l.Warnings() {
				ws = append(ws, fmt.Sprintf("%d:%d: %s", w.Line, w.Col, w.Message))
			}
			for i, w := range tt.warns {
				if i >= len(ws) || !strings.Contains(ws[i], w) {
					t.Errorf("warnings %q, want %q", ws, tt.warns)
				}
			}
		})
	}
}

func TestHooksPolicy(t *testing.T) {
	hook := func(cmd string) string {
		return fmt.Sprintf(`{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":%q}]}]}}`, cmd)
	}
	tests := []struct {
		name    string
		files   map[string]string
		trusted bool
		want    []string // command: skipped fragment ("" runs)
	}{
		{name: "every source", trusted: true,
			files: map[string]string{"user": hook("u"), "userClaude": hook("uc"), "project": hook("p"), "projectClaude": hook("pc"), "local": hook("l"), "policy": hook("m")},
			want:  []string{"u:", "uc:", "p:", "pc:", "l:", "m:"}},
		{name: "untrusted project", trusted: false,
			files: map[string]string{"user": hook("u"), "project": hook("p"), "localClaude": hook("lc")},
			want:  []string{"u:", "p:not trusted", "lc:not trusted"}},
		{name: "disableAllHooks in user settings keeps managed hooks", trusted: true,
			files: map[string]string{"user": `{"disableAllHooks": true}`, "project": hook("p"), "policy": hook("m")},
			want:  []string{"p:disableAllHooks", "m:"}},
		{name: "disableAllHooks in policy", trusted: true,
			files: map[string]string{"user": hook("u"), "policy": `{"disableAllHooks": true, "hooks":{"Stop":[{"hooks":[{"type":"command","command":"m"}]}]}}`},
			want:  []string{"u:managed policy", "m:managed policy"}},
		{name: "allowManagedHooksOnly", trusted: true,
			files: map[string]string{"user": hook("u"), "project": hook("p"), "policy": `{"allowManagedHooksOnly": true, "hooks":{"Stop":[{"hooks":[{"type":"command","command":"m"}]}]}}`},
			want:  []string{"u:allowManagedHooksOnly", "p:allowManagedHooksOnly", "m:"}},
		{name: "allowManagedHooksOnly outside policy is ignored", trusted: true,
			files: map[string]string{"user": `{"allowManagedHooksOnly": true}`, "project": hook("p")},
			want:  []string{"p:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			for name, doc := range tt.files {
				e.write(t, name, doc)
			}
			var got []string
			for _, h := range e.load(t).Hooks(tt.trusted) {
				got = append(got, h.Command+":"+h.Skipped)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("hooks %q, want %q", got, tt.want)
			}
			for i := range got {
				cmd, frag, _ := strings.Cut(tt.want[i], ":")
				if !strings.HasPrefix(got[i], cmd+":") || (frag == "") != strings.HasSuffix(got[i], ":") || !strings.Contains(got[i], frag) {
					t.Errorf("hook %d: %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}
