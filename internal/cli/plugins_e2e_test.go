package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// pluginDir writes a plugin "kit" with an agent, a PreToolUse hook that records the calls it
// sees and a command, and returns its folder.
func (e *e2e) pluginDir() string {
	e.t.Helper()
	dir := filepath.Join(e.home, "src", "kit")
	files := map[string]string{
		".claude-plugin/plugin.json": `{"name": "kit", "version": "1.0.0", "description": "team kit"}`,
		"agents/reviewer.md":         "---\nname: reviewer\ndescription: Reviews diffs for the team\ntools: Read\n---\nPLUGIN-REVIEWER-PROMPT\n",
		"hooks/hooks.json":           `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "cat >> \"${CLAUDE_PLUGIN_ROOT}/seen.log\"; exit 0"}]}]}}`,
		"commands/hello.md":          "---\ndescription: greet\n---\nSay hello\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			e.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			e.t.Fatal(err)
		}
	}
	return dir
}

// TestPluginsE2E runs a local plugin's agent and hook through the real binary.
func TestPluginsE2E(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("hooks are shell scripts")
	}
	bin := reinsBinary(t)

	t.Run("the plugin's agent runs with its prompt", func(t *testing.T) {
		e := newE2E(t, bin)
		plugin := e.pluginDir()
		srv := llmtest.NewAnthropicServer(t,
			llmtest.UseTools(llmtest.Call("Agent", `{"description":"review","prompt":"review the diff","subagent_type":"kit:reviewer"}`)),
			llmtest.Say("looks good"),
			llmtest.Say("done"))
		e.anthropic(srv).run("-p", "--plugin-dir", plugin, "--", "review")
		e.wantCode(0)
		reqs := srv.Requests()
		if len(reqs) != 3 {
			t.Fatalf("%d requests, want 3\n%s", len(reqs), e.stderr)
		}
		if !strings.Contains(string(reqs[0].Body), "kit:reviewer") {
			t.Error("the Agent tool does not offer kit:reviewer")
		}
		if !strings.Contains(string(reqs[1].Body), "PLUGIN-REVIEWER-PROMPT") {
			t.Errorf("the sub-agent did not run with the plugin's prompt")
		}
	})

	t.Run("the plugin's hook runs in a trusted project only", func(t *testing.T) {
		e := newE2E(t, bin)
		plugin := e.pluginDir()
		seen := filepath.Join(plugin, "seen.log")
		script := func() *llmtest.Server {
			return llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Bash", `{"command":"echo plugin-hook-check"}`)), llmtest.Say("ok"))
		}
		e.anthropic(script()).run("-p", "--plugin-dir", plugin, "--allowedTools", "Bash(echo:*)", "--", "go")
		e.wantCode(0)
		if exists(seen) {
			t.Fatal("an untrusted project ran a plugin's hook")
		}
		if !strings.Contains(e.stderr, `plugins: 1 hook(s) not run: this project is not trusted`) {
			t.Errorf("no note of the hook not run: %q", e.stderr)
		}
		e.run("hooks", "list", "--plugin-dir", plugin).wantCode(0)
		if !strings.Contains(e.stdout, "hooks/hooks.json:1:") || !strings.Contains(e.stdout, "skipped: this project is not trusted") {
			t.Errorf("hooks list:\n%s", e.stdout)
		}
		e.run("trust").wantCode(0)
		e.anthropic(script()).run("-p", "--plugin-dir", plugin, "--allowedTools", "Bash(echo:*)", "--", "go")
		e.wantCode(0)
		b, _ := os.ReadFile(seen)
		if !strings.Contains(string(b), "plugin-hook-check") {
			t.Errorf("the plugin's hook did not see the call: %q\n%s", b, e.stderr)
		}
	})

	t.Run("system/init names the plugin and its skills", func(t *testing.T) {
		e := newE2E(t, bin)
		plugin := e.pluginDir()
		e.skillFile(filepath.Join(plugin, "skills"), "fmt", "---\ndescription: Format\n---\nRun gofmt.\n")
		srv := llmtest.NewAnthropicServer(t, llmtest.Say("ok"))
		e.anthropic(srv).run("-p", "--plugin-dir", plugin, "--output-format", "stream-json", "--verbose", "--", "go")
		e.wantCode(0)
		init := e.lines()[0]
		if got := jsonText(init["skills"]); got != `["kit:fmt"]` {
			t.Errorf("skills %s", got)
		}
		if got := jsonText(init["plugins"]); got != fmt.Sprintf(`[{"name":"kit","path":%q}]`, plugin) {
			t.Errorf("plugins %s", got)
		}
	})

	t.Run("a broken plugin.json stops the session with its position", func(t *testing.T) {
		e := newE2E(t, bin)
		plugin := e.pluginDir()
		os.WriteFile(filepath.Join(plugin, ".claude-plugin", "plugin.json"), []byte("{\"name\": \"kit\",\n  \"hooks\": 7}"), 0o644)
		srv := llmtest.NewAnthropicServer(t, llmtest.Say("never"))
		e.anthropic(srv).run("-p", "--plugin-dir", plugin, "--", "go")
		e.wantCode(2)
		if !strings.Contains(e.stderr, "plugin.json:2:12: \"hooks\" must be a path") || len(srv.Requests()) != 0 {
			t.Errorf("stderr %q, %d requests", e.stderr, len(srv.Requests()))
		}
	})

	t.Run("an enabled plugin on disk loads; one not on disk is a warning", func(t *testing.T) {
		e := newE2E(t, bin)
		plugin := e.pluginDir()
		installed := filepath.Join(e.home, ".reins", "plugins", "kit")
		os.MkdirAll(filepath.Dir(installed), 0o755)
		if err := os.Rename(plugin, installed); err != nil {
			t.Fatal(err)
		}
		e.userSettings(`{"enabledPlugins": {"kit@team": true, "gone@team": true}}`)
		srv := llmtest.NewAnthropicServer(t, llmtest.Say("ok"))
		e.anthropic(srv).run("-p", "--", "go")
		e.wantCode(0)
		if !strings.Contains(string(srv.Requests()[0].Body), "kit:reviewer") {
			t.Error("the enabled plugin's agent is not offered")
		}
		if !strings.Contains(e.stderr, "plugin gone@team") || !strings.Contains(e.stderr, "is not on disk") {
			t.Errorf("stderr %q", e.stderr)
		}
	})
}

