package memory

import (
	"errors"
	"fmt"
)

// mkfifo fails on Windows, whose file systems hold no FIFOs.
func mkfifo(p string) error { return fmt.Errorf("mkfifo %s: %w", p, errors.ErrUnsupported) }
