package checkpoint

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Scope is what a change may touch: files and folders (absolute), or All the working
// directories.
type Scope struct {
	Paths []string
	All   bool
}

// fingerprint is what the stat of a path says of it; equal fingerprints are taken to mean
// equal content (as git's index does), except for a racy one (see cached).
type fingerprint struct {
	Exists bool        `json:"exists"`
	Kind   fs.FileMode `json:"kind,omitempty"` // type bits: 0 for a regular file
	Mode   fs.FileMode `json:"mode,omitempty"`
	Size   int64       `json:"size,omitempty"`
	MTime  int64       `json:"mtime,omitempty"`
	CTime  int64       `json:"ctime,omitempty"`
	Ino    uint64      `json:"ino,omitempty"`
}

// cached is the stat cache's knowledge of a path: the blob its content had when it had fp. A
// path changed less than racyWindow before it was hashed may change again within the same
// timestamp, so such an entry is never trusted.
type cached struct {
	fp    fingerprint
	state State
	skip  string
	racy  bool
}

const racyWindow = 2 * time.Second

// ErrTooManyFiles is Capture's error for a scope larger than Limits.MaxScanFiles.
var ErrTooManyFiles = errors.New("checkpoint: too many files to scan")

// Pending is a change under way: the states its scope had before it.
type Pending struct {
	s      *Store
	point  *Point
	scope  Scope
	before map[string]observed
}

// observed is a path's fingerprint and, for a regular file that could be captured, its state.
type observed struct {
	fp    fingerprint
	state State
	skip  string
}

// Capture records the state of scope before a change. The change belongs to point id (""
// means the current point; with no point, nothing is recorded), whatever point is current when
// it is done. Reading a file that vanished or cannot be read is not a failure: the path is
// recorded as skipped when the change touches it.
func (s *Store) Capture(ctx context.Context, id string, scope Scope) (*Pending, error) {
	s.mu.Lock()
	p := &Pending{s: s, point: s.current(), scope: scope}
	if id != "" {
		p.point = nil
		if i := s.find(id); i >= 0 {
			p.point = s.points[i]
		}
	}
	s.mu.Unlock()
	if p.point == nil {
		return p, nil
	}
	before, err := s.observe(ctx, scope, true)
	if err != nil {
		return nil, err
	}
	p.before = before
	s.mu.Lock()
	s.pending[p] = true
	s.mu.Unlock()
	return p, nil
}

// Done records, in the Pending's point, the state before of every path of its scope that the
// change altered. It is safe to call more than once; later calls do nothing.
func (p *Pending) Done(ctx context.Context) error {
	if p == nil || p.point == nil {
		return nil
	}
	s := p.s
	s.mu.Lock()
	open := s.pending[p]
	delete(s.pending, p)
	s.mu.Unlock()
	if !open {
		return nil
	}
	after, err := s.observe(ctx, p.scope, false)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.find(p.point.ID) < 0 {
		return nil // rewound past while it ran
	}
	changed := false
	record := func(path string, b, a observed) {
		if b.fp == a.fp {
			return
		}
		changed = true
		// A path that was not a regular file before cannot be put back; one outside the
		// working directories is never written.
		if reason := cmp.Or(b.skip, outside(a.skip)); reason != "" {
			p.point.Skipped = appendSkip(p.point.Skipped, Skipped{Path: path, Reason: reason})
			return
		}
		e := p.point.Files[path]
		if e == nil {
			e = &entry{Before: b.state}
			p.point.Files[path] = e
		}
		e.After = a.fp
	}
	for path, b := range p.before {
		record(path, b, after[path])
	}
	for path, a := range after {
		if _, ok := p.before[path]; !ok {
			record(path, observed{}, a)
		}
	}
	if !changed {
		return nil
	}
	return s.save()
}

