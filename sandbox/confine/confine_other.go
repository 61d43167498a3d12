//go:build !linux

package confine

import (
	"errors"
	"fmt"
	"os"
)

var errNotLinux = errors.New("the sandbox helpers run only on Linux")

// LandlockMain refuses to run: Landlock is Linux's.
func LandlockMain([]string) int {
	fmt.Fprintln(os.Stderr, "reins sandbox:", errNotLinux)
	return 126
}

// BridgeMain refuses to run: bubblewrap is Linux's.
func BridgeMain([]string) int {
	fmt.Fprintln(os.Stderr, "reins sandbox:", errNotLinux)
	return 126
}

// LandlockABI reports that there is no Landlock here.
func LandlockABI() (int, error) { return 0, errNotLinux }
