package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// stdinIsTerminal asks the terminal driver, not the file mode: /dev/null is a character
// device too, and a person can only answer on a real terminal.
func stdinIsTerminal() bool {
	_, err := unix.IoctlGetTermios(int(os.Stdin.Fd()), unix.TCGETS)
	return err == nil
}