// NoteFailure records in point id (or the current one) that a capture failed: the change
// went ahead without a way back.
func (s *Store) NoteFailure(id string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.current()
	if i := s.find(id); i >= 0 {
		p = s.points[i]
	}
	if p == nil {
		return
	}
	p.Skipped = appendSkip(p.Skipped, Skipped{Reason: "capture failed: " + err.Error()})
	_ = s.save()
}

func outside(reason string) string {
	if reason == ReasonOutside {
		return reason
	}
	return ""
}

func appendSkip(list []Skipped, sk Skipped) []Skipped {
	for _, x := range list {
		if x == sk {
			return list
		}
	}
	return append(list, sk)
}

// observe stats every path of scope; with hash, it also captures each regular file's content
// the stat cache cannot vouch for. Paths outside the working directories are observed (their
// change is recorded as skipped) but never hashed.
func (s *Store) observe(ctx context.Context, scope Scope, hash bool) (map[string]observed, error) {
	out := map[string]observed{}
	roots := scope.Paths
	if scope.All {
		roots = s.roots
	}
	start := time.Now()
	var mu sync.Mutex
	for _, r := range roots {
		r = filepath.Clean(r)
		if !filepath.IsAbs(r) {
			return nil, fmt.Errorf("checkpoint: path %q is not absolute", r)
		}
		err := walk(r, func(path string, fp fingerprint) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			o := s.observeOne(path, fp, hash, start)
			mu.Lock()
			defer mu.Unlock()
			out[path] = o
			if len(out) > s.limits.scan() {
				return fmt.Errorf("%w: more than %d files", ErrTooManyFiles, s.limits.scan())
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// observeOne is one path's fingerprint and, with hash, its captured state.
func (s *Store) observeOne(path string, fp fingerprint, hash bool, start time.Time) observed {
	o := observed{fp: fp}
	switch {
	case s.within(path) == "":
		o.skip = ReasonOutside
		return o
	case fp.Kind != 0:
		o.skip = ReasonNotRegular
		return o
	case !hash:
		return o
	}
	s.mu.Lock()
	c, ok := s.cache[path]
	s.mu.Unlock()
	if ok && c.fp == fp && !c.racy {
		o.state, o.skip = c.state, c.skip
		return o
	}
	o.state, o.skip = s.capture(path, fp)
	s.mu.Lock()
	s.cache[path] = cached{fp: fp, state: o.state, skip: o.skip, racy: start.Sub(time.Unix(0, fp.MTime)) < racyWindow}
	s.mu.Unlock()
	return o
}

// capture stores a regular file's content as a blob and returns its state, or why it could
// not.
func (s *Store) capture(path string, fp fingerprint) (State, string) {
	if fp.Size > s.limits.file() {
		return State{}, ReasonTooLarge
	}
	f, err := openNoFollow(path)
	if err != nil {
		return State{}, ReasonUnreadable
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return State{}, ReasonNotRegular
	}
	data, err := io.ReadAll(io.LimitReader(f, s.limits.file()+1))
	if err != nil {
		return State{}, ReasonUnreadable
	}
	if int64(len(data)) > s.limits.file() {
		return State{}, ReasonTooLarge
	}
	sum := sha256.Sum256(data)
	id := hex.EncodeToString(sum[:])
	if reason := s.putBlob(id, data); reason != "" {
		return State{}, reason
	}
	return State{Exists: true, Mode: fp.Mode, Blob: id, Size: int64(len(data))}, ""
}

// putBlob stores data under its hash once.
func (s *Store) putBlob(id string, data []byte) string {
	path := s.blobPath(id)
	if _, err := os.Lstat(path); err == nil {
		return ""
	}
	s.mu.Lock()
	if s.total+int64(len(data)) > s.limits.total() {
		s.mu.Unlock()
		return ReasonStoreFull
	}
	s.total += int64(len(data))
	s.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return ReasonUnreadable
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return ReasonUnreadable
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
		return ReasonUnreadable
	}
	return ""
}

func (s *Store) blobPath(id string) string {
	return filepath.Join(s.dir, "blobs", id[:2], id[2:])
}
