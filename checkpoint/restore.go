package checkpoint

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
)

// ErrNoPoint is returned by Rewind for an id that is not a point.
var ErrNoPoint = errors.New("checkpoint: no checkpoint for that message")

// errLink means a link or another non-regular file stands where a folder or the file is.
var errLink = errors.New("a link or non-regular file is in the way")

// RewindOptions say how a rewind goes.
type RewindOptions struct {
	// DryRun reports what would change and changes nothing.
	DryRun bool
	// Overwrite puts back files the person changed since the agent did (Conflicts) too.
	Overwrite bool
}

// Result is what a rewind did (or, dry, would do).
type Result struct {
	// FilesChanged are the paths put back (that would be), sorted.
	FilesChanged []string
	// Insertions and Deletions count lines added and removed by putting the files back.
	Insertions, Deletions int
	// SkippedLinks counts files not put back because a symlink, or another non-regular file,
	// stands at the path or on the way to it (a real rewind only).
	SkippedLinks int
	// Conflicts are files the person changed after the agent did: kept as they are unless
	// Overwrite.
	Conflicts []string
	// NotCaptured are changes since the point whose state before was not captured.
	NotCaptured []Skipped
	// Failed are files that could not be put back, with why.
	Failed []Skipped
}

// target is a path to put back: its state at the point and the fingerprint the agent left.
type target struct {
	path  string
	state State
	agent fingerprint
}

