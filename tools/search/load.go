package search

// mmapThreshold is the size from which a file is memory-mapped rather than read (where the
// platform allows): a search then touches only the pages it scans and never holds a
// multi-gigabyte file in memory.
const mmapThreshold = 8 << 20

// readChunk is the scratch buffer's starting size; most source files fit in one read.
const readChunk = 64 << 10

// grow returns buf with room for at least n more bytes.
func grow(buf []byte, n int) []byte {
	if cap(buf)-len(buf) >= n {
		return buf
	}
	return append(buf[:cap(buf)], make([]byte, len(buf)+n-cap(buf))...)[:len(buf)]
}
