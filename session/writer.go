package session

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/boundedfile"
	"github.com/reinsdev/reins/filelock"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/tool"
)

// lockWriter takes the session's writer lock: an exclusive lock (package filelock) on the open file, held until
// the Writer closes it (or the process dies).
func lockWriter(f *os.File, id string) error {
	if err := filelock.TryLock(f); err != nil {
		if errors.Is(err, filelock.ErrLocked) {
			return fmt.Errorf("session %s %w: wait for it to finish, or start a new session", id, ErrInUse)
		}
		return fmt.Errorf("locking session %s: %w", id, err)
	}
	return nil
}

// Writer appends to one session file. It implements [agent.Recorder] and is safe for
// concurrent use.
//
// # Durability
//
// A line goes through two stages:
//
//   - Written: AppendMessage and AppendPermissions return once the line is in the file, written
//     with one write call. From then on the line survives the end of the process, a kill -9
//     included, because it is in the kernel's page cache; a line being written when the
//     process dies is at worst torn at the end of the file, which [Store.Load] skips. Only a
//     crash of the machine (or a power cut) can still lose it.
//   - Acknowledged: once [Writer.Flush] returns nil, every line appended before the call is
//     on disk (fsynced) and survives a crash of the machine too. The agent flushes at the end
//     of every run (every turn of a conversation), before it reports the result; Close
//     flushes as well, and the CLI closes the session on exit, an interrupt or SIGTERM
//     included.
//
// Between the two, a background goroutine syncs the file (group commit: one fsync covers every
// line written before it began), at most [syncDelay] after a line was written, so the fsyncs
// that the appends of one turn need do not wait on the agent's path: a turn waits for the
// disk at most once, at its end (a short turn does, and that one fsync covers all its lines;
// a long one has usually been covered by then). Writing is kept on the caller's path
// on purpose: the conversation in the file must never lag behind what tools did, so a tool
// never runs before its tool_use is written.
type Writer struct {
	// ID is the session's id; Path its file.
	ID, Path string

	store *Store

	mu      sync.Mutex // guards f, closing, written, state and the writes themselves
	f       *os.File
	closing bool
	written uint64 // lines written to f
	// state is what the file's lines leave besides the conversation, recorded in each
	// boundary line so that a resume reads from there (resume.go); nil when this Writer
	// cannot know it, and its boundaries then record none.
	state *resumeState

	syncMu  sync.Mutex // one sync at a time; guards synced, syncErr and dir
	synced  uint64     // lines covered by a completed fsync
	syncErr error      // the first failed fsync: later lines may be lost, so it sticks
	dir     string     // a new file's folder, synced once so that the file's name is durable

	kick    chan struct{} // wakes the background syncer; capacity 1, so kicks coalesce
	quit    chan struct{} // closed by Close, to end the syncer's wait
	stopped chan struct{} // closed when the background syncer has ended
}

// newWriter returns a Writer of f and starts its background syncer. dir, when not empty, is
// the folder to sync after the file's first sync; st is the state the file's lines leave, nil
// when unknown.
func (s *Store) newWriter(id, path string, f *os.File, dir string, st *resumeState) *Writer {
	w := &Writer{ID: id, Path: path, store: s, f: f, dir: dir, state: st, kick: make(chan struct{}, 1), quit: make(chan struct{}), stopped: make(chan struct{})}
	go w.syncLoop()
	return w
}

func (w *Writer) syncLoop() {
	defer close(w.stopped)
	for range w.kick {
		// The lines of a burst (a turn appends a few, milliseconds apart) wait to share one
		// fsync; Flush does not wait for the delay.
		t := time.NewTimer(cmp.Or(w.store.syncDelay, syncDelay))
		select {
		case <-t.C:
		case <-w.quit:
			t.Stop()
			return // Close syncs what is left
		}
		// A failure sticks in syncErr; Flush and Close report it.
		_ = w.sync()
	}
}

// syncDelay is how long the background syncer lets lines gather before it syncs them. A short
// turn ends first, and its Flush then syncs every line of it at once: one fsync for the file
// (and one for a new file's folder) instead of one per line, each of which cost the kernel
// as much CPU time as the rest of the turn's writing.
const syncDelay = 200 * time.Millisecond

