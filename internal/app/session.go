package app

import (
	"cmp"
	"context"
	"fmt"
	"os"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/session"
)

// restore loads the session Continue or Resume names, if any, and restores its permission
// state onto the settings' context.
func (a *App) restore(ctx context.Context) (*session.Transcript, *permission.Context, error) {
	pc := a.Settings.Context
	var transcript *session.Transcript
	var err error
	switch {
	case a.opts.Continue:
		id, err := a.Session.Store.Latest(a.Cwd)
		if err != nil {
			return nil, nil, fmt.Errorf("--continue: %w", err)
		}
		if transcript, err = a.load(ctx, id); err != nil {
			return nil, nil, err
		}
	case a.opts.Resume != "":
		if transcript, err = a.load(ctx, a.opts.Resume); err != nil {
			return nil, nil, fmt.Errorf("--resume: %w", err)
		}
	default:
		return nil, pc, nil
	}
	if transcript.Skipped > 0 {
		a.opts.Report.warn("%d unreadable line(s) of session %s were skipped", transcript.Skipped, transcript.ID)
	}
	if pc, _, err = a.restorePermissions(transcript); err != nil {
		return nil, nil, err
	}
	a.Session.History, a.Session.Resumed = transcript.Messages, true
	return transcript, pc, nil
}

// load reads session id, up to the message ResumeAt names when it is set.
func (a *App) load(ctx context.Context, id string) (*session.Transcript, error) {
	if a.opts.ResumeAt == "" {
		return a.Session.Store.Load(ctx, a.Cwd, id)
	}
	t, err := a.Session.Store.LoadUpTo(ctx, a.Cwd, id, a.opts.ResumeAt)
	if err != nil {
		return nil, fmt.Errorf("--resume-session-at: %w", err)
	}
	return t, nil
}

// restorePermissions is the settings' context with t's saved permission state on it (its
// mode only when no flag chose one), and t's scoped approvals. Bypass restored as root is
// refused.
func (a *App) restorePermissions(t *session.Transcript) (*permission.Context, []agent.ScopedGrant, error) {
	pc := a.Settings.Context
	if t.Permissions == nil {
		return pc, nil, nil
	}
	keep := a.opts.Settings.Flags.Mode != "" || a.opts.Settings.Flags.DangerouslySkip
	pc, err := t.Permissions.Restore(pc, keep)
	if err != nil {
		return nil, nil, err
	}
	if err := a.root.RefuseBypass(pc, "the resumed session"); err != nil {
		return nil, nil, err
	}
	return pc, t.Permissions.Scoped, nil
}

// openSession creates, reopens or forks the session file, or only picks an id when nothing
// is saved.
func (a *App) openSession(transcript *session.Transcript) error {
	var err error
	switch {
	case a.opts.NoPersist:
		a.Session.ID = cmp.Or(a.opts.SessionID, session.NewID())
		if transcript != nil && !a.opts.Fork {
			a.Session.ID = transcript.ID
		}
		return nil
	case transcript != nil && !a.opts.Fork:
		a.Session.Recorder, err = a.Session.Store.Reopen(transcript)
		if err == nil && a.opts.ResumeAt != "" {
			// What came after the message is left behind, in the file for a person to read.
			if err = a.Session.Recorder.AppendResumeAt(a.opts.ResumeAt, transcript); err != nil {
				a.Session.Recorder.Close()
				a.Session.Recorder = nil
			}
		}
	default:
		a.Session.Recorder, err = a.Session.Store.CreateWithID(a.Cwd, cmp.Or(a.opts.SessionID, session.NewID()), a.Provider.Model)
		if branch := gitBranch(a.Cwd); err == nil && branch != "" {
			// For the lists of sessions (/resume); a session that cannot say it is no worse.
			_ = a.Session.Recorder.AppendBranch(branch)
		}
		if err == nil && transcript != nil {
			// A fork starts as a copy of the conversation it continues, and of what its model
			// knew of files.
			if err = copyTranscript(a.Session.Recorder, transcript); err != nil {
				a.Session.Recorder.Close()
				a.Session.Recorder = nil
			}
		}
	}
	if err != nil {
		return err
	}
	a.Session.ID = a.Session.Recorder.ID
	return nil
}

