package search

// mmapThreshold is the size from which a file is memory-mapped rather than read (where the
// platform allows): a search then touches only the pages it scans and never holds a
// multi-gigabyte file in memory. It is low so that the per-worker read buffers stay small:
// with 8 MB, a few large files in the Go tree grew them (and the garbage of each growth) to
// twice ripgrep's peak memory; with 256 KB the engine peaks near ripgrep's.
const mmapThreshold = 256 << 10

// readChunk is the scratch buffer's starting size; most source files fit in one read.
const readChunk = 64 << 10

// grow returns buf with room for at least n more bytes.
func grow(buf []byte, n int) []byte {
	if cap(buf)-len(buf) >= n {
		return buf
	}
	nb := make([]byte, len(buf), len(buf)+n)
	copy(nb, buf)
	return nb
}
