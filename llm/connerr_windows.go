package llm

import (
	"errors"
	"syscall"
)

// wsaeConnRefused is WSAECONNREFUSED (winerror.h), which package syscall does not name. On
// Windows syscall.ECONNREFUSED and its kin are Go's own numbers that no system call returns,
// so matching them alone would never retry a refused connection there.
const wsaeConnRefused syscall.Errno = 10061

// systemBrokenConnection is a connection refused, reset, aborted or cut in Winsock's numbers.
func systemBrokenConnection(err error) bool {
	return errors.Is(err, wsaeConnRefused) ||
		errors.Is(err, syscall.WSAECONNRESET) ||
		errors.Is(err, syscall.WSAECONNABORTED) ||
		errors.Is(err, syscall.ERROR_BROKEN_PIPE)
}
