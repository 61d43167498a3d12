//go:build !linux

package search

import "os"

// rgPipe makes the pipe for rg's content output. Elsewhere it keeps its size: the reader
// does not nap.
func rgPipe() (r, w *os.File, large bool, err error) {
	r, w, err = os.Pipe()
	return r, w, false, err
}
