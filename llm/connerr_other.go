//go:build !windows

package llm

import (
	"errors"
	"syscall"
)

// brokenConnection reports a connection refused, reset, aborted or cut (a write to a closed
// one).
func brokenConnection(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNABORTED) ||
		errors.Is(err, syscall.EPIPE)
}