// Rewind puts the working directories back as they were at point id (see the package doc).
func (s *Store) Rewind(ctx context.Context, id string, opts RewindOptions) (Result, error) {
	if err := s.finishPending(ctx); err != nil {
		return Result{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	idx := s.find(id)
	if idx < 0 {
		return Result{}, ErrNoPoint
	}
	targets, notCaptured := s.targets(idx)
	res := Result{NotCaptured: notCaptured}
	left := map[string]fingerprint{}
	for _, t := range targets {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if fp, ok := s.rewindOne(t, opts, &res); ok {
			left[t.path] = fp
		}
	}
	if opts.DryRun {
		return res, nil
	}
	if len(res.Failed) > 0 {
		// Not reached: the points and their backups stay, so that the files not put back can
		// be, by a rewind once the cause is gone. What this one did put back is the agent's
		// last change of those files, as after any rewind.
		s.restoredBy(left)
		if err := s.save(); err != nil {
			return res, err
		}
		return res, &IncompleteError{Failed: res.Failed}
	}
	s.points = s.points[:idx+1]
	s.points[idx].Files, s.points[idx].Skipped = map[string]*entry{}, nil
	s.restoredBy(left)
	return res, s.save()
}

// restoredBy makes what a rewind wrote the agent's own last change of each path, so that a
// rewind further back does not take it for the person's.
func (s *Store) restoredBy(left map[string]fingerprint) {
	for path, fp := range left {
		for i := len(s.points) - 1; i >= 0; i-- {
			if e := s.points[i].Files[path]; e != nil {
				e.After = fp
				break
			}
		}
	}
}

// finishPending finishes the changes still under way (a background command): what they did
// so far belongs to their points.
func (s *Store) finishPending(ctx context.Context) error {
	s.mu.Lock()
	var open []*Pending
	for p := range s.pending {
		open = append(open, p)
	}
	s.mu.Unlock()
	for _, p := range open {
		if err := p.Done(ctx); err != nil {
			return err
		}
	}
	return nil
}

// targets are the paths changed at point idx or later, each with its state before the first
// of those changes and the fingerprint after the last, sorted by path.
func (s *Store) targets(idx int) ([]target, []Skipped) {
	byPath := map[string]*target{}
	var skipped []Skipped
	for _, p := range s.points[idx:] {
		for path, e := range p.Files {
			t := byPath[path]
			if t == nil {
				t = &target{path: path, state: e.Before}
				byPath[path] = t
			}
			t.agent = e.After
		}
		skipped = append(skipped, p.Skipped...)
	}
	out := make([]target, 0, len(byPath))
	for _, t := range byPath {
		out = append(out, *t)
	}
	slices.SortFunc(out, func(a, b target) int { return strings.Compare(a.path, b.path) })
	return out, skipped
}

// rewindOne judges one path and, unless dry, puts it back; ok when it did, with the
// fingerprint the path has now.
func (s *Store) rewindOne(t target, opts RewindOptions, res *Result) (left fingerprint, ok bool) {
	root := s.within(t.path)
	if root == "" {
		res.Failed = append(res.Failed, Skipped{Path: t.path, Reason: ReasonOutside})
		return left, false
	}
	cur, err := readCurrent(root, t.path, s.limits.file())
	if errors.Is(err, errLink) {
		if !opts.DryRun {
			res.SkippedLinks++
		}
		return left, false
	}
	if err != nil {
		res.Failed = append(res.Failed, Skipped{Path: t.path, Reason: err.Error()})
		return left, false
	}
	want, err := s.readBlob(t.state)
	if err != nil {
		res.Failed = append(res.Failed, Skipped{Path: t.path, Reason: err.Error()})
		return left, false
	}
	if !differs(cur, t.state, want) {
		// Already as it was: what is there now is what a rewind further back compares with.
		return cur.fp, !opts.DryRun
	}
	if cur.fp != t.agent {
		res.Conflicts = append(res.Conflicts, t.path)
		if !opts.Overwrite {
			return left, false
		}
	}
	if !opts.DryRun {
		var err error
		if left, err = putBack(s.restoreSys(), root, t.path, t.state, want); err != nil {
			if errors.Is(err, errLink) {
				res.SkippedLinks++
			} else {
				res.Failed = append(res.Failed, Skipped{Path: t.path, Reason: err.Error()})
			}
			return left, false
		}
		delete(s.cache, t.path)
	}
	res.FilesChanged = append(res.FilesChanged, t.path)
	ins, del := lineChanges(cur.data, want)
	res.Insertions += ins
	res.Deletions += del
	return left, !opts.DryRun
}

// current is a path's state now, read without following a link.
type current struct {
	fp   fingerprint
	data []byte
	// big: larger than the file limit, so data is not read.
	big bool
}

func differs(cur current, want State, data []byte) bool {
	switch {
	case !want.Exists || !cur.fp.Exists:
		return want.Exists != cur.fp.Exists
	case cur.big || cur.fp.Mode != want.Mode:
		return true
	}
	return !bytes.Equal(cur.data, data)
}

// readBlob returns a state's content, checked against its hash.
func (s *Store) readBlob(st State) ([]byte, error) {
	if !st.Exists {
		return nil, nil
	}
	if len(st.Blob) != 2*sha256.Size {
		return nil, fmt.Errorf("checkpoint: bad blob id %q", st.Blob)
	}
	data, err := readNoFollow(s.blobPath(st.Blob), st.Size+1)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: backup: %w", err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != st.Blob {
		return nil, errors.New("checkpoint: backup does not match its hash")
	}
	return data, nil
}

// lineChanges counts the lines of after not in before (insertions) and of before not in after
// (deletions), as multisets: the counts of a line diff when no line moved.
func lineChanges(before, after []byte) (ins, del int) {
	count := map[string]int{}
	for _, l := range splitLines(before) {
		count[l]++
	}
	for _, l := range splitLines(after) {
		if count[l] > 0 {
			count[l]--
		} else {
			ins++
		}
	}
	for _, n := range count {
		del += n
	}
	return ins, del
}

// splitLines are b's lines, each with its newline; a final newline ends the last line and
// does not begin another.
func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	lines := strings.SplitAfter(string(b), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// restoreSys is the seam of a restore's writes: the calls that a full disk or a failing
// device refuses. Tests put one in the way of chosen files (ENOSPC, EIO).
type restoreSys interface {
	// write writes data to f, the new file that is to hold path's content.
	write(path string, f *os.File, data []byte) error
	// unlink removes path; remove is the system's removal of it (by its folder's handle on
	// Unix), so that the seam need not know how a platform removes a file.
	unlink(path string, remove func() error) error
}

// osSys is the real system.
type osSys struct{}

func (osSys) write(_ string, f *os.File, data []byte) error {
	_, err := f.Write(data)
	return err
}

func (osSys) unlink(_ string, remove func() error) error { return remove() }

func (s *Store) restoreSys() restoreSys {
	if s.sys == nil {
		return osSys{}
	}
	return s.sys
}

// IncompleteError is Rewind's error when some files could not be put back (a full disk, an
// I/O error, a damaged backup): the point is not reached, every later point and every
// backup stays, and a rewind to it again, once the cause is gone, finishes the job.
type IncompleteError struct {
	// Failed are the files not put back, with why (Result.Failed).
	Failed []Skipped
}

func (e *IncompleteError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "checkpoint: %d file(s) could not be put back:", len(e.Failed))
	for i, s := range e.Failed {
		if i > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " %s (%s)", s.Path, s.Reason)
	}
	b.WriteString("; the checkpoint is kept: rewind to it again once that is fixed")
	return b.String()
}
