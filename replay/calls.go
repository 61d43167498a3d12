package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/reinsdev/reins/audit"
	"github.com/reinsdev/reins/boundedfile"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/session"
)

// Call is one recorded tool call.
type Call struct {
	Session   string          `json:"session"`
	ToolUseID string          `json:"toolUseId"`
	Tool      string          `json:"tool"`
	Input     json.RawMessage `json:"input"`
	Time      time.Time       `json:"time"`
	// From is "session" or "audit".
	From string `json:"from"`
}

// sessionLimits are session files' bounds (session.MaxFileBytes, session.MaxLineBytes).
var sessionLimits = boundedfile.Limits{MaxBytes: session.MaxFileBytes, MaxLine: session.MaxLineBytes, Kind: "session file"}

// SkippedFile is a session file that could not be read (unreadable, not a regular file, too
// large, a line too long), left out of the replay whole.
type SkippedFile struct {
	Path string `json:"path"`
	// Line is where reading stopped, from 1; 0 when the file could not be read at all.
	Line  int    `json:"line,omitempty"`
	Error string `json:"error"`
}

func (s SkippedFile) String() string {
	if s.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", s.Path, s.Line, s.Error)
	}
	return s.Path + ": " + s.Error
}

// SessionCalls reads the tool calls of the saved sessions of dir (a session.Store's Dir for
// the project) recorded at or after since. A file that cannot be read is left out and listed
// in skipped, with where and why, and the others are read: one damaged session must not hide
// the rest. Only a folder that cannot be listed, or a cancelled ctx, is an error.
func SessionCalls(ctx context.Context, dir string, since time.Time) (calls []Call, skipped []SkippedFile, err error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("listing sessions: %w", err)
	}
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if e.IsDir() || !ok {
			continue
		}
		path := filepath.Join(dir, e.Name())
		got, err := fileCalls(ctx, path, id, since)
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if err != nil {
			sk := SkippedFile{Path: path, Error: err.Error()}
			if lt, ok := errors.AsType[*boundedfile.LineTooLongError](err); ok {
				sk.Line, sk.Error = lt.Line, fmt.Sprintf("the line is longer than %d bytes", lt.Limit)
			}
			skipped = append(skipped, sk)
			continue
		}
		calls = append(calls, got...)
	}
	sortCalls(calls)
	return calls, skipped, nil
}

// sessionLine is what replay reads of a session file's line: the message lines' tool_use
// blocks and when they were written.
type sessionLine struct {
	Type      string       `json:"type"`
	Timestamp time.Time    `json:"timestamp"`
	Message   *llm.Message `json:"message"`
}

func fileCalls(ctx context.Context, path, id string, since time.Time) ([]Call, error) {
	var out []Call
	n := 0
	err := boundedfile.Lines(ctx, path, sessionLimits, func(raw []byte) error {
		n++
		var l sessionLine
		if err := json.Unmarshal(raw, &l); err != nil {
			// A torn last line is how a crashed session ends; the session reader skips it too.
			return nil
		}
		if l.Type != "message" || l.Message == nil || l.Timestamp.Before(since) {
			return nil
		}
		for _, b := range l.Message.Content {
			if b.Type == llm.BlockToolUse {
				out = append(out, Call{Session: id, ToolUseID: b.ID, Tool: b.Name, Input: b.Input, Time: l.Timestamp, From: "session"})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// AuditCalls reads from the audit log at path the calls of sessions started in cwd that carry
// their input (audit.logToolInputs), at or after since, leaving out the ids in known (calls the
// session files already gave).
func AuditCalls(path, cwd string, since time.Time, known map[string]bool) ([]Call, error) {
	sessions := map[string]bool{}
	var out []Call
	err := audit.Read(path, func(r audit.Record) error {
		e := r.Entry
		switch {
		case e.Kind == audit.KindSession && e.Cwd == cwd:
			sessions[e.Session] = true
		case e.Kind == audit.KindDecision && sessions[e.Session] && e.Input != nil && !e.Time.Before(since) && !known[e.ToolUseID]:
			known[e.ToolUseID] = true
			out = append(out, Call{Session: e.Session, ToolUseID: e.ToolUseID, Tool: e.Tool, Input: e.Input, Time: e.Time, From: "audit"})
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading the audit log: %w", err)
	}
	return out, nil
}

func sortCalls(calls []Call) {
	slices.SortStableFunc(calls, func(a, b Call) int { return a.Time.Compare(b.Time) })
}
