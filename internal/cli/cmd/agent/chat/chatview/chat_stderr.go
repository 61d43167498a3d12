package chatview

import (
	"fmt"
	"io"
	"os"

	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/internal/tui"
)

// Stderr takes the process's standard error away from the terminal for as long as the chat
// may draw on it, from the session's assembly to its Close: what the session reports becomes a
// notice in the transcript, and a --debug log that went to standard error goes to a file the
// first notice names. The returned function gives standard error back and prints there what
// came while no chat was showing.
func Stderr(f *cmdutil.Factory, notices *tui.Notices) (restore func()) {
	errOut := f.ErrOut
	f.ErrOut = notices
	var debugFile *os.File
	if f.DebugErr != nil {
		if file, err := os.CreateTemp("", "reins-debug-*.txt"); err != nil {
			notices.Warn(fmt.Sprintf("--debug: the debug log cannot go to standard error behind the chat, and no file could be made for it: %v; it is off", err))
			f.DebugErr.Swap(io.Discard)
		} else {
			debugFile = file
			f.DebugErr.Swap(file)
			notices.Note("the debug log goes to " + file.Name() + " while the chat shows")
		}
	}
	return func() {
		if f.DebugErr != nil {
			f.DebugErr.Swap(errOut)
		}
		if debugFile != nil {
			debugFile.Close()
		}
		f.ErrOut = errOut
		notices.Flush(errOut)
	}
}
