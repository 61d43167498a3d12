package cli

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/reinsdev/reins/internal/tui"
)

// swapWriter is a writer whose destination can change while others hold it: the debug log's
// standard error, which the chat moves to a file while it owns the terminal.
type swapWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *swapWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *swapWriter) swap(w io.Writer) io.Writer {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.w
	s.w = w
	return old
}

// chatStderr takes the process's standard error away from the terminal for as long as the chat
// may draw on it, from the session's assembly to its Close: what the session reports becomes a
// notice in the transcript, and a --debug log that went to standard error goes to a file the
// first notice names. The returned function gives standard error back and prints there what
// came while no chat was showing.
func chatStderr(f *Factory, notices *tui.Notices) (restore func()) {
	errOut := f.ErrOut
	f.ErrOut = notices
	var debugFile *os.File
	if f.debugErr != nil {
		if file, err := os.CreateTemp("", "reins-debug-*.txt"); err != nil {
			notices.Warn(fmt.Sprintf("--debug: the debug log cannot go to standard error behind the chat, and no file could be made for it: %v; it is off", err))
			f.debugErr.swap(io.Discard)
		} else {
			debugFile = file
			f.debugErr.swap(file)
			notices.Note("the debug log goes to " + file.Name() + " while the chat shows")
		}
	}
	return func() {
		if f.debugErr != nil {
			f.debugErr.swap(errOut)
		}
		if debugFile != nil {
			debugFile.Close()
		}
		f.ErrOut = errOut
		notices.Flush(errOut)
	}
}
