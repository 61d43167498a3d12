package client

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reinsdev/reins/permission"
)

func TestParseConfigDocumentErrorsArePositioned(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"not json", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": }\n  }\n}", "f.json:3:"},
		{"no command", "{\"mcpServers\": {\n  \"a\": {\"args\": [\"x\"]}\n}}", `f.json:2:8: server "a": a stdio server needs a command`},
		{"no url", "{\"mcpServers\": {\"h\": {\"type\": \"http\"}}}", `f.json:1:22: server "h": a http server needs a url`},
		{"bad type", "{\"mcpServers\": {\"h\": {\"type\": \"ws\", \"url\": \"x\"}}}", `unknown type "ws"`},
		{"args not array", "{\"mcpServers\": {\n\"a\": {\"command\": \"x\",\n \"args\": \"-v\"}}}", "f.json:3:10: args must be an array"},
		{"bad name", "{\"mcpServers\": {\"a b\": {\"command\": \"x\"}}}", `server name "a b" may contain only`},
		{"servers not object", "{\"mcpServers\": []}", "f.json:1:16: expected a JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConfigDocument("f.json", []byte(tc.doc), ScopeProject)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestParseConfigDocument(t *testing.T) {
	doc := `{"mcpServers": {
  "fs": {"command": "npx", "args": ["-y", "server"], "env": {"K": "v"}},
  "web": {"type": "http", "url": "https://x/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}, "oauth": {}},
  "old": {"type": "sse", "url": "https://x/sse"}
}, "other": 1}`
	got, err := ParseConfigDocument("f.json", []byte(doc), ScopeUser)
	if err != nil {
		t.Fatal(err)
	}
	want := []ServerConfig{
		{Name: "fs", Command: "npx", Args: []string{"-y", "server"}, Env: map[string]string{"K": "v"}, Scope: ScopeUser, Pos: "f.json:2:9"},
		{Name: "web", Type: "http", URL: "https://x/mcp", Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}, Scope: ScopeUser, Pos: "f.json:3:10"},
		{Name: "old", Type: "sse", URL: "https://x/sse", Scope: ScopeUser, Pos: "f.json:4:10"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Error(d)
	}
}

func TestExpand(t *testing.T) {
	env := map[string]string{"HOME": "/h", "TOKEN": "t0k"}
	getenv := func(k string) string { return env[k] }
	tests := []struct{ in, want, missing string }{
		{"${HOME}/bin", "/h/bin", ""},
		{"${NOPE:-fallback}", "fallback", ""},
		{"${HOME:-x}", "/h", ""},
		{"${NOPE:-}", "", ""},
		{"a ${NOPE} b", "a ${NOPE} b", "NOPE"},
		{"$HOME stays", "$HOME stays", ""},
	}
	for _, tc := range tests {
		got, missing := expand(tc.in, getenv)
		if got != tc.want || strings.Join(missing, ",") != tc.missing {
			t.Errorf("expand(%q) = %q, %v; want %q, %q", tc.in, got, missing, tc.want, tc.missing)
		}
	}
	c := ServerConfig{Command: "${HOME}/srv", Args: []string{"--token=${TOKEN}"}, Env: map[string]string{"A": "${X:-1}"},
		URL: "https://${HOST}/", Headers: map[string]string{"H": "${Y}"}}
	x, err := c.Expanded(getenv)
	if err == nil || err.Error() != "missing environment variables: HOST, Y" {
		t.Errorf("err = %v", err)
	}
	if x.Command != "/h/srv" || x.Args[0] != "--token=t0k" || x.Env["A"] != "1" {
		t.Errorf("expanded = %+v", x)
	}
}

// writeFile writes a file under dir and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func states(es []Entry) map[string]string {
	out := map[string]string{}
	for _, e := range es {
		out[e.Config.Name] = string(e.Config.Scope) + " " + string(e.State)
	}
	return out
}

func TestLoadSourcesApprovalsAndPolicy(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	writeFile(t, cwd, ".mcp.json", `{"mcpServers": {
		"proj1": {"command": "a"}, "proj2": {"command": "b"}, "proj3": {"command": "c"}, "shadow": {"command": "project"}}}`)
	writeFile(t, home, ".claude.json", `{"mcpServers": {"cc": {"command": "cc"}, "shadow": {"command": "claude-user"}}}`)
	writeFile(t, home, ".reins.json", `{"mcpServers": {"mine": {"command": "m"}},
		"projects": {"`+cwd+`": {"mcpServers": {"shadow": {"command": "local"}}, "disabledMcpjsonServers": ["proj3"]}}}`)
	user := writeFile(t, home, ".reins/settings.json", `{"enabledMcpjsonServers": ["proj1"]}`)
	project := writeFile(t, cwd, ".reins/settings.json", `{"enableAllProjectMcpServers": true}`)
	policy := writeFile(t, t.TempDir(), "managed-settings.json", `{"deniedMcpServers": [{"serverName": "cc"}, {"serverCommand": ["m"]}]}`)
	opts := LoadOptions{Cwd: cwd, Home: home, ProjectTrusted: true, Settings: []SettingsFile{
		{user, permission.SourceUser}, {project, permission.SourceProject}, {policy, permission.SourcePolicy}}}
	es, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"proj1":  "project ready",
		"proj2":  "project needs approval", // the project's own enableAll does not count
		"proj3":  "project disabled",
		"shadow": "local ready",
		"cc":     "user denied by policy",
		"mine":   "user denied by policy",
	}
	if d := cmp.Diff(want, states(es)); d != "" {
		t.Error(d)
	}

	opts.ProjectTrusted = false
	es, _ = Load(opts)
	if got := states(es)["proj1"]; got != "project needs approval" {
		t.Errorf("untrusted project: proj1 %s", got)
	}

	opts.Strict = true
	opts.Configs = []string{`{"mcpServers": {"flag": {"command": "f", "args": ["${NOPE}"]}}}`}
	es, _ = Load(opts)
	if d := cmp.Diff(map[string]string{"flag": "dynamic invalid"}, states(es)); d != "" {
		t.Error(d)
	}
	if !strings.Contains(es[0].Reason, "NOPE") {
		t.Errorf("reason = %q", es[0].Reason)
	}
}

