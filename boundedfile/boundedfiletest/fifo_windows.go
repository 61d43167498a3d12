package boundedfiletest

import (
	"errors"
	"fmt"
)

// Mkfifo fails on Windows, whose file systems hold no FIFOs (its named pipes live under
// \\.\pipe\); the tests that need one skip.
func Mkfifo(path string) error {
	return fmt.Errorf("mkfifo %s: %w", path, errors.ErrUnsupported)
}
