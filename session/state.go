package session

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/boundedfile"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/tool"
)

// What a session keeps besides its messages, so that a session continued in a new process goes
// on as it was: each message's uuid (a later session resumes up to one, --resume-session-at),
// the API's usage of each reply (context accounting: a session continued near the window is
// compacted before its first request), and what the model read and wrote (Edit and Write
// work on the files it read, and still catch a file changed since).
//
// Lines of these kinds, all optional, so that files written before them still read:
//   - a "message" line's "uuid" and, for a reply, "usage";
//   - "file_state": a path and what was known of it ("fileRead"), or "forget": true;
//   - "resume_at": the conversation goes on from the message with that uuid, the later ones
//     abandoned (they stay in the file for a person to read).

// fileEntry is what is known of a file, and how many messages the conversation held when it
// was recorded.
type fileEntry struct {
	read tool.FileRead
	at   int
}

// ErrNoMessage is the error of a uuid that names no message of the conversation since its
// last compaction.
var ErrNoMessage = errors.New("has no message with this uuid since its last compaction")

// AppendMessageInfo writes a message with its uuid and, for a reply, its usage. It implements
// [agent.InfoRecorder]; see [Writer] for when the line is on disk.
func (w *Writer) AppendMessageInfo(m llm.Message, info agent.MessageInfo) error {
	return w.write(line{Type: "message", Message: &m, UUID: info.UUID, Usage: info.Usage})
}

// AppendFileState writes what the model now knows of the file p, or, with r nil, that it no
// longer knows it. See [Writer] for when the line is on disk.
func (w *Writer) AppendFileState(p string, r *tool.FileRead) error {
	return w.write(line{Type: "file_state", Path: p, FileRead: r, Forget: r == nil})
}

// LoadUpTo reads session id of cwd (as [Store.Load]) as it was when the message uuid was
// recorded: the conversation up to and including it, the usage and the files known then. It
// is what --resume-session-at continues. A uuid of no message, or of one a later compaction
// replaced, is [ErrNoMessage].
func (s *Store) LoadUpTo(ctx context.Context, cwd, id, uuid string) (*Transcript, error) {
	path, err := s.Find(cwd, id)
	if err != nil {
		return nil, err
	}
	p := parser{upTo: uuid}
	if err := boundedfile.Lines(ctx, path, fileLimits, p.line); err != nil {
		return nil, fmt.Errorf("reading session %s: %w", id, err)
	}
	if p.snap == nil || len(p.snap.t.Compactions) != len(p.t.Compactions) {
		return nil, fmt.Errorf("session %s %w %s", id, ErrNoMessage, uuid)
	}
	t := p.snap.finish()
	t.ID, t.Path = id, path
	return t, nil
}

// AppendResumeAt writes that the conversation goes on from t, a transcript [Store.LoadUpTo]
// read at the message uuid: a session read back ends there (with t's usage and files), until
// what is appended after. See [Writer] for when it is on disk.
func (w *Writer) AppendResumeAt(uuid string, t *Transcript) error {
	l := line{Type: "resume_at", UUID: uuid, Measured: t.Measured}
	if t.Measured > 0 {
		l.Usage = &t.Usage
	}
	if err := w.write(l); err != nil {
		return err
	}
	// The files the model knew at the point, some of which were forgotten after it.
	for p, e := range t.files {
		if err := w.AppendFileState(p, &e.read); err != nil {
			return err
		}
	}
	return nil
}

// Files returns what the model knew of files when the session was saved, by path.
func (t *Transcript) Files() map[string]tool.FileRead {
	out := make(map[string]tool.FileRead, len(t.files))
	for p, e := range t.files {
		out[p] = e.read
	}
	return out
}

// message notes a message line's uuid and usage; the message is the last of t.Messages.
func (p *parser) message(l *line) {
	p.ids = append(p.ids, l.UUID)
	if l.Usage != nil && l.Message.Role == llm.RoleAssistant {
		p.t.Usage, p.t.Measured = *l.Usage, len(p.t.Messages)
	}
	if p.upTo != "" && l.UUID == p.upTo {
		p.snap = p.clone()
	}
}

// clone is a copy of p's state that what p reads next does not change.
func (p *parser) clone() *parser {
	c := &parser{t: p.t, compacted: p.compacted, over: p.over, limit: p.limit, path: p.path, ids: slices.Clone(p.ids)}
	c.t.Messages = slices.Clone(p.t.Messages)
	c.t.Compactions = slices.Clone(p.t.Compactions)
	c.t.Points = slices.Clone(p.t.Points)
	c.t.files = maps.Clone(p.t.files)
	return c
}

// compactedState forgets the uuids and the usage of a conversation a compaction replaced.
func (p *parser) compactedState() {
	p.ids = nil
	p.t.Usage, p.t.Measured = llm.Usage{}, 0
	for path, e := range p.t.files {
		// Carried over into the summary (the compaction's forget lines follow for the others).
		e.at = 0
		p.t.files[path] = e
	}
}

// fileState applies a file_state line.
func (p *parser) fileState(l *line) bool {
	if l.Path == "" || (l.FileRead == nil) != l.Forget {
		return false
	}
	if l.Forget {
		delete(p.t.files, l.Path)
		return true
	}
	if p.t.files == nil {
		p.t.files = map[string]fileEntry{}
	}
	p.t.files[l.Path] = fileEntry{read: *l.FileRead, at: len(p.t.Messages)}
	return true
}

// resumeAt applies a resume_at line: the conversation ends after its message, with the usage
// of that moment; false when no message since the last compaction has the uuid.
func (p *parser) resumeAt(l *line) bool {
	if l.UUID == "" || !p.cut(l.UUID) {
		return false
	}
	if l.Usage != nil && l.Measured <= len(p.t.Messages) {
		p.t.Usage, p.t.Measured = *l.Usage, l.Measured
	}
	return true
}

// cut ends the conversation after the message uuid; false when no message since the last
// compaction has it.
func (p *parser) cut(uuid string) bool {
	n := -1
	for i, id := range p.ids {
		if id != "" && id == uuid {
			n = i + 1
		}
	}
	if n < 0 || len(p.ids) != len(p.t.Messages) {
		// Not found, or the ids do not line up with the messages (a line unread).
		return false
	}
	p.t.Messages, p.ids = p.t.Messages[:n:n], p.ids[:n:n]
	if p.t.Measured > n {
		p.t.Usage, p.t.Measured = llm.Usage{}, 0
	}
	for path, e := range p.t.files {
		if e.at > n {
			// Read after the cut: the conversation no longer holds it.
			delete(p.t.files, path)
		}
	}
	return true
}