// openResultsDir picks the folder for saved tool results: <session id>/tool-results/ beside
// the session file, or without one a temporary folder that ends with the session. It returns
// pc with that folder readable: the model may read back what the agent saved for it without
// asking (Read deny rules still win). New and SwitchSession both come here, so the folder the
// agent saves into and the one the model may read are always the same.
func (a *App) openResultsDir(pc *permission.Context) (*permission.Context, error) {
	switch {
	case a.Session.Recorder != nil:
		a.Session.resultsDir = a.Session.Recorder.ToolResultsDir()
	case !a.Session.tempResults:
		dir, err := os.MkdirTemp("", "reins-tool-results-")
		if err != nil {
			return nil, fmt.Errorf("creating a folder for tool results: %w", err)
		}
		a.Session.resultsDir, a.Session.tempResults = dir, true
	}
	return pc.WithInternalReadDirs(a.Session.resultsDir), nil
}

// transcriptPath is the session file hooks are told about; empty without persistence.
func (a *App) transcriptPath() string {
	if a.Session.Recorder == nil {
		return ""
	}
	return a.Session.Recorder.Path
}

// SwitchSession makes the saved session id the one the agent records into, with its
// permission state restored onto the settings' context as Resume does, and returns its
// conversation. It needs a persisted session.
func (a *App) SwitchSession(ctx context.Context, id string) ([]llm.Message, error) {
	if a.Session.Recorder == nil {
		return nil, fmt.Errorf("switching sessions: this session is not saved")
	}
	t, err := a.Session.Store.Load(ctx, a.Cwd, id)
	if err != nil {
		return nil, err
	}
	pc, scoped, err := a.restorePermissions(t)
	if err != nil {
		return nil, err
	}
	w, err := a.Session.Store.Reopen(t)
	if err != nil {
		return nil, err
	}
	old := a.Session.Recorder
	a.Session.recMu.Lock()
	a.Session.Recorder, a.Agent.Recorder, a.Session.ID, a.Session.History = w, w, t.ID, t.Messages
	a.Session.recMu.Unlock()
	old.Close()
	a.restoreSessionState(t)
	// The new session's saved results: the agent saves there from now on (sub-agents read the
	// folder as they start) and the model may read them back.
	if pc, err = a.openResultsDir(pc); err != nil {
		return nil, err
	}
	a.Agent.ResultsDir = a.Session.resultsDir
	if err := a.Permissions.Replace(pc, scoped); err != nil {
		return nil, err
	}
	if err := w.AppendPermissions(a.Permissions.State()); err != nil {
		return nil, err
	}
	return t.Messages, nil
}

// Sidechains returns the lookup of the current session's sub-agent conversations by agent
// id: nil when one cannot be read. The files are read once per session file; call the
// lookup from one goroutine only.
func (a *App) Sidechains(ctx context.Context) func(agentID string) []llm.Message {
	var path string
	var all map[string]*session.Transcript
	return func(agentID string) []llm.Message {
		if a.Session.Recorder == nil {
			return nil
		}
		if path != a.Session.Recorder.Path {
			path = a.Session.Recorder.Path
			all, _ = a.Session.Store.Sidechains(ctx, &session.Transcript{ID: a.Session.ID, Path: path})
		}
		if t := all[agentID]; t != nil {
			return t.Messages
		}
		return nil
	}
}

// copyTranscript writes t's conversation and file state into a new session.
func copyTranscript(w *session.Writer, t *session.Transcript) error {
	for _, m := range t.Messages {
		if err := w.AppendMessage(m); err != nil {
			return err
		}
	}
	for p, r := range t.Files() {
		if err := w.AppendFileState(p, &r); err != nil {
			return err
		}
	}
	return nil
}