func TestLoadAllowListAndBrokenPolicy(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	writeFile(t, home, ".reins.json", `{"mcpServers": {"ok": {"type": "http", "url": "https://good.example/mcp"}, "other": {"command": "x"}}}`)
	policy := writeFile(t, t.TempDir(), "managed-settings.json", `{"allowedMcpServers": [{"serverUrl": "https://good.example/*"}]}`)
	es, err := Load(LoadOptions{Cwd: cwd, Home: home, Settings: []SettingsFile{{policy, permission.SourcePolicy}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]string{"ok": "user ready", "other": "user denied by policy"}, states(es)); d != "" {
		t.Error(d)
	}
	broken := writeFile(t, t.TempDir(), "managed-settings.json", "{\n\"deniedMcpServers\": [{\"serverName\": \"a\", \"serverUrl\": \"b\"}]}")
	_, err = Load(LoadOptions{Cwd: cwd, Home: home, Settings: []SettingsFile{{broken, permission.SourcePolicy}}})
	if err == nil || !strings.Contains(err.Error(), "managed-settings.json:2:21: deniedMcpServers: each entry needs exactly one") {
		t.Errorf("broken policy: %v", err)
	}
	bad := writeFile(t, cwd, ".mcp.json", "{\"mcpServers\": {\"x\": {\"command\": 1}}}")
	if _, err := Load(LoadOptions{Cwd: cwd, Home: home}); err == nil || !strings.HasPrefix(err.Error(), bad+":1:34: command must be a string") {
		t.Errorf("bad .mcp.json: %v", err)
	}
}

func FuzzParseConfigDocument(f *testing.F) {
	f.Add([]byte(`{"mcpServers": {"a": {"command": "x", "args": ["1"], "env": {"K": "${V:-d}"}}}}`))
	f.Add([]byte(`{"mcpServers": {"h": {"type": "http", "url": "u", "headers": {"A": "b"}}}}`))
	f.Add([]byte("{\"mcpServers\": {\n\"a\": {\"command\": }}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cs, err := ParseConfigDocument("f.json", data, ScopeProject)
		if err != nil {
			if pe, ok := err.(*ParseError); ok && pe.Line > 0 && pe.Col <= 0 {
				t.Fatalf("bad position in %v", err)
			}
			return
		}
		for _, c := range cs {
			if c.Name == "" || (c.TransportType() == TypeStdio && c.Command == "") {
				t.Fatalf("accepted an unusable server %+v", c)
			}
		}
	})
}

func FuzzExpand(f *testing.F) {
	f.Add("${HOME}/x", "HOME", "/h")
	f.Add("${A:-d} ${B}", "B", "")
	f.Add("$${A}}${", "A", "${A}")
	f.Fuzz(func(t *testing.T, s, name, value string) {
		getenv := func(k string) string {
			if k == name {
				return value
			}
			return ""
		}
		out, missing := expand(s, getenv)
		if len(missing) == 0 && varPattern().MatchString(s) && !strings.Contains(s, ":-") && name == "" {
			t.Fatalf("%q: a reference with no value and no default was not reported", s)
		}
		// Expansion is one pass: a value that looks like a reference is not expanded again.
		if value != "" && s == "${"+name+"}" && varPattern().MatchString(s) && out != value {
			t.Fatalf("expand(%q) = %q, want %q", s, out, value)
		}
	})
}

func TestOptionsFromEnv(t *testing.T) {
	env := map[string]string{"MCP_TIMEOUT": "1500", "MCP_TOOL_TIMEOUT": "60000", "MAX_MCP_OUTPUT_TOKENS": "100"}
	o, err := OptionsFromEnv(func(k string) string { return env[k] })
	if err != nil || o.StartTimeout != 1500*time.Millisecond || o.CallTimeout != time.Minute || o.MaxOutputTokens != 100 {
		t.Errorf("OptionsFromEnv = %+v, %v", o, err)
	}
	for _, k := range []string{"MCP_TIMEOUT", "MCP_TOOL_TIMEOUT", "MAX_MCP_OUTPUT_TOKENS"} {
		_, err := OptionsFromEnv(func(name string) string {
			if name == k {
				return "soon"
			}
			return ""
		})
		if err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s=soon: err = %v", k, err)
		}
	}
	d := Options{}.withDefaults()
	if d.StartTimeout != DefaultStartTimeout || d.CallTimeout != DefaultCallTimeout || d.MaxOutputTokens != DefaultMaxOutputTokens {
		t.Errorf("defaults = %+v", d)
	}
}

func TestLoadWithoutHomeIgnoresRelativeUserFiles(t *testing.T) {
	cwd := t.TempDir()
	writeFile(t, cwd, ".reins.json", `{"mcpServers": {"planted": {"command": "x"}}}`)
	t.Chdir(cwd)
	es, err := Load(LoadOptions{Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 0 {
		t.Errorf("without a home folder the project's .reins.json was read as the user's: %v", states(es))
	}
}
