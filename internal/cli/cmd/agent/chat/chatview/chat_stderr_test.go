package chatview

import (
	"log/slog"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/internal/tui"
)

// TestChatStderrSwapsStandardError: while the chat's setup holds standard error, a warning, a
// reporter's note and the debug log write nothing to it; the debug log goes to the file the
// notice names, and giving standard error back prints the notices no chat showed.
func TestChatStderrSwapsStandardError(t *testing.T) {
	var stderr strings.Builder
	f := &cmdutil.Factory{ErrOut: &stderr, Getenv: func(string) string { return "" }}
	var dbg cmdutil.DebugFlags
	dbg.On = true
	closeDebug, err := dbg.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	defer closeDebug()
	notices := tui.NewNotices()
	restore := Stderr(f, notices)
	f.Warn("a warning while the chat shows")
	cmdutil.Reporter(f).Note("model API: overloaded; retrying in 1.1s (1/4)")
	f.Debugf("a debug line", "k", "v")
	if stderr.Len() != 0 {
		t.Fatalf("standard error was written while the chat held it:\n%s", stderr.String())
	}
	restore()
	out := stderr.String()
	for _, w := range []string{"reins: warning: a warning while the chat shows\n", "reins: model API: overloaded; retrying in 1.1s (1/4)\n"} {
		if !strings.Contains(out, w) {
			t.Errorf("the kept notice %q was not printed when the chat ended:\n%s", w, out)
		}
	}
	m := regexp.MustCompile(`the debug log goes to (\S+) while`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no notice names the debug file:\n%s", out)
	}
	defer os.Remove(m[1])
	data, err := os.ReadFile(m[1])
	if err != nil || !strings.Contains(string(data), "a debug line") {
		t.Errorf("the debug line is not in %s: %v\n%s", m[1], err, data)
	}
	// Once the chat is gone the debug log is on standard error again.
	f.Debug.Log(t.Context(), slog.LevelDebug, "after the chat")
	if !strings.Contains(stderr.String(), "after the chat") {
		t.Errorf("the debug log did not come back to standard error:\n%s", stderr.String())
	}
}
