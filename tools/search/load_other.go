//go:build !unix

package search

import (
	"io"
	"os"
)

// loadFile returns the content of path, read into *scratch, which the caller reuses from
// file to file. release must be called once the data is no longer used.
func loadFile(path string, scratch *[]byte) (data []byte, release func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	buf := grow((*scratch)[:0], readChunk)
	for {
		if len(buf) == cap(buf) {
			buf = grow(buf, len(buf))
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
	}
	*scratch = buf
	return buf, func() {}, nil
}
