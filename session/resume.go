package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/boundedfile"
	"github.com/reinsdev/reins/tool"
)

// # Resuming in constant time
//
// A resumed conversation starts at the last compaction's summary, so resume needs only the
// part of the file from the last compact_boundary line on, plus the state that lines before it
// left behind: the session line's cwd and model, and the last permissions line (mode, session
// rules and directories, scoped approvals, taint). A Writer knows that state — it wrote or read
// every line of it — and puts a copy of it in each boundary line it writes ("resume"). Load
// finds the last boundary from the end of the file and reads forward from there, so a resume
// costs what follows the last compaction, whatever the length of the history before it.
//
// The boundary line is its own index: there is no second file to fall out of step with the
// session, nothing to rewrite, and a crash mid-write leaves at worst a torn last line, which
// every reader skips (and Load then goes back to the boundary before). A copied or moved
// session file keeps it. Finding it reads the file backwards over the part that resume reads
// anyway, checking only the first bytes of each line.
//
// Load falls back to reading the whole file, keeping only what follows the last compaction,
// when the last boundary carries no state (a file written before boundaries carried it, or by
// a Writer that could not know the state: see [Store.Reopen]), or when what follows it turns
// out to hold no summary after all. The fallback gives what the fast path gives, lines skipped
// aside; a fast read that is not certain never guesses.

// resumeState is what a boundary line records of the lines before it: what [parser] would hold
// there besides the conversation, which the summary after the boundary replaces.
type resumeState struct {
	Cwd   string `json:"cwd,omitempty"`
	Model string `json:"model,omitempty"`
	// Permissions is the last permissions line's state, as written there; absent when none
	// was written yet.
	Permissions json.RawMessage `json:"permissions,omitempty"`
	// Files is what the model knew of files (state.go): a compaction carries it into the
	// summary, less the files its forget lines name after the boundary.
	Files map[string]tool.FileRead `json:"files,omitempty"`
}

// apply sets the state on p, as the lines before the boundary would have.
func (st *resumeState) apply(p *parser) error {
	p.t.Cwd, p.t.Model = st.Cwd, st.Model
	p.t.Permissions = nil
	if len(st.Permissions) > 0 && !bytes.Equal(st.Permissions, []byte("null")) {
		var ps agent.SessionState
		if err := json.Unmarshal(st.Permissions, &ps); err != nil {
			return err
		}
		p.t.Permissions = &ps
	}
	p.t.files = nil
	for path, r := range st.Files {
		if p.t.files == nil {
			p.t.files = make(map[string]fileEntry, len(st.Files))
		}
		p.t.files[path] = fileEntry{read: r}
	}
	return nil
}

// The first bytes of the lines the backward scan looks for. Writers encode a line's type
// first (see [line]); a line written another way is not found by its head, and Load then
// starts at an earlier boundary or reads the whole file, which gives the same conversation.
var (
	boundaryHead = []byte(`{"type":"compact_boundary"`)
	messageHead  = []byte(`{"type":"message"`)
)

// backChunk is how much the backward scan reads at a time.
const backChunk = 256 << 10

// errFullScan says that the fast path cannot be sure and the whole file must be read.
var errFullScan = errors.New("the last compaction records no state")

// TooLongError is a session whose conversation since its last compaction (the part resume
// reads and sends to the model) is longer than [MaxFileBytes]. The file is left as it is.
type TooLongError struct {
	Path  string
	Limit int64
}

func (e *TooLongError) Error() string {
	return fmt.Sprintf("%s: the conversation to resume (what follows the last compaction) is longer than %d bytes, %s", e.Path, e.Limit, boundedfile.FormatLimit(e.Limit))
}

