package tool

import (
	"cmp"
	"encoding/json"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// FileRead is what the Read tool saw of a file.
type FileRead struct {
	ModTime time.Time
	// Hash is a digest of the whole file's content at read time.
	Hash string
	// Offset and Limit are the line range read; Partial is true when not the whole file was.
	Offset, Limit int
	Partial       bool
	// Change is the file's inode change time (ctime) at read time, or zero where the system
	// does not report one. Unlike ModTime it cannot be set back, so a partial read (which has
	// no Hash) still notices a change whose mtime was restored.
	Change time.Time
}

// FileState remembers which files the model has read, so Edit and Write can refuse to change
// a file the model has not seen or that changed since. It is safe for concurrent use.
type FileState struct {
	mu    sync.Mutex
	reads map[string]FileRead
	// seq orders the records, the latest highest, so compaction can carry the files most
	// recently read over.
	seq  map[string]uint64
	next uint64
	// notify is told of every change (SetNotify); changing holds changes and their notices
	// in one order, without holding mu (and Lookup) during a notice.
	notify   func(p string, r *FileRead)
	changing sync.Mutex
}

// SetNotify makes f be told of every change from now on: what is known of the file p, or nil
// when it was forgotten. A session records them so that a continued session knows the files
// its conversation read (Replace). f is called once per change, in the order the changes
// were made, without the lock Lookup takes; it must not block for long.
func (s *FileState) SetNotify(f func(p string, r *FileRead)) {
	s.mu.Lock()
	s.notify = f
	s.mu.Unlock()
}

// Replace makes what is known the reads of a saved session, without telling SetNotify's
// function (they are recorded already).
func (s *FileState) Replace(reads map[string]FileRead) {
	s.changing.Lock()
	defer s.changing.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads, s.seq = map[string]FileRead{}, map[string]uint64{}
	for p, r := range reads {
		p = filepath.Clean(p)
		s.reads[p] = r
		s.next++
		s.seq[p] = s.next
	}
}

// NewFileState returns an empty file state.
func NewFileState() *FileState { return &FileState{reads: map[string]FileRead{}} }

// Record stores a read of the absolute path p.
func (s *FileState) Record(p string, r FileRead) {
	s.changing.Lock()
	defer s.changing.Unlock()
	s.mu.Lock()
	p = filepath.Clean(p)
	s.reads[p] = r
	if s.seq == nil {
		s.seq = map[string]uint64{}
	}
	s.next++
	s.seq[p] = s.next
	notify := s.notify
	s.mu.Unlock()
	if notify != nil {
		notify(p, &r)
	}
}

// Lookup returns the last read of p.
func (s *FileState) Lookup(p string) (FileRead, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.reads[filepath.Clean(p)]
	return r, ok
}

// Forget drops what is known of p.
func (s *FileState) Forget(p string) {
	s.changing.Lock()
	defer s.changing.Unlock()
	s.mu.Lock()
	p = filepath.Clean(p)
	_, known := s.reads[p]
	delete(s.reads, p)
	delete(s.seq, p)
	notify := s.notify
	s.mu.Unlock()
	if known && notify != nil {
		notify(p, nil)
	}
}

// Retain keeps what is known of the paths keep accepts and forgets every other file. When
// compaction takes a file's content out of the conversation, the model no longer knows what
// it holds: its record must go, so that Edit and Write ask for a new Read.
func (s *FileState) Retain(keep func(p string) bool) {
	s.changing.Lock()
	defer s.changing.Unlock()
	s.mu.Lock()
	var dropped []string
	for p := range s.reads {
		if !keep(p) {
			delete(s.reads, p)
			delete(s.seq, p)
			dropped = append(dropped, p)
		}
	}
	notify := s.notify
	s.mu.Unlock()
	if notify != nil {
		slices.Sort(dropped)
		for _, p := range dropped {
			notify(p, nil)
		}
	}
}

// Paths returns the files known, the most recently recorded first.
func (s *FileState) Paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.reads))
	for p := range s.reads {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Compare(s.seq[b], s.seq[a]) })
	return out
}

// MarshalJSON encodes what is known, so a front end can keep file state across processes
// (`reins tool run --session`).
func (s *FileState) MarshalJSON() ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return json.Marshal(s.reads)
}

// UnmarshalJSON replaces what is known with the encoded state.
func (s *FileState) UnmarshalJSON(b []byte) error {
	reads := map[string]FileRead{}
	if err := json.Unmarshal(b, &reads); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads = reads
	s.seq = nil
	return nil
}
