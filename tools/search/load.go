package search

import (
	"io"
	"os"
)

// mmapThreshold is the size from which a file is memory-mapped rather than read: a search
// then touches only the pages it scans and never holds a multi-gigabyte file in memory.
const mmapThreshold = 8 << 20

// readChunk is the scratch buffer's starting size; most source files fit in one read.
const readChunk = 64 << 10

// loadFile returns the content of path. Small files are read into *scratch, which the
// caller reuses from file to file; large ones are mapped where the platform allows.
// release must be called once the data is no longer used.
//
// Most files are read with open, read, read (end of file), close: the size is asked for only
// when the first read fills the buffer.
func loadFile(path string, scratch *[]byte) (data []byte, release func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	buf := (*scratch)[:0]
	if cap(buf) < readChunk {
		buf = make([]byte, 0, readChunk)
	}
	n, err := io.ReadFull(f, buf[:cap(buf)])
	buf = buf[:n]
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		*scratch = buf
		return buf, func() {}, nil
	case err != nil:
		return nil, nil, err
	}
	// The buffer is full: the file may be large.
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if size := fi.Size(); size >= mmapThreshold {
		if data, release, ok := mapFile(f, size); ok {
			return data, release, nil
		}
	}
	if extra := fi.Size() + 512 - int64(cap(buf)); extra > 0 {
		buf = append(buf[:cap(buf)], make([]byte, extra)...)[:len(buf)]
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
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
