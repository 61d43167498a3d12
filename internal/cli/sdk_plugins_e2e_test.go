package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// TestSDKInitializePlugins: plugins delivered in a hand-written initialize request under
// --await-initialize load as --plugin-dir plugins do (their command, their agent, their hook
// governed as the project's), and a plugin that cannot be loaded is the request's error, with
// the position of a broken plugin.json, and fails the session closed.
func TestSDKInitializePlugins(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the plugin's hook is a shell script")
	}
	bin := reinsBinary(t)
	const prompt = `{"type":"user","message":{"role":"user","content":"hi"},"parent_tool_use_id":null,"session_id":""}` + "\n"
	for _, tt := range []struct {
		name    string
		plugins func(e *e2e) string // the request's plugins field
		flags   []string
		wantErr string // "" expects success
	}{
		{name: "a local plugin read at launch", flags: []string{"--await-initialize"},
			plugins: func(e *e2e) string { return fmt.Sprintf(`[{"type":"local","path":%q}]`, e.pluginDir()) }},
		{name: "a folder that is not a plugin", flags: []string{"--await-initialize"},
			plugins: func(e *e2e) string { return fmt.Sprintf(`[{"type":"local","path":%q}]`, e.dir) }, wantErr: "is not a plugin: it has no .claude-plugin/plugin.json"},
		{name: "a broken plugin.json", flags: []string{"--await-initialize"},
			plugins: func(e *e2e) string {
				dir := e.pluginDir()
				if err := os.WriteFile(filepath.Join(dir, ".claude-plugin", "plugin.json"), []byte("{\n  \"name\": \"kit\",\n  \"comands\": []\n}\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return fmt.Sprintf(`[{"type":"local","path":%q}]`, dir)
			}, wantErr: "plugin.json:3:3"},
		{name: "two plugins of one name", flags: []string{"--await-initialize"},
			plugins: func(e *e2e) string {
				dir := e.pluginDir()
				return fmt.Sprintf(`[{"type":"local","path":%q},{"type":"local","path":%q}]`, dir, dir)
			}, wantErr: `a plugin named "kit" is already loaded`},
		{name: "plugins without --await-initialize",
			plugins: func(e *e2e) string { return fmt.Sprintf(`[{"type":"local","path":%q}]`, e.pluginDir()) }, wantErr: "only at launch with --await-initialize"},
		{name: "a plugin type reins does not load", flags: []string{"--await-initialize"},
			plugins: func(e *e2e) string { return `[{"type":"marketplace","path":"x"}]` }, wantErr: `type "marketplace": reins loads local plugins only`},
		{name: "skipMcpDiscovery", flags: []string{"--await-initialize"},
			plugins: func(e *e2e) string {
				return fmt.Sprintf(`[{"type":"local","path":%q,"skipMcpDiscovery":true}]`, e.pluginDir())
			}, wantErr: "skipMcpDiscovery is not supported by reins"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newE2E(t, bin)
			srv := llmtest.NewAnthropicServer(t, llmtest.Say("hello"))
			e.stdin = `{"type":"control_request","request_id":"1","request":{"subtype":"initialize","plugins":` + tt.plugins(e) + `}}` + "\n" + prompt
			e.anthropic(srv).run(append([]string{"--input-format", "stream-json", "--output-format", "stream-json", "--verbose"}, tt.flags...)...)
			lines := e.lines()
			if len(lines) == 0 {
				t.Fatalf("no output; stderr %s", e.stderr)
			}
			resp, _ := lines[0]["response"].(map[string]any)
			if tt.wantErr != "" {
				e.wantCode(1)
				if resp["subtype"] != "error" || !strings.Contains(fmt.Sprint(resp["error"]), tt.wantErr) {
					t.Errorf("response %v, want an error with %q", resp, tt.wantErr)
				}
				if n := len(srv.Requests()); n != 0 {
					t.Errorf("the model was asked %d times after a refused initialize", n)
				}
				return
			}
			e.wantCode(0)
			body, _ := resp["response"].(map[string]any)
			if resp["subtype"] != "success" || body["plugins_applied"] != true {
				t.Fatalf("response %v, want success with plugins_applied", resp)
			}
			if got := jsonText(body["commands"]); !strings.Contains(got, `"name":"kit:hello"`) {
				t.Errorf("initialize's commands %s, want kit:hello", got)
			}
			if got := jsonText(body["agents"]); !strings.Contains(got, `"name":"kit:reviewer"`) {
				t.Errorf("initialize's agents %s, want kit:reviewer", got)
			}
			init := systemInit(t, lines)
			if cmds, _ := init["slash_commands"].([]any); !slices.Contains(cmds, any("kit:hello")) {
				t.Errorf("system/init slash_commands %v, want kit:hello", cmds)
			}
			if got := jsonText(init["plugins"]); !strings.Contains(got, `"name":"kit"`) {
				t.Errorf("system/init plugins %s", got)
			}
			// Governed as --plugin-dir plugins are: the hook waits for the project's trust.
			if !strings.Contains(e.stderr, "plugins: 1 hook(s) not run: this project is not trusted") {
				t.Errorf("stderr %q, want the plugin's hook held back until trust", e.stderr)
			}
		})
	}
}

// systemInit is the system/init line of an SDK session's output.
func systemInit(t *testing.T, lines []map[string]any) map[string]any {
	t.Helper()
	for _, l := range lines {
		if l["type"] == "system" && l["subtype"] == "init" {
			return l
		}
	}
	t.Fatalf("no system/init among %d lines", len(lines))
	return nil
}

// TestAgentSDKPlugins: the real SDK's plugins option, sent both ways it can be (one
// --plugin-dir flag per plugin, and pluginDelivery 'initialize'), brings the plugin's command
// into system/init's slash_commands and its agent into the Agent tool's types.
func TestAgentSDKPlugins(t *testing.T) {
	node := nodeSDK(t)
	bin := reinsBinary(t)
	for _, delivery := range []string{"argv", "initialize"} {
		t.Run(delivery, func(t *testing.T) {
			e := newE2E(t, bin)
			e.env = append(e.env, "REINS_TEST_PLUGIN="+e.pluginDir(), "REINS_TEST_PLUGIN_DELIVERY="+delivery)
			srv := llmtest.NewAnthropicServer(t, llmtest.Say("hello"))
			e.anthropic(srv).drive(node, "plugins")
			if !strings.Contains(string(srv.Requests()[0].Body), "kit:reviewer") {
				t.Error("the Agent tool does not offer kit:reviewer")
			}
			if !strings.Contains(e.stdout, strconv.Quote(delivery)) {
				t.Errorf("the scenario reports %s, want delivery %s", e.stdout, delivery)
			}
		})
	}
}
