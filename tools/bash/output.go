package bash

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"
)

// elisionRoom is what the "... [N lines truncated] ..." marker may take of the character cap.
const elisionRoom = 64

// formatted is a command's output as the model sees it.
type formatted struct {
	text      string
	truncated bool
	// elided is the number of lines left out of text.
	elided int
	// size is the size of the output file when it was read.
	size int64
}

// formatOutputFile reads a command's output file and formats it with formatOutput.
func formatOutputFile(path string, maxChars int) (formatted, error) {
	f, err := os.Open(path)
	if err != nil {
		return formatted{}, fmt.Errorf("reading the output of the command: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return formatted{}, fmt.Errorf("reading the output of the command: %w", err)
	}
	return formatOutput(f, fi.Size(), maxChars)
}

// formatOutput formats the first size bytes of r as Claude Code shows command output: leading
// blank lines and trailing white space removed, and when more than maxChars characters remain,
// the head and the tail of it with the middle elided and counted in lines. It reads only the
// head and tail into memory, so a runaway command's gigabytes cost one counting pass.
func formatOutput(r io.ReaderAt, size int64, maxChars int) (formatted, error) {
	out := formatted{size: size}
	half := max((maxChars-elisionRoom)/2, 1)
	// A rune takes at most four bytes, so 4*half bytes at each end hold half characters.
	if size <= int64(8*half) {
		b := make([]byte, size)
		if _, err := r.ReadAt(b, 0); err != nil && !errors.Is(err, io.EOF) {
			return out, err
		}
		s := trimOutput(string(b))
		if utf8.RuneCountInString(s) <= maxChars {
			out.text = s
			return out, nil
		}
	}
	head := make([]byte, min(size, int64(4*half)))
	if _, err := r.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
		return out, err
	}
	body := trimLeadingBlankLines(head)
	headStart := int64(len(head) - len(body))
	head = firstRunes(body, half)
	if i := bytes.LastIndexByte(head, '\n'); i >= len(head)/2 {
		head = head[:i+1]
	}
	headEnd := headStart + int64(len(head))
	tailLen := min(size, int64(4*half))
	tail := make([]byte, tailLen)
	if _, err := r.ReadAt(tail, size-tailLen); err != nil && !errors.Is(err, io.EOF) {
		return out, err
	}
	tail = lastRunes(tail, half)
	tailStart := size - int64(len(tail))
	if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < len(tail)/2 {
		tailStart += int64(i + 1)
		tail = tail[i+1:]
	}
	if headEnd >= tailStart {
		// Nothing in between after all (only possible for tiny caps).
		b := make([]byte, size)
		if _, err := r.ReadAt(b, 0); err != nil && !errors.Is(err, io.EOF) {
			return out, err
		}
		out.text = trimOutput(string(b))
		return out, nil
	}
	n, last, err := countLines(r, headEnd, tailStart)
	if err != nil {
		return out, err
	}
	if last != '\n' {
		n++
	}
	out.truncated, out.elided = true, n
	out.text = strings.TrimRight(string(head), "\n") +
		fmt.Sprintf("\n\n... [%d lines truncated] ...\n\n", n) +
		strings.TrimRightFunc(string(tail), unicode.IsSpace)
	return out, nil
}

// countLines counts the newlines in r between from and to, and returns the last byte.
func countLines(r io.ReaderAt, from, to int64) (int, byte, error) {
	buf := make([]byte, 1<<20)
	n := 0
	var last byte
	for off := from; off < to; {
		k := int(min(int64(len(buf)), to-off))
		m, err := r.ReadAt(buf[:k], off)
		n += bytes.Count(buf[:m], []byte{'\n'})
		if m > 0 {
			last = buf[m-1]
		}
		off += int64(m)
		if err != nil && !errors.Is(err, io.EOF) {
			return n, last, err
		}
		if m == 0 {
			break
		}
	}
	return n, last, nil
}

// trimOutput drops leading lines that hold only white space, and trailing white space.
func trimOutput(s string) string {
	return strings.TrimRightFunc(string(trimLeadingBlankLines([]byte(s))), unicode.IsSpace)
}

func trimLeadingBlankLines(b []byte) []byte {
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 || len(bytes.TrimSpace(b[:i])) > 0 {
			return b
		}
		b = b[i+1:]
	}
}

// firstRunes returns the first n runes of b.
func firstRunes(b []byte, n int) []byte {
	i := 0
	for k := 0; k < n && i < len(b); k++ {
		_, w := utf8.DecodeRune(b[i:])
		i += w
	}
	return b[:i]
}

// lastRunes returns the last n runes of b, starting at a rune boundary.
func lastRunes(b []byte, n int) []byte {
	i := len(b)
	for k := 0; k < n && i > 0; k++ {
		_, w := utf8.DecodeLastRune(b[:i])
		i -= w
	}
	for i < len(b) && !utf8.RuneStart(b[i]) {
		i++
	}
	return b[i:]
}

// maxErrorChars is how much of an error result Claude Code keeps: the first and last 5,000
// characters.
const maxErrorChars = 10000

// capError shortens an error text the way the agent does for tool errors.
func capError(s string) string {
	if len(s) <= maxErrorChars {
		return s
	}
	i, j := maxErrorChars/2, len(s)-maxErrorChars/2
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	for j < len(s) && !utf8.RuneStart(s[j]) {
		j++
	}
	return fmt.Sprintf("%s\n\n... [%d characters truncated] ...\n\n%s", s[:i], j-i, s[j:])
}
