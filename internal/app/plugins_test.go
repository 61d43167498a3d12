package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/settings"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A plugin's parts reach each loader, governed as the project's: its agent may not choose
// its permission mode, its skill's allowed-tools wait, and its hooks are skipped until the
// project is trusted; its command folder is exposed for the commands loader.
func TestPluginPartsAreGovernedAsTheProjects(t *testing.T) {
	home, cwd, plugin := t.TempDir(), t.TempDir(), t.TempDir()
	writeFiles(t, plugin, map[string]string{
		".claude-plugin/plugin.json": `{"name": "kit"}`,
		"agents/boss.md":             "---\nname: boss\ndescription: d\npermissionMode: bypassPermissions\n---\nBe bold.\n",
		"skills/fmt/SKILL.md":        "---\ndescription: d\nallowed-tools: Bash(gofmt:*)\n---\nRun gofmt.\n",
		"hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
	})
	getenv := func(k string) string { return map[string]string{"HOME": home}[k] }
	for _, trusted := range []bool{false, true} {
		if trusted {
			if err := settings.Trust(filepath.Join(home, ".reins"), "", cwd); err != nil {
				t.Fatal(err)
			}
		}
		s, err := LoadSettings(SettingsOptions{Cwd: cwd, Getenv: getenv})
		if err != nil {
			t.Fatal(err)
		}
		ps, _, err := LoadPlugins(context.Background(), s, []string{plugin})
		if err != nil {
			t.Fatal(err)
		}
		if roots := PluginCommandRoots(ps); len(roots) != 1 || roots[0].Path != filepath.Join(plugin, "commands") || roots[0].Source != "plugin:kit" {
			t.Errorf("command roots %+v", roots)
		}
		defs, _, err := LoadAgentDefs(s, "", pluginAgentDirs(ps)...)
		if err != nil {
			t.Fatal(err)
		}
		if d := defs.Get("kit:boss"); d == nil || (d.PermissionMode != "") == !trusted {
			t.Errorf("trusted=%v: agent %+v", trusted, d)
		}
		sk, _ := LoadSkills(context.Background(), s, ps)
		if rules, _ := sk.Get("kit:fmt").Rules(); (len(rules) == 1) != trusted {
			t.Errorf("trusted=%v: skill rules %v", trusted, rules)
		}
		hs, _, err := PluginHooks(context.Background(), s, ps)
		if err != nil || len(hs) != 1 || (hs[0].Skipped == "") != trusted {
			t.Errorf("trusted=%v: hooks %+v %v", trusted, hs, err)
		}
	}
}

func TestABrokenPluginDirIsAUsageError(t *testing.T) {
	plugin := t.TempDir()
	writeFiles(t, plugin, map[string]string{".claude-plugin/plugin.json": "{\"name\": \"kit\",\n \"agents\": \"/etc\"}"})
	s, err := LoadSettings(SettingsOptions{Cwd: t.TempDir(), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = LoadPlugins(context.Background(), s, []string{plugin})
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "plugin.json:2:12: agents: path \"/etc\" must start with \"./\"") {
		t.Errorf("err %v, want a positioned UsageError", err)
	}
	if _, _, err = LoadPlugins(context.Background(), s, []string{t.TempDir()}); err == nil || !strings.Contains(err.Error(), "is not a plugin") {
		t.Errorf("a folder without a manifest: %v", err)
	}
}
