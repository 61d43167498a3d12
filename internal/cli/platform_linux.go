package cli

import (
	"os"

	"golang.org/x/sys/unix"

	"github.com/reinsdev/reins/sandbox/bwrap"
	"github.com/reinsdev/reins/sandbox/landlock"
)

// sandboxHelper runs the sandbox's re-exec helpers: the reins binary is the program the
// backends start inside the sandbox. ok is false for any other command line.
func sandboxHelper(args []string) (code int, ok bool) {
	if len(args) == 0 {
		return 0, false
	}
	switch args[0] {
	case bwrap.BridgeArg:
		return bwrap.BridgeMain(args[1:]), true
	case landlock.HelperArg:
		return landlock.HelperMain(args[1:]), true
	}
	return 0, false
}

// landlockABI is the kernel's Landlock ABI version, for `reins sandbox status`.
func landlockABI() (int, error) { return landlock.ABI() }

// stdinIsTerminal asks the terminal driver, not the file mode: /dev/null is a character
// device too, and a person can only answer on a real terminal.
func stdinIsTerminal() bool {
	_, err := unix.IoctlGetTermios(int(os.Stdin.Fd()), unix.TCGETS)
	return err == nil
}
