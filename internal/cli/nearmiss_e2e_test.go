package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPServeQuietByDefault: `reins mcp serve` writes no INFO lines to standard error, which
// an IDE shows to the person; --verbose brings them back.
func TestMCPServeQuietByDefault(t *testing.T) {
	proj, home := e2eProject(t)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}` + "\n"
	for _, tc := range []struct {
		args []string
		info bool
	}{{nil, false}, {[]string{"--verbose"}, true}} {
		cmd := exec.Command(reinsBinary(t), append([]string{"mcp", "serve"}, tc.args...)...)
		cmd.Dir = proj
		cmd.Env = append(os.Environ(), "HOME="+home, "REINS_CONFIG_DIR=", "CLAUDE_CONFIG_DIR=", "REINS_MANAGED_DIR="+filepath.Join(home, "managed"))
		cmd.Stdin = strings.NewReader(init)
		var errb strings.Builder
		cmd.Stderr = &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %v\n%s", tc.args, err, errb.String())
		}
		if got := strings.Contains(errb.String(), "level=INFO"); got != tc.info {
			t.Errorf("mcp serve %v: INFO on standard error %v, want %v:\n%s", tc.args, got, tc.info, errb.String())
		}
	}
}

// TestNearMissCommandInATerminal: in a terminal, `reins permission check` (a command name one
// letter off) is not sent to the model as the chat's first message: it is refused with the
// command meant, and how to send it as a message instead.
func TestNearMissCommandInATerminal(t *testing.T) {
	e := newE2E(t, reinsBinary(t))
	r := startToExit(t, e, "permission", "check")
	r.waitFor("[reins exited 2]")
	// The whole pane, its history included, with wrapped lines joined: the message may have
	// been written before the pane took its size.
	s := r.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "main")
	if !strings.Contains(s, `did you mean "permissions"?`) || !strings.Contains(s, `reins "permission check"`) {
		t.Errorf("no hint for the near miss:\n%s", s)
	}
}
