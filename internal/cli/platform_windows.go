package cli

import (
	"os"

	"golang.org/x/sys/windows"
)

// stdinIsTerminal reports whether standard input is a console: GetConsoleMode succeeds only on
// a console handle, not on a file, a pipe or NUL.
func stdinIsTerminal() bool {
	var mode uint32
	return windows.GetConsoleMode(windows.Handle(os.Stdin.Fd()), &mode) == nil
}
