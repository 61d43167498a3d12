//go:build unix

package search

import (
	"os"
	"syscall"
)

func mapFile(f *os.File, size int64) ([]byte, func(), bool) {
	if int64(int(size)) != size {
		return nil, nil, false
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, false
	}
	return data, func() { syscall.Munmap(data) }, true
}
