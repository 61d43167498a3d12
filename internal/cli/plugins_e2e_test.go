package cli

import (
	"fmt"
	"os"
	"path/filepath"
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
