package cli

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// landlockABI: Landlock is Linux's.
func landlockABI() (int, error) {
	return 0, errors.New("Landlock is Linux's; Reins has no OS sandbox on Windows")
}

// stdinIsTerminal reports whether standard input is a console: GetConsoleMode succeeds only on
// a console handle, not on a file, a pipe or NUL.
func stdinIsTerminal() bool {
	var mode uint32
	return windows.GetConsoleMode(windows.Handle(os.Stdin.Fd()), &mode) == nil
}