// Create starts a new session of cwd and writes its first line.
func (s *Store) Create(cwd, model string) (*Writer, error) {
	return s.CreateWithID(cwd, NewID(), model)
}

// CreateWithID starts a new session with a caller-chosen id (the SDK's --session-id). It fails
// when cwd already has a session of that id.
func (s *Store) CreateWithID(cwd, id, model string) (*Writer, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("invalid session id %q: want a UUID", id)
	}
	dir := s.Dir(cwd)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating session folder: %w", err)
	}
	path := filepath.Join(dir, id+".jsonl")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("creating session file: %w", err)
	}
	if err := lockWriter(f, id); err != nil {
		f.Close()
		return nil, err
	}
	w := s.newWriter(id, path, f, dir, &resumeState{})
	if err := w.write(line{Type: "session", Version: Version, SessionID: id, Cwd: cwd, Model: model}); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// Reopen opens an existing session file to append to it. A session has one writer: while
// another Writer (in this process or another reins) has it open, Reopen fails with
// [ErrInUse], so two runs never interleave their lines.
//
// The Writer's boundary lines record the state the file's lines leave when t is what [Store.Load]
// read of the file as it still is; when it is not (another Transcript, or the file changed
// since), they record none, and a resume after them reads the whole file.
func (s *Store) Reopen(t *Transcript) (*Writer, error) {
	f, err := openAppend(t.Path)
	if err != nil {
		return nil, fmt.Errorf("opening session %s: %w", t.ID, err)
	}
	if err := lockWriter(f, t.ID); err != nil {
		f.Close()
		return nil, err
	}
	var st *resumeState
	if info, err := f.Stat(); err == nil && t.end != nil && info.Size() == t.size {
		c := *t.end
		st = &c
	}
	if t.tornTail {
		// Start on a fresh line after a torn last line.
		if _, err := f.Write([]byte("\n")); err != nil {
			f.Close()
			return nil, fmt.Errorf("writing session %s: %w", t.ID, err)
		}
	}
	return s.newWriter(t.ID, t.Path, f, "", st), nil
}