// resumePoint finds where a resume starts reading f: the offset of the last boundary line
// that is followed by a message and records the state before it, with that state. Offset 0
// with a nil state means the whole file (no boundary). It reads at most limit bytes back from
// the end. errFullScan means that the whole file must be read: the last such boundary records
// no state, or none is in those bytes and the file is longer.
func resumePoint(ctx context.Context, f *boundedfile.File, limit int64) (int64, *resumeState, error) {
	size := f.Size()
	lo := max(0, size-limit)
	buf := make([]byte, backChunk+len(boundaryHead))
	// next holds the first bytes after the chunk being scanned (the chunk read before it), so
	// that the head of a line starting at the chunk's end can be read whole.
	var next []byte
	var starts []int64
	sawMessage := false
	for hi := size; hi > lo; {
		if err := ctx.Err(); err != nil {
			return 0, nil, fmt.Errorf("reading %s: %w", f.Path(), err)
		}
		start := max(lo, hi-backChunk)
		chunk := buf[:hi-start]
		if _, err := f.ReadAt(chunk, start); err != nil {
			return 0, nil, fmt.Errorf("reading %s: %w", f.Path(), err)
		}
		joined := append(chunk, next...)
		// Line starts in (start, hi]: after each newline of the chunk; and start itself when
		// it is the start of the file. (IndexByte is the fast search; LastIndexByte is not.)
		starts = starts[:0]
		if start == 0 {
			starts = append(starts, 0)
		}
		for i := 0; ; {
			j := bytes.IndexByte(chunk[i:], '\n')
			if j < 0 {
				break
			}
			i += j + 1
			starts = append(starts, start+int64(i))
		}
		for k := len(starts) - 1; k >= 0; k-- {
			off := starts[k]
			if off >= size {
				continue // the newline ends the file
			}
			head := joined[off-start:]
			switch {
			case bytes.HasPrefix(head, messageHead):
				sawMessage = true
			case sawMessage && bytes.HasPrefix(head, boundaryHead):
				st, ok, err := boundaryAt(ctx, f, off)
				if err != nil {
					return 0, nil, err
				}
				if !ok {
					continue // torn or unreadable: the parser skips it too
				}
				if st == nil {
					return 0, nil, errFullScan
				}
				return off, st, nil
			}
		}
		next = append(next[:0:0], chunk[:min(len(chunk), len(boundaryHead))]...)
		hi = start
	}
	if lo > 0 {
		// No boundary this reader knows in the last limit bytes: either the conversation to
		// resume is longer than that, or its lines are written another way (a boundary whose
		// type is not first). Only a read of the whole file can tell.
		return 0, nil, errFullScan
	}
	return 0, nil, nil
}

// errStop ends a read that has what it wanted.
var errStop = errors.New("stop")

// boundaryAt reads the line at off: ok when it is a boundary the parser would count as one,
// with the state it records (nil when it records none).
func boundaryAt(ctx context.Context, f *boundedfile.File, off int64) (*resumeState, bool, error) {
	var l line
	ok := false
	// One line is read; the bound on the rest of the file does not apply to it.
	lim := boundedfile.Limits{MaxBytes: 1 << 62, MaxLine: MaxLineBytes, Kind: fileLimits.Kind}
	err := f.Lines(ctx, off, lim, func(raw []byte) error {
		ok = json.Unmarshal(bytes.TrimSpace(raw), &l) == nil && l.Type == "compact_boundary" && l.Compact != nil
		return errStop
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, false, err
	}
	return l.Resume, ok, nil
}

// loadFile reads a transcript file for a resume: from its last compaction on (see the top of
// this file), or the whole of it when that is not certain.
func (s *Store) loadFile(ctx context.Context, path string) (*Transcript, error) {
	f, err := boundedfile.Open(path, fileLimits.Kind)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	limit := s.maxRead()
	off, st, err := resumePoint(ctx, f, limit)
	if err == nil && st != nil {
		t, err := readFrom(ctx, f, off, st, limit)
		if !errors.Is(err, errFullScan) {
			return t, err
		}
	} else if err != nil && !errors.Is(err, errFullScan) {
		return nil, err
	}
	return readFrom(ctx, f, 0, nil, limit)
}

// readFrom parses f from off, with st the state before it (nil: from the start of the file).
// Parsing from a boundary must see a summary replace the conversation, or the boundary was
// not where the conversation starts (errFullScan). From the start, only the conversation kept
// is bounded by limit: the history before the last compaction is read and let go.
func readFrom(ctx context.Context, f *boundedfile.File, off int64, st *resumeState, limit int64) (*Transcript, error) {
	p := parser{limit: limit, path: f.Path()}
	lim := fileLimits
	lim.MaxBytes = limit
	if st == nil {
		lim.MaxBytes = 1 << 62 // the whole file: the parser bounds what it keeps
	} else if err := st.apply(&p); err != nil {
		return nil, errFullScan
	}
	p.t.From = off
	if err := f.Lines(ctx, off, lim, p.line); err != nil {
		return nil, err
	}
	if st != nil && p.resets == 0 {
		return nil, errFullScan
	}
	if err := p.end(); err != nil {
		return nil, err
	}
	t := p.finish()
	t.Path = f.Path()
	t.end = &resumeState{Cwd: t.Cwd, Model: t.Model}
	if t.Permissions != nil {
		b, err := json.Marshal(t.Permissions)
		if err != nil {
			return nil, fmt.Errorf("encoding the session's permission state: %w", err)
		}
		t.end.Permissions = b
	}
	t.end.Files = t.Files()
	t.size = off + p.read
	return t, nil
}

func (s *Store) maxRead() int64 {
	if s.maxReadBytes > 0 {
		return s.maxReadBytes
	}
	return MaxFileBytes
}
