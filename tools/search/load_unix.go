//go:build unix

package search

import (
	"syscall"
)

// loadFile returns the content of path. Small files are read into *scratch, which the
// caller reuses from file to file; large ones are memory-mapped. release must be called
// once the data is no longer used.
//
// It uses the system calls directly: an os.File costs a poller registration attempt and a
// cleanup per file, which adds up over a tree of ten thousand files. Most files take open,
// read, read (end of file) and close; the size is asked for only when the first read fills
// the buffer.
func loadFile(path string, scratch *[]byte) (data []byte, release func(), err error) {
	var fd int
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, nil, err
	}
	defer syscall.Close(fd)
	buf := grow((*scratch)[:0], readChunk)
	sized := false
	for {
		if len(buf) == cap(buf) {
			if !sized {
				sized = true
				var st syscall.Stat_t
				if err := syscall.Fstat(fd, &st); err != nil {
					return nil, nil, err
				}
				if st.Size >= mmapThreshold && int64(int(st.Size)) == st.Size {
					if m, err := syscall.Mmap(fd, 0, int(st.Size), syscall.PROT_READ, syscall.MAP_SHARED); err == nil {
						return m, func() { syscall.Munmap(m) }, nil
					}
				}
				buf = grow(buf, int(st.Size)-len(buf)+512)
			} else {
				buf = grow(buf, len(buf))
			}
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if n == 0 {
			break
		}
		buf = buf[:len(buf)+n]
	}
	*scratch = buf
	return buf, func() {}, nil
}
