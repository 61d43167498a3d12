package tui

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/reinsdev/reins/boundedfile/boundedfiletest"
)

// TestPreviewOfHostilePathDoesNotHang: the model asks to Write to a path that is a FIFO,
// /dev/zero or a huge file; the dialog's diff preview must not read it (a FIFO froze the
// dialog, /dev/zero grew without end) and shows the new content alone.
func TestPreviewOfHostilePathDoesNotHang(t *testing.T) {
	for _, h := range boundedfiletest.Hostile(previewLimits.MaxBytes) {
		t.Run(h.Name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "target.txt")
			h.Make(t, p)
			raw, _ := json.Marshal(map[string]string{"file_path": p, "content": "new text"})
			r := &renderer{st: newStyles(true), width: 80}
			done := make(chan []string, 1)
			go func() {
				_, body := r.preview("Write", raw, "")
				done <- body
			}()
			select {
			case body := <-done:
				if got := ansi.Strip(strings.Join(body, "\n")); !strings.Contains(got, "+new text") {
					t.Errorf("preview:\n%s", got)
				}
			case <-time.After(60 * time.Second):
				t.Fatal("the preview did not return")
			}
		})
	}
}
