//go:build !windows

package llm

// systemBrokenConnection adds nothing where the syscall package's numbers are the system's.
func systemBrokenConnection(error) bool { return false }
