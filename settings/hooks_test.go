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
		{name: "prompt hook", doc: `{"hooks":{"Stop":[{"hooks":[{"type":"prompt","prompt":"Are the tests green? $ARGUMENTS","model":"haiku","timeout":20}]}]}}`,
			want: []string{"Stop||prompt:Are the tests green? $ARGUMENTS model=haiku|20@1:29"}},
		{name: "agent hook", doc: `{"hooks":{"PreToolUse":[{"hooks":[{"type":"agent","prompt":"check","tools":["Read","Grep"]}]}]}}`,
			want: []string{"PreToolUse||agent:check tools=Read,Grep|0@1:35"}},
		{name: "http hook", doc: `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"http","url":"https://hooks.example.com/pre","headers":{"Authorization":"Bearer $TOKEN"},"allowedEnvVars":["TOKEN"]}]}]}}`,
			want: []string{"PreToolUse|Bash|http:https://hooks.example.com/pre Authorization=Bearer $TOKEN env=TOKEN|0@1:52"}},
		{name: "mcp_tool hook", doc: `{"hooks":{"PostToolUse":[{"hooks":[{"type":"mcp_tool","server":"policy","tool":"check","input":{"path":"${tool_input.file_path}"}}]}]}}`,
			want: []string{`PostToolUse||mcp_tool:policy/check {"path":"${tool_input.file_path}"}|0@1:36`}},
		{name: "unknown type on Stop warns", doc: `{"hooks":{"Stop":[{"hooks":[{"type":"wasm","prompt":"x"}]}]}}`, warns: []string{"1:29: hooks.Stop[0].hooks[0].type \"wasm\" is not a hook type"}},
		{name: "unknown type on PreToolUse is an error", doc: `{"hooks":{"PreToolUse":[{"hooks":[{"type":"wasm","prompt":"x"}]}]}}`, wantErr: "1:43: hooks.PreToolUse[0].hooks[0].type \"wasm\" is not a hook type"},
		{name: "agent hook on PermissionRequest", doc: `{"hooks":{"PermissionRequest":[{"hooks":[{"type":"agent","prompt":"x"}]}]}}`, wantErr: "1:50: hooks.PermissionRequest[0].hooks[0].type \"agent\" cannot answer PermissionRequest"},
		{name: "prompt without a prompt", doc: `{"hooks":{"Stop":[{"hooks":[{"type":"prompt"}]}]}}`, wantErr: "1:29: hooks.Stop[0].hooks[0].prompt is required"},
		{name: "prompt not a string", doc: `{"hooks":{"Stop":[{"hooks":[{"type":"prompt","prompt":7}]}]}}`, wantErr: "1:55: hooks.Stop[0].hooks[0].prompt must be a non-empty string, not 7"},
		{name: "http without a url", doc: `{"hooks":{"Stop":[{"hooks":[{"type":"http"}]}]}}`, wantErr: "1:29: hooks.Stop[0].hooks[0].url is required"},
		{name: "http url not http", doc: `{"hooks":{"Stop":[{"hooks":[{"type":"http","url":"file:///etc/passwd"}]}]}}`, wantErr: "1:50: hooks.Stop[0].hooks[0].url \"file:///etc/passwd\" must be an http or https URL"},
		{name: "http url with a user", doc: `{"hooks":{"Stop":[{"hooks":[{"type":"http","url":"https://a.example@b.example/"}]}]}}`, wantErr: "must be an http or https URL with a host and no user name"},
		{name: "http header not a string", doc: `{"hooks":{"Stop":[{"hooks":[{"type":"http","url":"https://x/","headers":{"X-A":1}}]}]}}`, wantErr: "1:80: hooks.Stop[0].hooks[0].headers.X-A must be a string"},
		{name: "http header with a line break", doc: `{"hooks":{"Stop":[{"hooks":[{"type":"http","url":"https://x/","headers":{"X-A":"a\r\nB: c"}}]}]}}`, wantErr: "headers.X-A is not a valid HTTP header"},
		{name: "http allowedEnvVars not strings", doc: `{"hooks":{"Stop":[{"hooks":[{"type":"http","url":"https://x/","allowedEnvVars":["A",2]}]}]}}`, wantErr: "1:85: hooks.Stop[0].hooks[0].allowedEnvVars[1] must be a string"},
		{name: "mcp_tool without a tool", doc: `{"hooks":{"Stop":[{"hooks":[{"type":"mcp_tool","server":"s"}]}]}}`, wantErr: "hooks.Stop[0].hooks[0].tool is required"},
		{name: "mcp_tool input not an object", doc: `{"hooks":{"Stop":[{"hooks":[{"type":"mcp_tool","server":"s","tool":"t","input":[1]}]}]}}`, wantErr: "1:80: hooks.Stop[0].hooks[0].input must be an object"},
		{name: "allowedHttpHookUrls not an array", doc: `{"allowedHttpHookUrls": "https://x/*"}`, wantErr: "1:25: allowedHttpHookUrls must be an array of strings"},
		{name: "allowedHttpHookUrls null", doc: `{"allowedHttpHookUrls": null}`, wantErr: "1:25: allowedHttpHookUrls must be an array of strings, not null"},
		{name: "httpHookAllowedEnvVars not strings", doc: `{"httpHookAllowedEnvVars": ["A", true]}`, wantErr: "1:34: httpHookAllowedEnvVars[1] must be a string, not true"},
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
				got = append(got, fmt.Sprintf("%s|%s|%s|%g@%d:%d", h.Event, h.Matcher, describeHook(h), h.TimeoutSeconds, h.Line, h.Col))
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

