package sdkproto

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/reinsdev/reins/session"
)

// Checkpointer keeps the session's file checkpoints (the SDK's enableFileCheckpointing): a
// checkpoint per user message, named by the caller's uuid for it, and the rewind to one.
type Checkpointer interface {
	// Begin starts the checkpoint of the user message id and returns the context its turn
	// runs in.
	Begin(ctx context.Context, id, label string) (context.Context, error)
	// Rewind puts the files back as they were at id (dry: reports only).
	Rewind(ctx context.Context, id string, dryRun bool) (RewindFilesResult, error)
}

// RewindFilesResult is rewind_files' answer: the pinned SDK's RewindFilesResult, with what
// reins adds (conflicts, notCaptured).
type RewindFilesResult struct {
	CanRewind    bool     `json:"canRewind"`
	Error        string   `json:"error,omitempty"`
	FilesChanged []string `json:"filesChanged,omitempty"`
	Insertions   int      `json:"insertions"`
	Deletions    int      `json:"deletions"`
	// SkippedLinks is only set by a real rewind, as in the SDK's type.
	SkippedLinks *int `json:"skippedLinks,omitempty"`
	// Conflicts are files the person changed after the agent did; a rewind leaves them as
	// they are.
	Conflicts []string `json:"conflicts,omitempty"`
	// NotCaptured are changes since the message that no checkpoint holds, each with why.
	NotCaptured []string `json:"notCaptured,omitempty"`
}

// beginCheckpoint starts the checkpoint of a queued message, named by the caller's uuid. A
// message sent without one gets an id of its own: rewind_files cannot name it, but its
// changes are still kept, so that a rewind to an earlier message puts them back too.
func (s *Server) beginCheckpoint(ctx context.Context, q queued) (context.Context, error) {
	if s.Handlers.Checkpoints == nil {
		return ctx, nil
	}
	id := q.uuid
	if id == "" {
		id = session.NewID()
	}
	label := q.msg.Text()
	if len(label) > 80 {
		label = label[:80]
	}
	c, err := s.Handlers.Checkpoints.Begin(ctx, id, label)
	if err != nil {
		return ctx, fmt.Errorf("file checkpoint: %w", err)
	}
	return c, nil
}

// rewindFiles answers rewind_files. A request reins cannot carry out is answered with
// canRewind false and why, as the SDK's type has it; a malformed one is an error response.
func (s *Server) rewindFiles(id string, raw json.RawMessage) {
	var req struct {
		UserMessageID string `json:"user_message_id"`
		DryRun        bool   `json:"dry_run"`
	}
	if err := json.Unmarshal(raw, &req); err != nil || req.UserMessageID == "" {
		s.refuse(id, "rewind_files", "invalid rewind_files request: user_message_id is required")
		return
	}
	if s.Handlers.Checkpoints == nil {
		s.conn.respond(id, RewindFilesResult{Error: "file checkpointing is not enabled (enableFileCheckpointing)"})
		return
	}
	if s.turnRunning() {
		s.conn.respond(id, RewindFilesResult{Error: "a turn is running; rewind once it has ended"})
		return
	}
	res, err := s.Handlers.Checkpoints.Rewind(context.Background(), req.UserMessageID, req.DryRun)
	if err != nil {
		s.conn.respond(id, RewindFilesResult{Error: err.Error()})
		return
	}
	s.conn.respond(id, res)
}

// turnRunning reports whether a turn is under way.
func (s *Server) turnRunning() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.turns.cancel != nil
}
