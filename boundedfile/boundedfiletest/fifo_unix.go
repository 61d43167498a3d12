//go:build unix

package boundedfiletest

import "syscall"

// Mkfifo makes a FIFO at path, readable and writable by its owner.
func Mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }
