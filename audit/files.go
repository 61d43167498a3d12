package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// anchor is the anchor file: the head of the chain and where the retained chain begins.
type anchor struct {
	Seq       int64  `json:"seq"`
	Head      string `json:"head"`
	FirstSeq  int64  `json:"firstSeq"`
	FirstPrev string `json:"firstPrev"`
}

func anchorPath(current string) string { return current + ".anchor" }
func lockPath(current string) string   { return current + ".lock" }

// AnchorPath is the anchor file of the log whose current file is path.
func AnchorPath(path string) string { return anchorPath(path) }

// Files lists the log's files, oldest first: the rotated files path.1, path.2, … in number
// order, then path itself (listed even when it does not exist yet).
func Files(path string) ([]string, error) {
	ents, err := os.ReadDir(filepath.Dir(path))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("audit: listing the log's files: %w", err)
	}
	base := filepath.Base(path) + "."
	type numbered struct {
		n    int
		name string
	}
	var rotated []numbered
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), base)
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(rest); err == nil && n > 0 && strconv.Itoa(n) == rest {
			rotated = append(rotated, numbered{n, e.Name()})
		}
	}
	slices.SortFunc(rotated, func(a, b numbered) int { return a.n - b.n })
	out := make([]string, 0, len(rotated)+1)
	for _, r := range rotated {
		out = append(out, filepath.Join(filepath.Dir(path), r.name))
	}
	return append(out, path), nil
}

// rotateIfFull renames a full current file to the next number, removes the rotated files past
// MaxFiles (recording in the anchor where the retained chain now begins) and returns the
// files. The new current file does not exist until the append creates it; its first entry
// links to the last entry of the file just rotated.
func (l *Log) rotateIfFull() ([]string, error) {
	files, err := Files(l.opts.Path)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(l.opts.Path)
	if err != nil || info.Size() < l.opts.MaxBytes {
		return files, nil
	}
	next := 1
	if len(files) > 1 {
		last := files[len(files)-2]
		n, _ := strconv.Atoi(last[strings.LastIndexByte(last, '.')+1:])
		next = n + 1
	}
	if err := os.Rename(l.opts.Path, l.opts.Path+"."+strconv.Itoa(next)); err != nil {
		return nil, fmt.Errorf("audit: rotating the log: %w", err)
	}
	if files, err = Files(l.opts.Path); err != nil {
		return nil, err
	}
	rotated := files[:len(files)-1]
	if excess := len(rotated) - l.opts.MaxFiles; excess > 0 {
		for _, f := range rotated[:excess] {
			if err := os.Remove(f); err != nil {
				return nil, fmt.Errorf("audit: removing an old log file: %w", err)
			}
		}
		files = files[excess:]
		if err := l.moveFirst(files[0]); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// moveFirst records in the anchor that the retained chain now begins with the first entry of
// file.
func (l *Log) moveFirst(file string) error {
	a, err := readAnchor(anchorPath(l.opts.Path))
	if err != nil {
		return err
	}
	var first Entry
	err = eachLine(file, func(_ int, line []byte) error {
		if err := json.Unmarshal(line, &first); err != nil {
			return fmt.Errorf("audit: the first line of %s is not an audit entry: run reins audit verify", file)
		}
		return errStop
	})
	if err != nil && !errors.Is(err, errStop) {
		return err
	}
	a.FirstSeq, a.FirstPrev = first.Seq, first.Prev
	return writeAnchor(anchorPath(l.opts.Path), a)
}

var errStop = errors.New("stop")

// anchorSize is the anchor file's fixed size: its JSON, spaces, and a newline. A fixed size
// lets an append overwrite it with one write in place, where writing a new file and renaming
// it cost a file creation per entry (about 1 ms here, most of an append).
const anchorSize = 256

// encodeAnchor is the anchor file's exact content.
func encodeAnchor(a anchor) ([]byte, error) {
	data, err := json.Marshal(a)
	if err != nil {
		return nil, err
	}
	if len(data) >= anchorSize {
		return nil, fmt.Errorf("audit: the anchor is %d bytes, more than %d", len(data), anchorSize-1)
	}
	out := bytes.Repeat([]byte(" "), anchorSize)
	copy(out, data)
	out[anchorSize-1] = '\n'
	return out, nil
}

func readAnchor(path string) (anchor, error) {
	var a anchor
	data, err := readSmall(path, anchorSize)
	if err != nil {
		return a, openErr("reading the anchor", err)
	}
	if err := json.Unmarshal(bytes.TrimRight(data, " \n"), &a); err != nil {
		return a, fmt.Errorf("audit: the anchor %s is damaged: %w", path, err)
	}
	// The anchor is compared byte for byte with what writeAnchor would write: JSON's
	// case-insensitive keys and optional spaces must not make a changed file read the same.
	if canon, err := encodeAnchor(a); err != nil || !bytes.Equal(canon, data) {
		return a, fmt.Errorf("audit: the anchor %s is damaged: it is not as the log wrote it", path)
	}
	return a, nil
}

// writeAnchor overwrites the anchor with one write of its fixed size. Appends hold the
// exclusive lock and Verify the shared one, so no reader sees half of it; only a machine
// crash during the write could leave it torn, which Verify then reports.
func writeAnchor(path string, a anchor) error {
	data, err := encodeAnchor(a)
	if err != nil {
		return err
	}
	f, err := openFile(path, os.O_WRONLY|os.O_CREATE)
	if err != nil {
		return openErr("writing the anchor", err)
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		f.Close()
		return fmt.Errorf("audit: writing the anchor: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("audit: writing the anchor: %w", err)
	}
	return nil
}
