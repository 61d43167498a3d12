package cli

import (
	"path/filepath"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// TestInteractiveSkills: /skills lists the project's, the user's and a plugin's skills with
// where each comes from; an untrusted project's skill with allowed-tools says they wait.
func TestInteractiveSkills(t *testing.T) {
	e := newE2E(t, reinsBinary(t))
	e.skillFile(filepath.Join(e.dir, ".claude", "skills"), "lint", "---\ndescription: Run the team's linters\nallowed-tools: Bash(npm run lint:*)\n---\nRun them.\n")
	e.skillFile(filepath.Join(e.home, ".reins", "skills"), "pdf", "---\ndescription: Fill PDF forms\n---\nUse pdftk.\n")
	plugin := e.pluginDir()
	e.skillFile(filepath.Join(plugin, "skills"), "fmt", "---\ndescription: Format the code\n---\nRun gofmt.\n")
	e.anthropic(llmtest.NewAnthropicServer(t, llmtest.Say("hi")))
	r := startTUI(t, e, "--plugin-dir", plugin)
	// The plugin's hook waits for the trust: the dialog asks, and No keeps the project
	// untrusted.
	r.waitFor("Do you trust the files in this folder?")
	r.keys("2")
	r.waitFor("default mode")
	r.typeText("/skills")
	r.keys("Enter")
	r.waitFor("lint (project, .claude/skills/lint/SKILL.md)", "Run the team's linters", "allowed-tools wait for trust",
		"pdf (user,", "Fill PDF forms", "kit:fmt (plugin kit,", "Format the code")
	r.quit()
}

// TestInteractiveTrustListsPluginHooks: a plugin's hooks wait for the project's trust, so the
// trust dialog lists them; after Yes they run.
func TestInteractiveTrustListsPluginHooks(t *testing.T) {
	e := newE2E(t, reinsBinary(t))
	plugin := e.pluginDir()
	e.anthropic(llmtest.NewAnthropicServer(t, llmtest.Say("hi")))
	r := startTUI(t, e, "--plugin-dir", plugin)
	r.waitFor("Do you trust the files in this folder?", `PreToolUse (Bash): cat >> "${CLAUDE_PLUGIN_ROOT}/seen.log"`)
	r.keys("1")
	r.waitFor("default mode")
	r.quit()
}
