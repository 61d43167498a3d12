package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Sub-agents' conversations ("sidechains") are stored beside their session's file, one per
// sub-agent: <session id>/subagents/agent-<agent id>.jsonl. The parent's transcript links to
// them through the Agent tool's result (its agentId and transcriptPath).

// sessionFolder is the folder of what belongs to a session beside its file: <session id>/.
func sessionFolder(sessionPath string) string {
	return strings.TrimSuffix(sessionPath, filepath.Ext(sessionPath))
}

func sidechainDir(sessionPath string) string {
	return filepath.Join(sessionFolder(sessionPath), "subagents")
}

// ToolResultsDir is the folder beside the session file w writes where the agent saves tool
// results too large for the model: <session id>/tool-results/. Nothing creates it here; the
// agent does on first use.
func (w *Writer) ToolResultsDir() string {
	return filepath.Join(sessionFolder(w.Path), "tool-results")
}

// CreateSidechain starts the transcript of a sub-agent of the session w writes.
func (s *Store) CreateSidechain(w *Writer, agentID, cwd, model string) (*Writer, error) {
	if !validName(agentID) {
		return nil, fmt.Errorf("invalid agent id %q", agentID)
	}
	dir := sidechainDir(w.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating the sub-agent folder: %w", err)
	}
	path := filepath.Join(dir, "agent-"+agentID+".jsonl")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("creating the sub-agent transcript: %w", err)
	}
	sw := s.newWriter(agentID, path, f, dir, &resumeState{})
	if err := sw.write(line{Type: "session", Version: Version, SessionID: agentID, Cwd: cwd, Model: model}); err != nil {
		sw.Close()
		return nil, err
	}
	return sw, nil
}

// Sidechains reads the sub-agent transcripts of a session, by agent id, each within the bounds
// of a session file (see [Store.Load]). A session without sub-agents has none; an unreadable
// file is an error.
func (s *Store) Sidechains(ctx context.Context, t *Transcript) (map[string]*Transcript, error) {
	dir := sidechainDir(t.Path)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the sub-agents of session %s: %w", t.ID, err)
	}
	out := map[string]*Transcript{}
	for _, e := range entries {
		id, ok := strings.CutPrefix(strings.TrimSuffix(e.Name(), ".jsonl"), "agent-")
		if !ok || !strings.HasSuffix(e.Name(), ".jsonl") || e.IsDir() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		sc, err := s.loadFile(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("reading a sub-agent transcript: %w", err)
		}
		sc.ID = id
		out[id] = sc
	}
	return out, nil
}
