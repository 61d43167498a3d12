//go:build !linux

package confine

import (
	"errors"
	"os"
)

var errNotLinux = errors.New("the sandbox helpers run only on Linux")

// LandlockMain refuses to run: Landlock is Linux's.
func LandlockMain([]string) int {
	os.Stderr.WriteString("reins sandbox: " + errNotLinux.Error() + "\n")
	return 126
}

// BridgeMain refuses to run: bubblewrap is Linux's.
func BridgeMain([]string) int {
	os.Stderr.WriteString("reins sandbox: " + errNotLinux.Error() + "\n")
	return 126
}

// LandlockABI reports that there is no Landlock here.
func LandlockABI() (int, error) { return 0, errNotLinux }