// describeHook is one line of what a hook runs, for the table above.
func describeHook(h HookEntry) string {
	switch h.Type {
	case "":
		return h.Command
	case "http":
		s := "http:" + h.URL
		for _, hd := range h.Headers {
			s += " " + hd.Name + "=" + hd.Value
		}
		if len(h.AllowedEnvVars) > 0 {
			s += " env=" + strings.Join(h.AllowedEnvVars, ",")
		}
		return s
	case "mcp_tool":
		return "mcp_tool:" + h.Server + "/" + h.Tool + " " + string(h.Input)
	}
	s := h.Type + ":" + h.Prompt
	if h.Model != "" {
		s += " model=" + h.Model
	}
	if len(h.Tools) > 0 {
		s += " tools=" + strings.Join(h.Tools, ",")
	}
	return s
}

func TestHTTPHookPolicyLists(t *testing.T) {
	e := newEnv(t)
	e.write(t, "user", "{\n  \"allowedHttpHookUrls\": [\"https://hooks.example.com/*\", \"http://localhost:*\"],\n  \"httpHookAllowedEnvVars\": [\"TOKEN\"]\n}")
	e.write(t, "project", `{"allowedHttpHookUrls": []}`)
	l, err := Load(e.opts)
	if err != nil {
		t.Fatal(err)
	}
	urls, vars := l.HTTPHookPolicy()
	if len(urls) != 2 || urls[0].Origin() != e.path("user")+":2:26" || len(urls[0].Values) != 2 || urls[1].File != e.path("project") || len(urls[1].Values) != 0 {
		t.Errorf("allowedHttpHookUrls lists: %+v", urls)
	}
	if len(vars) != 1 || vars[0].Values[0] != "TOKEN" || vars[0].Line != 3 {
		t.Errorf("httpHookAllowedEnvVars lists: %+v", vars)
	}
}

// Hooks of every type from a project's files wait for trust, as command hooks do.
func TestTypedHooksWaitForTrust(t *testing.T) {
	e := newEnv(t)
	e.write(t, "project", `{"hooks": {"PreToolUse": [{"hooks": [{"type": "http", "url": "https://h.example/x"}, {"type": "prompt", "prompt": "ok?"}, {"type": "mcp_tool", "server": "s", "tool": "t"}]}]}}`)
	l, err := Load(e.opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, trusted := range []bool{false, true} {
		hs := l.Hooks(trusted)
		if len(hs) != 3 {
			t.Fatalf("hooks %+v", hs)
		}
		for _, h := range hs {
			if (h.Skipped != "") == trusted || (!trusted && !strings.Contains(h.Skipped, "not trusted")) {
				t.Errorf("trusted %v: %s hook skipped %q", trusted, h.Type, h.Skipped)
			}
		}
	}
}
