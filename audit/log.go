package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Default bounds of the log: a file is rotated at DefaultMaxBytes and DefaultMaxFiles rotated
// files are kept, so the log holds at most about (DefaultMaxFiles+1)·DefaultMaxBytes.
const (
	DefaultMaxBytes = 16 << 20
	DefaultMaxFiles = 8
)

// Options configure a [Log].
type Options struct {
	// Path is the current file (audit.jsonl); the rotated files, the anchor and the lock sit
	// beside it (see [Files]).
	Path string
	// MaxBytes rotates the current file once it holds this much; 0 is DefaultMaxBytes.
	MaxBytes int64
	// MaxFiles is how many rotated files are kept; 0 is DefaultMaxFiles.
	MaxFiles int
	// LogInputs writes tools' inputs whole (up to MaxInputBytes) instead of only their hash.
	LogInputs bool
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// Log appends entries to the chain. Its methods are safe for concurrent use, and any number of
// processes may append to the same Path.
type Log struct {
	opts Options
	mu   sync.Mutex
}

// Open prepares the log at opts.Path: its folder is created (0700) and the lock file opened
// once, so that a log that cannot be written fails here, at start, not at the first call.
func Open(opts Options) (*Log, error) {
	if opts.Path == "" {
		return nil, errors.New("audit: no log path")
	}
	if !filepath.IsAbs(opts.Path) {
		return nil, fmt.Errorf("audit: log path %q is not absolute", opts.Path)
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.MaxFiles <= 0 {
		opts.MaxFiles = DefaultMaxFiles
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if err := os.MkdirAll(filepath.Dir(opts.Path), 0o700); err != nil {
		return nil, fmt.Errorf("audit: creating the log's folder: %w", err)
	}
	l := &Log{opts: opts}
	unlock, err := l.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	f, err := openFile(opts.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return nil, openErr("opening the log", err)
	}
	return l, f.Close()
}

// Path is the current file.
func (l *Log) Path() string { return l.opts.Path }

// LogInputs says whether entries carry inputs whole.
func (l *Log) LogInputs() bool { return l.opts.LogInputs }

// Append adds e to the chain, filling Seq, Prev and (when zero) Time, and rewrites the anchor.
// raw is the tool's input, redacted as the options say. An error means the entry is not in
// the log.
func (l *Log) Append(e Entry, raw json.RawMessage) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	unlock, err := l.lock()
	if err != nil {
		return err
	}
	defer unlock()
	files, err := l.rotateIfFull()
	if err != nil {
		return err
	}
	head, err := readHead(files)
	if err != nil {
		return err
	}
	e.Seq, e.Prev = head.seq+1, head.hash
	if e.Time.IsZero() {
		e.Time = l.opts.Now().UTC()
	}
	e.redact(raw, l.opts.LogInputs)
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("audit: encoding an entry: %w", err)
	}
	if err := appendLine(l.opts.Path, line); err != nil {
		return err
	}
	a := anchor{Seq: e.Seq, Head: hashLine(line), FirstSeq: head.firstSeq, FirstPrev: head.firstPrev}
	if a.FirstSeq == 0 {
		a.FirstSeq, a.FirstPrev = e.Seq, e.Prev
	}
	return writeAnchor(anchorPath(l.opts.Path), a)
}

// appendLine writes one line with a single write on an O_APPEND descriptor.
func appendLine(path string, line []byte) error {
	f, err := openFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return openErr("opening the log", err)
	}
	buf := append(line[:len(line):len(line)], '\n')
	if _, err := f.Write(buf); err != nil {
		f.Close()
		return fmt.Errorf("audit: writing the log: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("audit: writing the log: %w", err)
	}
	return nil
}

// head is where the next entry links: the last entry's Seq and hash, and where the retained
// chain begins (from the anchor; zero when the log is new).
type head struct {
	seq       int64
	hash      string
	firstSeq  int64
	firstPrev string
}

// readHead finds the last entry of the chain: the last line of the newest file that has one.
// A last line without its newline (a write cut short) or that is not an entry stops appends:
// linking past it would hide the damage.
func readHead(files []string) (head, error) {
	h := head{hash: Genesis}
	if len(files) > 0 {
		if a, err := readAnchor(anchorPath(files[len(files)-1])); err == nil {
			h.firstSeq, h.firstPrev = a.FirstSeq, a.FirstPrev
		}
	}
	for i := len(files) - 1; i >= 0; i-- {
		line, err := lastLine(files[i])
		if err != nil {
			return h, err
		}
		if line == nil {
			continue
		}
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil || e.Seq <= 0 {
			return h, fmt.Errorf("audit: the last line of %s is not an audit entry: run reins audit verify", files[i])
		}
		h.seq, h.hash = e.Seq, hashLine(line)
		return h, nil
	}
	return h, nil
}

// lastLine returns the last line of the file without its newline, nil for an empty or missing
// file. It reads a small tail first, which holds a whole entry unless inputs are logged, and
// the longest an entry can be only when that tail has no line start.
func lastLine(path string) ([]byte, error) {
	f, err := openFile(path, os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, openErr("reading the log", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("audit: reading the log: %w", err)
	}
	size := info.Size()
	if size == 0 {
		return nil, nil
	}
	for _, tail := range []int64{4 << 10, int64(maxLine) + 1} {
		n := min(size, tail)
		buf := make([]byte, n)
		if _, err := f.ReadAt(buf, size-n); err != nil && err != io.EOF {
			return nil, fmt.Errorf("audit: reading the log: %w", err)
		}
		if buf[len(buf)-1] != '\n' {
			return nil, fmt.Errorf("audit: %s ends in an incomplete line: run reins audit verify", path)
		}
		buf = buf[:len(buf)-1]
		i := bytes.LastIndexByte(buf, '\n')
		if i >= 0 || n == size {
			return buf[i+1:], nil
		}
	}
	return nil, fmt.Errorf("audit: the last line of %s is longer than %d bytes: run reins audit verify", path, maxLine)
}
