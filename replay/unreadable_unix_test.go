//go:build unix

package replay

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/session"
)

// A FIFO and a link to a device are Unix's: Windows folders hold neither.

// TestAnUnreadableSessionFileIsSkipped: a FIFO and a link to /dev/zero among the session
// files are each left out with where and why, and the calls of the readable session are
// still read (one such file stopped the whole replay).
func TestAnUnreadableSessionFileIsSkipped(t *testing.T) {
	dir := t.TempDir()
	store := session.NewStore(dir)
	cwd := filepath.Join(dir, "proj")
	w, err := store.Create(cwd, "m")
	if err != nil {
		t.Fatal(err)
	}
	w.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.ToolUse("toolu_1", "Bash", json.RawMessage(`{"command":"ls"}`))}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(store.Dir(cwd), "00000000-0000-4000-8000-000000000001.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(store.Dir(cwd), "00000000-0000-4000-8000-000000000002.jsonl")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	calls, skipped, err := SessionCalls(context.Background(), store.Dir(cwd), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || calls[0].ToolUseID != "toolu_1" {
		t.Errorf("calls = %+v, want the readable session's", calls)
	}
	if len(skipped) != 2 || skipped[0].Path != fifo || !strings.Contains(skipped[0].Error, "FIFO") ||
		skipped[1].Path != zero || !strings.Contains(skipped[1].String(), zero+": ") {
		t.Errorf("skipped = %+v, want the FIFO and the link, each named with why", skipped)
	}
}