// TestPluginCommandE2E: enable and disable write enabledPlugins to the user's file, keeping
// the rest of it, and list shows what a session would load.
func TestPluginCommandE2E(t *testing.T) {
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	plugin := e.pluginDir()
	installed := filepath.Join(e.home, ".reins", "plugins", "kit")
	os.MkdirAll(filepath.Dir(installed), 0o755)
	if err := os.Rename(plugin, installed); err != nil {
		t.Fatal(err)
	}
	e.userSettings(`{"permissions": {"deny": ["Bash(rm:*)"]}, "model": "sonnet"}`)
	e.run("plugin", "enable", "kit@team").wantCode(0)
	b, _ := os.ReadFile(filepath.Join(e.home, ".reins", "settings.json"))
	for _, want := range []string{`"Bash(rm:*)"`, `"model": "sonnet"`, `"kit@team": true`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("settings lack %s:\n%s", want, b)
		}
	}
	e.run("plugin", "list").wantCode(0)
	if !strings.Contains(e.stdout, "kit") || !strings.Contains(e.stdout, "1.0.0") || !strings.Contains(e.stdout, installed) {
		t.Errorf("list:\n%s", e.stdout)
	}
	e.run("plugin", "disable", "kit@team").wantCode(0)
	e.run("plugin", "list", "--json").wantCode(0)
	if !strings.Contains(e.stdout, `"plugins": []`) {
		t.Errorf("a disabled plugin is listed:\n%s", e.stdout)
	}
	e.run("plugin", "enable", "../kit").wantCode(2)
	e.run("plugin", "enable", "kit", "--scope", "everywhere").wantCode(2)
}

// TestPluginMCPServerE2E: a plugin's MCP server is a project server: it starts only in a
// trusted project and once approved, as one of .mcp.json would.
func TestPluginMCPServerE2E(t *testing.T) {
	server := goMCPServer(t)
	e := newE2E(t, reinsBinary(t))
	plugin := e.pluginDir()
	mcp := fmt.Sprintf(`{"mcpServers": {"db": {"command": %q, "env": {"REINS_TEST_MCP_SERVER": "basic"}}}}`, server)
	if err := os.WriteFile(filepath.Join(plugin, ".mcp.json"), []byte(mcp), 0o644); err != nil {
		t.Fatal(err)
	}
	e.env = append(e.env, "ENABLE_TOOL_SEARCH=false")
	offered := func() []string {
		srv := llmtest.NewAnthropicServer(t, llmtest.Say("ok"))
		e.anthropic(srv).run("-p", "--plugin-dir", plugin, "--", "go")
		e.wantCode(0)
		return requestTools(t, srv.Requests()[0])
	}
	if tools := offered(); slices.Contains(tools, "mcp__plugin_kit_db__echo") || !strings.Contains(e.stderr, "MCP server plugin_kit_db was not started: the project is not trusted") {
		t.Fatalf("untrusted: tools %v, stderr %q", tools, e.stderr)
	}
	e.run("trust").wantCode(0)
	if tools := offered(); slices.Contains(tools, "mcp__plugin_kit_db__echo") || !strings.Contains(e.stderr, "not in enabledMcpjsonServers") {
		t.Fatalf("trusted, not approved: tools %v, stderr %q", tools, e.stderr)
	}
	e.run("mcp", "approve", "plugin_kit_db").wantCode(2)
	e.run("mcp", "approve", "plugin_kit_db", "--plugin-dir", plugin).wantCode(0)
	if tools := offered(); !slices.Contains(tools, "mcp__plugin_kit_db__echo") {
		t.Fatalf("trusted and approved: tools %v, stderr %q", tools, e.stderr)
	}
	e.run("mcp", "approve", "--reject", "plugin_kit_db", "--plugin-dir", plugin).wantCode(0)
	if tools := offered(); slices.Contains(tools, "mcp__plugin_kit_db__echo") {
		t.Fatalf("refused: tools %v", tools)
	}
	e.userSettings(`{"enabledMcpjsonServers": ["plugin_kit_db"]}`)
	e.run("mcp", "approve", "plugin_kit_db").wantCode(2)
	e.userSettings(`{"enabledPlugins": {"kit": true}}`)
	installed := filepath.Join(e.home, ".reins", "plugins", "kit")
	os.MkdirAll(filepath.Dir(installed), 0o755)
	if err := os.Rename(plugin, installed); err != nil {
		t.Fatal(err)
	}
	e.run("mcp", "list").wantCode(0)
	if !strings.Contains(e.stdout, "plugin_kit_db") {
		t.Errorf("mcp list does not show the enabled plugin's server:\n%s", e.stdout)
	}
	e.run("mcp", "approve", "plugin_kit_db").wantCode(0)
}
