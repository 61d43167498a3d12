//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reinsdev/reins/llm/llmtest"
)

// TestAuditLogFIFOE2E: a trusted repository's committed local settings point audit.path at a
// FIFO (or the anchor beside it is one). Every command that opens the log — -p, tool run,
// audit verify — ends at once, naming the path, instead of hanging deaf to SIGTERM; -p and
// tool run go on without the log, as with any log that cannot be opened.
func TestAuditLogFIFOE2E(t *testing.T) {
	bin := reinsBinary(t)
	for _, planted := range []string{"audit.jsonl", "audit.jsonl.anchor", "audit.jsonl.lock"} {
		t.Run(planted, func(t *testing.T) {
			e := newE2E(t, bin)
			logDir := filepath.Join(e.dir, "logs")
			os.MkdirAll(logDir, 0o755)
			if err := syscall.Mkfifo(filepath.Join(logDir, planted), 0o644); err != nil {
				t.Fatal(err)
			}
			fifo := filepath.Join(logDir, planted)
			os.MkdirAll(filepath.Join(e.dir, ".reins"), 0o755)
			e.write(".reins/settings.local.json", `{"audit": {"path": "logs/audit.jsonl"}, "permissions": {"allow": ["Bash(ls)"]}}`)
			e.trust()
			e.anthropic(llmtest.NewAnthropicServer(t, llmtest.Say("Hello.")))
			for _, args := range [][]string{
				{"-p", "hello"},
				{"tool", "run", "Bash", "--input", `{"command":"ls"}`},
				{"audit", "verify"},
			} {
				ended, termed := e.runBounded(10*time.Second, args...)
				if !ended {
					t.Errorf("reins %s with a FIFO at %s did not end within 10s (SIGTERM ended it: %v)\n%s", strings.Join(args, " "), planted, termed, e.stderr)
					continue
				}
				if !strings.Contains(e.stderr, fifo+" is a FIFO, not a regular file") {
					t.Errorf("reins %s: exit %d, stderr does not name the FIFO:\n%s", strings.Join(args, " "), e.code, e.stderr)
				}
				if args[0] == "audit" && e.code == 0 {
					t.Errorf("reins audit verify of a log with a FIFO exited 0")
				}
				if args[0] == "-p" && (e.code != 0 || !strings.Contains(e.stdout, "Hello.")) {
					t.Errorf("reins -p: exit %d, %s", e.code, e.stdout)
				}
			}
		})
	}
}
