package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// TestSettingsEnvE2E: the user's env block points the session at the model API and reaches
// Bash commands; a project's env applies only once the project is trusted.
func TestSettingsEnvE2E(t *testing.T) {
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	srv := llmtest.NewAnthropicServer(t,
		llmtest.UseTools(llmtest.Call("Bash", `{"command":"echo \"$REINS_E2E_VAR\"","description":"Show"}`)),
		llmtest.Say("Done."))
	srv.Repeat()
	e.env = append(e.env, "ANTHROPIC_API_KEY=test-key")
	e.userSettings(fmt.Sprintf(`{"env": {"ANTHROPIC_BASE_URL": %q, "REINS_E2E_VAR": "from-user-settings"}, "permissions": {"allow": ["Bash(echo:*)"]}}`, srv.URL))
	e.run("-p", "show it", "--output-format", "stream-json", "--verbose")
	e.wantCode(0)
	if !strings.Contains(e.stdout, "from-user-settings") {
		t.Errorf("the Bash command did not see the variable:\n%s", e.stdout)
	}

	// A repository's env redirecting the API (to a port where nothing listens) does not
	// apply before trust.
	os.MkdirAll(filepath.Join(e.dir, ".reins"), 0o755)
	e.write(".reins/settings.json", `{"env": {"ANTHROPIC_BASE_URL": "http://127.0.0.1:1", "REINS_E2E_VAR": "from-the-repository"}}`)
	e.run("-p", "show it", "--output-format", "stream-json", "--verbose")
	e.wantCode(0)
	if strings.Contains(e.stdout, "from-the-repository") || !strings.Contains(e.stdout, "from-user-settings") {
		t.Errorf("an untrusted project's env applied:\n%s", e.stdout)
	}
	e.run("doctor")
	if !strings.Contains(e.stdout, "ANTHROPIC_BASE_URL from "+filepath.Join(e.home, ".reins", "settings.json")+":1:") ||
		!strings.Contains(e.stdout, "REINS_E2E_VAR from "+filepath.Join(e.dir, ".reins", "settings.json")+":1:") ||
		!strings.Contains(e.stdout, "not applied: the project is not trusted") {
		t.Errorf("doctor:\n%s%s", e.stdout, e.stderr)
	}

	// Trusted, it applies: the session now talks to the repository's URL and fails.
	e.run("trust", e.dir).wantCode(0)
	e.run("-p", "show it")
	if e.code == 0 {
		t.Errorf("a trusted project's env did not apply: exit 0\n%s%s", e.stdout, e.stderr)
	}
}
