package app

import (
	"os"
	"testing"

	"github.com/reinsdev/reins/sandbox/bwrap"
	"github.com/reinsdev/reins/sandbox/landlock"
)

// TestMain lets the test binary stand in for the reins binary the sandbox's backends
// re-execute: sessions run their Bash commands in the sandbox by default, and the helper is
// os.Executable.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case bwrap.BridgeArg:
			os.Exit(bwrap.BridgeMain(os.Args[2:]))
		case landlock.HelperArg:
			os.Exit(landlock.HelperMain(os.Args[2:]))
		}
	}
	os.Exit(m.Run())
}
