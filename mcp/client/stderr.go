package client

import (
	"io"
	"strings"
	"sync"
)

// stderrTail keeps the last bytes a stdio server wrote to standard error, so that a server
// that fails can be reported with its own words, and passes everything on to w.
type stderrTail struct {
	mu  sync.Mutex
	buf []byte
	w   io.Writer
}

const stderrTailSize = 1024

func (t *stderrTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > stderrTailSize {
		t.buf = t.buf[len(t.buf)-stderrTailSize:]
	}
	t.mu.Unlock()
	if t.w != nil {
		_, _ = t.w.Write(p)
	}
	return len(p), nil
}

// last returns the last non-empty line written, if any.
func (t *stderrTail) last() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// withStderr adds the server's last words to a failure reason.
func withStderr(reason string, t *stderrTail) string {
	if l := t.last(); l != "" {
		return reason + " (stderr: " + l + ")"
	}
	return reason
}