// openAppend opens an existing session file to append to it, only when it is still a regular
// file: the file read by Load may have been replaced since by a FIFO (whose open for writing
// would wait for a reader for ever; O_NONBLOCK makes it fail instead) or a device.
func openAppend(path string) (*os.File, error) {
	fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_APPEND|syscall.O_NONBLOCK|syscall.O_CLOEXEC|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = &boundedfile.NotRegularError{Path: path, Mode: info.Mode(), Kind: fileLimits.Kind}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// AppendMessage writes a message to the file; see [Writer] for when it is on disk.
func (w *Writer) AppendMessage(m llm.Message) error {
	return w.write(line{Type: "message", Message: &m})
}

// AppendPermissions writes the session's permission state to the file; see [Writer] for when
// it is on disk.
func (w *Writer) AppendPermissions(st agent.SessionState) error {
	return w.write(line{Type: "permissions", Permissions: &st})
}

// AppendBoundary writes a compaction's boundary; the summary message follows it. See [Writer]
// for when it is on disk.
func (w *Writer) AppendBoundary(b agent.Boundary) error {
	return w.write(line{Type: "compact_boundary", Compact: &b})
}

// AppendPoint writes the line of a file checkpoint that begins now, before its user message
// is recorded: [Store.LoadBefore] finds the conversation as it stood there. See [Writer] for
// when it is on disk.
func (w *Writer) AppendPoint(id string) error {
	if id == "" {
		return errors.New("a checkpoint line needs the point's id")
	}
	return w.write(line{Type: "checkpoint", PointID: id})
}

// Fork writes a new session of cwd holding t's messages, flushed and closed, and returns its
// id: a conversation rewound to a point goes on there, and t's file is left as it is. Like
// --fork-session, the fork carries no permission state (mode, session rules, approvals).
func (s *Store) Fork(cwd, model string, t *Transcript) (string, error) {
	w, err := s.Create(cwd, model)
	if err != nil {
		return "", err
	}
	for _, m := range t.Messages {
		if err = w.AppendMessage(m); err != nil {
			break
		}
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		// Half a fork is not a conversation anyone asked for.
		os.Remove(w.Path)
		return "", fmt.Errorf("writing session %s: %w", w.ID, err)
	}
	return w.ID, nil
}

func (w *Writer) write(l line) error {
	l.Timestamp = w.store.now().UTC()
	var b, perms []byte
	var err error
	if l.Type != "compact_boundary" { // a boundary records the state as it is when written
		if b, err = encodeLine(l); err != nil {
			return fmt.Errorf("encoding session line: %w", err)
		}
	}
	if l.Permissions != nil {
		if perms, err = json.Marshal(l.Permissions); err != nil {
			return fmt.Errorf("encoding session line: %w", err)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil || w.closing {
		return fmt.Errorf("session %s is closed", w.ID)
	}
	if l.Type == "compact_boundary" {
		if w.state != nil {
			st := *w.state
			l.Resume = &st
		}
		if b, err = encodeLine(l); err != nil {
			return fmt.Errorf("encoding session line: %w", err)
		}
	}
	// One write call per line: with O_APPEND the line lands whole or, on a crash, torn only at
	// the end of the file, which Load skips.
	if _, err := w.f.Write(b); err != nil {
		// A part of the line may be in the file: what it leaves is not known any more.
		w.state = nil
		return fmt.Errorf("writing session %s: %w", w.ID, err)
	}
	w.written++
	w.track(l, perms)
	select {
	case w.kick <- struct{}{}:
	default: // a sync is already due; it will cover this line
	}
	return nil
}

// track follows, in w.state, what the line l just written leaves: perms is its permission
// state, encoded.
func (w *Writer) track(l line, perms []byte) {
	if w.state == nil {
		return
	}
	switch l.Type {
	case "session":
		w.state.Cwd, w.state.Model = l.Cwd, l.Model
	case "permissions":
		w.state.Permissions = perms
	case "resume_at":
		// What a reader is left with depends on whether it finds the message (a line it
		// could not read puts the uuids out of step): not known here, so this Writer's
		// boundaries record nothing and a resume after them reads the whole file.
		w.state = nil
	case "file_state":
		// A copy: the map may be the one of the Transcript that Reopen took the state from.
		files := maps.Clone(w.state.Files)
		if l.Forget {
			delete(files, l.Path)
		} else if l.FileRead != nil {
			if files == nil {
				files = map[string]tool.FileRead{}
			}
			files[l.Path] = *l.FileRead
		}
		w.state.Files = files
	}
}

// Flush returns once every line appended before the call is on disk, or the error that kept
// one from getting there. An fsync that failed once fails every later Flush: the kernel may
// have dropped the lines it could not write.
func (w *Writer) Flush() error {
	return w.sync()
}

// sync fsyncs the file if lines were written since the last sync.
func (w *Writer) sync() error {
	w.syncMu.Lock()
	defer w.syncMu.Unlock()
	if w.syncErr != nil {
		return w.syncErr
	}
	w.mu.Lock()
	target, f := w.written, w.f
	w.mu.Unlock()
	if f == nil || target <= w.synced {
		return nil
	}
	// Lines written while this fsync runs may or may not be covered; only those counted in
	// target are claimed.
	if err := w.fsync(f); err != nil {
		w.syncErr = fmt.Errorf("syncing session %s: %w", w.ID, err)
		return w.syncErr
	}
	if w.dir != "" {
		if d, err := os.Open(w.dir); err == nil {
			w.fsync(d)
			d.Close()
		}
		w.dir = ""
	}
	w.synced = target
	return nil
}

func (w *Writer) fsync(f *os.File) error {
	if w.store.fsync != nil {
		return w.store.fsync(f)
	}
	return f.Sync()
}

// Close flushes and closes the file. Appending after Close is an error.
func (w *Writer) Close() error {
	w.mu.Lock()
	if w.f == nil || w.closing {
		w.mu.Unlock()
		return nil
	}
	w.closing = true
	close(w.quit)
	close(w.kick)
	w.mu.Unlock()
	<-w.stopped
	err := w.sync()
	w.mu.Lock()
	defer w.mu.Unlock()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	w.f = nil
	return err
}

// encodeLine encodes l as one line of the file, newline included.
func encodeLine(l line) ([]byte, error) {
	b, err := json.Marshal(l)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
