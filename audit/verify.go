package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// BreakError says where the chain breaks: the file, the line (from 1) and, when the line was
// an entry, its Seq. Line 0 is about the file or the anchor as a whole.
type BreakError struct {
	File string
	Line int
	Seq  int64
	Msg  string
}

func (e *BreakError) Error() string {
	switch {
	case e.Line == 0:
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	case e.Seq > 0:
		return fmt.Sprintf("%s:%d: entry %d: %s", e.File, e.Line, e.Seq, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// Report is what a successful [Verify] checked.
type Report struct {
	Files []string `json:"files"`
	// Entries is the number of entries; FirstSeq and HeadSeq the first and last Seq; Head
	// the hash of the last entry, which the anchor records too.
	Entries  int64  `json:"entries"`
	FirstSeq int64  `json:"firstSeq"`
	HeadSeq  int64  `json:"headSeq"`
	Head     string `json:"head"`
}

// Verify checks the whole chain of the log whose current file is path and its anchor. A
// break is a *BreakError naming the first place where the log is not what was written; other
// errors are failures to read.
func Verify(path string) (*Report, error) {
	unlock, err := readLock(path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	files, err := Files(path)
	if err != nil {
		return nil, err
	}
	r := &Report{Files: files, Head: Genesis}
	a, anchorErr := readAnchor(anchorPath(path))
	ap := anchorPath(path)
	if anchorErr != nil && !errors.Is(anchorErr, os.ErrNotExist) {
		return nil, &BreakError{File: ap, Msg: anchorErr.Error()}
	}
	hasAnchor := anchorErr == nil
	v := verifier{report: r, anchor: a, hasAnchor: hasAnchor}
	for _, f := range files {
		if err := eachLine(f, v.line(f)); err != nil {
			return nil, err
		}
	}
	switch {
	case !hasAnchor && r.Entries == 0:
		return r, nil
	case !hasAnchor:
		return nil, &BreakError{File: ap, Msg: fmt.Sprintf("the anchor is missing, and the log holds %d entries", r.Entries)}
	case r.HeadSeq < a.Seq:
		return nil, &BreakError{File: v.lastFile, Line: v.lastLine, Seq: r.HeadSeq,
			Msg: fmt.Sprintf("the log ends at entry %d but the anchor records %d entries: it was truncated", r.HeadSeq, a.Seq)}
	case r.HeadSeq > a.Seq:
		return nil, &BreakError{File: v.lastFile, Line: v.lastLine, Seq: r.HeadSeq,
			Msg: fmt.Sprintf("the anchor's head is entry %d: entries after it were not written by the log", a.Seq)}
	case r.Head != a.Head:
		return nil, &BreakError{File: v.lastFile, Line: v.lastLine, Seq: r.HeadSeq, Msg: "the entry's hash is not the anchor's head: the entry was changed"}
	}
	return r, nil
}

// verifier walks the lines of every file in order.
type verifier struct {
	report    *Report
	anchor    anchor
	hasAnchor bool
	lastFile  string
	lastLine  int
}

func (v *verifier) line(file string) func(n int, line []byte) error {
	return func(n int, line []byte) error {
		r := v.report
		brk := func(seq int64, format string, args ...any) error {
			return &BreakError{File: file, Line: n, Seq: seq, Msg: fmt.Sprintf(format, args...)}
		}
		e, err := decodeEntry(line)
		if err != nil {
			return brk(0, "not an audit entry: %v", err)
		}
		if r.Entries == 0 {
			first, prev := int64(1), Genesis
			if v.hasAnchor {
				first, prev = v.anchor.FirstSeq, v.anchor.FirstPrev
			}
			if e.Seq != first || e.Prev != prev {
				return brk(e.Seq, "the chain should begin with entry %d linked to %.12s…, not entry %d linked to %.12s…", first, prev, e.Seq, e.Prev)
			}
			r.FirstSeq = e.Seq
		} else {
			if e.Seq != r.HeadSeq+1 {
				return brk(e.Seq, "expected entry %d after entry %d: entries were removed, added or reordered", r.HeadSeq+1, r.HeadSeq)
			}
			if e.Prev != r.Head {
				return brk(e.Seq, "the link to entry %d does not match: entry %d (or this link) was changed", r.HeadSeq, r.HeadSeq)
			}
		}
		r.Entries++
		r.HeadSeq, r.Head = e.Seq, hashLine(line)
		v.lastFile, v.lastLine = file, n
		return nil
	}
}

// decodeEntry reads one line strictly: one JSON object of known fields, nothing after it.
func decodeEntry(line []byte) (Entry, error) {
	var e Entry
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return e, err
	}
	if dec.More() {
		return e, errors.New("text after the entry")
	}
	if e.Seq <= 0 {
		return e, errors.New("no seq")
	}
	return e, nil
}

// eachLine calls fn with each line of the file (without the newline) and its number; a
// missing file has none. A last line without a newline, or a line longer than any entry,
// is a break.
func eachLine(path string, fn func(n int, line []byte) error) error {
	f, err := openFile(path, os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return openErr("reading the log", err)
	}
	defer f.Close()
	return scanLines(f, path, fn)
}

// scanLines is eachLine over any reader.
func scanLines(r io.Reader, name string, fn func(n int, line []byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := readLine(br)
		switch {
		case err == io.EOF && len(line) == 0:
			return nil
		case err == io.EOF:
			return &BreakError{File: name, Line: n, Msg: "the last line is incomplete (no newline): the log was cut or a write did not finish"}
		case errors.Is(err, errLong):
			return &BreakError{File: name, Line: n, Msg: fmt.Sprintf("the line is longer than %d bytes: not an audit entry", maxLine)}
		case err != nil:
			return fmt.Errorf("audit: reading %s: %w", name, err)
		}
		if err := fn(n, line); err != nil {
			return err
		}
	}
}

var errLong = errors.New("line too long")

// readLine returns the next line without its newline; at the end of input a partial line comes
// with io.EOF.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > maxLine+1 {
			return nil, errLong
		}
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			return buf[:len(buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return buf, err
		}
	}
}

// Record is an entry as read back, with where it is.
type Record struct {
	File  string `json:"file"`
	Line  int    `json:"line"`
	Entry Entry  `json:"entry"`
}

// Read calls fn with every entry of the log, oldest first, without checking the chain (that is
// [Verify]'s); a line that is not an entry is an error naming it.
func Read(path string, fn func(Record) error) error {
	files, err := Files(path)
	if err != nil {
		return err
	}
	for _, f := range files {
		err := eachLine(f, func(n int, line []byte) error {
			e, err := decodeEntry(line)
			if err != nil {
				return &BreakError{File: f, Line: n, Msg: fmt.Sprintf("not an audit entry: %v", err)}
			}
			return fn(Record{File: f, Line: n, Entry: e})
		})
		if err != nil {
			return err
		}
	}
	return nil
}
