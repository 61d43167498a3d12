package plugins

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reinsdev/reins/mcp/client"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
)

func TestParseManifest(t *testing.T) {
	tests := []struct {
		name, src string
		check     func(*testing.T, *Manifest)
		wantErr   string
	}{
		{name: "name only", src: `{"name": "fmt"}`},
		{name: "every key", src: `{"name": "deploy-tools", "version": "1.2.0", "description": "d", "author": {"name": "A", "email": "a@b"},
 "homepage": "h", "repository": "r", "license": "MIT", "keywords": ["k"], "commands": ["./extra/cmd.md"], "agents": "./more-agents/",
 "skills": "./s/", "hooks": "./config/hooks.json", "mcpServers": "./mcp.json"}`, check: func(t *testing.T, m *Manifest) {
			if m.Author.Name != "A" || !slices.Equal(m.Commands, []string{"./extra/cmd.md"}) || !slices.Equal(m.Agents, []string{"./more-agents/"}) ||
				!slices.Equal(m.HooksFiles, []string{"./config/hooks.json"}) || !slices.Equal(m.MCPFiles, []string{"./mcp.json"}) {
				t.Errorf("manifest %+v", m)
			}
		}},
		{name: "inline hooks and servers", src: `{"name": "x", "hooks": {"Stop": []}, "mcpServers": {"db": {"command": "db"}}}`, check: func(t *testing.T, m *Manifest) {
			if m.HooksInline == nil || m.MCPInline == nil || m.MCPInlineOff != 51 {
				t.Errorf("inline hooks %s, servers %s at %d", m.HooksInline, m.MCPInline, m.MCPInlineOff)
			}
		}},
		{name: "no name", src: `{"version": "1"}`, wantErr: `p.json:1:1: missing required key "name"`},
		{name: "bad name", src: "{\n  \"name\": \"My Plugin\"\n}", wantErr: `p.json:2:11: invalid plugin name "My Plugin"`},
		{name: "unknown key", src: "{\"name\": \"x\",\n \"comands\": \"./c\"}", wantErr: `p.json:2:2: unknown key "comands" (did you mean "commands"?)`},
		{name: "duplicate key", src: `{"name": "x", "name": "y"}`, wantErr: `p.json:1:15: duplicate key "name"`},
		{name: "a path leaving the plugin", src: `{"name": "x", "agents": "./../../etc"}`, wantErr: `p.json:1:25: agents: path "./../../etc" leaves the plugin's folder`},
		{name: "a path without ./", src: `{"name": "x", "skills": ["/abs"]}`, wantErr: `p.json:1:25: skills: path "/abs" must start with "./"`},
		{name: "wrong type", src: `{"name": "x", "version": 2}`, wantErr: `p.json:1:26: "version" must be a string`},
		{name: "syntax error", src: "{\"name\": \"x\",\n  \"version\": }", wantErr: "p.json:2:14: invalid JSON"},
		{name: "not an object", src: `[1]`, wantErr: "p.json:1:1: plugin.json must be a JSON object"},
		{name: "trailing data", src: `{"name": "x"} {}`, wantErr: "unexpected data after the JSON object"},
		{name: "unsupported key", src: `{"name": "x", "lspServers": {}}`, wantErr: `p.json:1:15: "lspServers" is not supported`},
		{name: "too large", src: `{"name": "x", "description": "` + strings.Repeat("d", MaxManifestSize) + `"}`, wantErr: "p.json: file is larger than"},
		{name: "empty", src: ``, wantErr: "p.json:1:1: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseManifest("p.json", []byte(tt.src))
			if tt.wantErr != "" {
				var pe *Error
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &pe) {
					t.Fatalf("err = %v, want an *Error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.check != nil {
				tt.check(t, m)
			}
		})
	}
}

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(`{"name": "fmt", "hooks": "./h.json", "mcpServers": {"a": {"command": "x"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest("p.json", data)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not an *Error", err)
			}
			return
		}
		if !validName().MatchString(m.Name) {
			t.Fatalf("accepted the name %q", m.Name)
		}
		for _, p := range slices.Concat(m.Commands, m.Agents, m.Skills, m.HooksFiles, m.MCPFiles) {
			if c := filepath.Clean(filepath.Join("/plugin", p)); c != "/plugin" && !strings.HasPrefix(c, "/plugin/") {
				t.Fatalf("path %q leaves the plugin", p)
			}
		}
	})
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// makePlugin writes a plugin with one of each component.
func makePlugin(t *testing.T, dir, name string) {
	write(t, filepath.Join(dir, ManifestPath), `{"name": "`+name+`", "version": "1.0.0", "agents": "./extra-agents"}`)
	write(t, filepath.Join(dir, "commands", "hello.md"), "Say hello")
	write(t, filepath.Join(dir, "agents", "reviewer.md"), "---\nname: reviewer\ndescription: reviews\n---\nReview.\n")
	write(t, filepath.Join(dir, "extra-agents", "tester.md"), "---\nname: tester\ndescription: tests\n---\nTest.\n")
	write(t, filepath.Join(dir, "skills", "fmt", "SKILL.md"), "---\ndescription: format\nallowed-tools: Bash(gofmt:*)\n---\nRun gofmt.\n")
	write(t, filepath.Join(dir, "hooks", "hooks.json"), `{"description": "log", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/log.sh"}]}]}}`)
	write(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers": {"db": {"command": "${CLAUDE_PLUGIN_ROOT}/db", "args": ["--root", "${CLAUDE_PLUGIN_ROOT}"]}}}`)
}

func TestPluginComponents(t *testing.T) {
	dir := t.TempDir()
	makePlugin(t, dir, "kit")
	p, err := Load(context.Background(), dir, "--plugin-dir")
	if err != nil {
		t.Fatal(err)
	}
	if got := p.CommandRoots(); got[0] != filepath.Join(dir, "commands") {
		t.Errorf("command roots %q", got)
	}
	if got := p.AgentDirs(); len(got) != 2 || got[1].Path != filepath.Join(dir, "extra-agents") || got[1].Plugin != "kit" {
		t.Errorf("agent dirs %+v", got)
	}
	hs, files, _, err := p.Hooks(context.Background())
	if err != nil || len(hs) != 1 || files[0] != filepath.Join(dir, "hooks", "hooks.json") {
		t.Fatalf("hooks %+v %q %v", hs, files, err)
	}
	if hs[0].Command != "${CLAUDE_PLUGIN_ROOT}/log.sh" || hs[0].PluginRoot != dir || hs[0].Line != 1 {
		t.Errorf("hook %+v", hs[0])
	}
	cs, err := p.MCPServers(context.Background())
	if err != nil || len(cs) != 1 {
		t.Fatalf("servers %+v %v", cs, err)
	}
	if c := cs[0]; c.Name != "plugin_kit_db" || c.Scope != client.ScopeProject || c.Command != dir+"/db" || c.Args[1] != dir {
		t.Errorf("server %+v", c)
	}
}

func TestPluginHooksAreGovernedAsTheProjects(t *testing.T) {
	dir := t.TempDir()
	makePlugin(t, dir, "kit")
	p, err := Load(context.Background(), dir, "--plugin-dir")
	if err != nil {
		t.Fatal(err)
	}
	hs, files, _, err := p.Hooks(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	l, err := settings.Load(settings.Options{Cwd: t.TempDir(), Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if got := l.PluginHooks(hs, files[0], false); got[0].Skipped == "" || got[0].Source != permission.SourceProject {
		t.Errorf("an untrusted project ran a plugin's hook: %+v", got[0])
	}
	if got := l.PluginHooks(hs, files[0], true); got[0].Skipped != "" {
		t.Errorf("a trusted project's plugin hook skipped: %q", got[0].Skipped)
	}
	write(t, filepath.Join(home, ".reins", "settings.json"), `{"disableAllHooks": true}`)
	if l, err = settings.Load(settings.Options{Cwd: t.TempDir(), Home: home}); err != nil {
		t.Fatal(err)
	}
	if got := l.PluginHooks(hs, files[0], true); !strings.Contains(got[0].Skipped, "disableAllHooks") {
		t.Errorf("disableAllHooks did not stop a plugin's hook: %+v", got[0])
	}
}

func TestLoadAllFindsEnabledPluginsOnDisk(t *testing.T) {
	home := t.TempDir()
	config := filepath.Join(home, ".reins")
	makePlugin(t, filepath.Join(config, "plugins", "kit"), "kit")
	makePlugin(t, filepath.Join(home, ".claude", "plugins", "cache", "acme", "fmt", "2.0.0"), "fmt")
	flagDir := t.TempDir()
	makePlugin(t, flagDir, "kit")
	broken := t.TempDir()
	write(t, filepath.Join(broken, ManifestPath), "{\"name\": \"x\",\n \"hooks\": 3}")

	s := LoadAll(context.Background(), []string{broken, flagDir}, []Enabled{
		{Key: "kit@local", File: "u.json:1:1"}, {Key: "fmt@acme", File: "u.json:2:1"}, {Key: "gone@acme", File: "u.json:3:1"}}, home, config)
	var got []string
	for _, p := range s.Plugins {
		got = append(got, p.Name+" "+p.From)
	}
	if want := []string{"kit --plugin-dir", "fmt enabledPlugins in u.json:2:1"}; !slices.Equal(got, want) {
		t.Errorf("plugins %q, want %q", got, want)
	}
	var errs []string
	for _, e := range s.Errors {
		errs = append(errs, e.Error())
	}
	errs = append(errs, s.Missing...)
	for _, want := range []string{"plugin.json:2:11: \"hooks\" must be a path", `a plugin named "kit" is already loaded`, "plugin gone@acme (enabled in u.json:3:1) is not on disk"} {
		if !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, want) }) {
			t.Errorf("errors %q lack %q", errs, want)
		}
	}
	if _, ok := Find("../x", home, config); ok {
		t.Error("Find took a path for a name")
	}
}
