package boundedfile

import "os"

// openNonBlocking opens path for reading. Windows has no FIFOs in the file system (named
// pipes live under \\.\pipe\, which a settings path can name, but the type check on the
// opened handle refuses them), and opening a file never waits for a writer, so a plain open
// is the same bound as O_NONBLOCK on Unix.
func openNonBlocking(path string) (*os.File, error) {
	return os.Open(path)
}
