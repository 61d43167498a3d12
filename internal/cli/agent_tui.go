package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/internal/tui"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
)

// runInteractive runs the full-screen chat: the same session, provider and agent as -p, with
// the permission dialog as the asker. A non-empty prompt is sent as the first message.
func runInteractive(ctx context.Context, f *Factory, opts *agentOptions, prompt string) error {
	if opts.continueLast && opts.resume != "" {
		return usageErrorf("--continue and --resume cannot be used together")
	}
	if opts.maxTurns < 0 {
		return usageErrorf("--max-turns must not be negative")
	}
	if opts.perm.dangerouslySkip && os.Geteuid() == 0 && f.Getenv("IS_SANDBOX") != "1" {
		return errors.New(msgRootBypass)
	}
	sess, err := openAgentSession(ctx, f, opts)
	if err != nil {
		return err
	}
	defer sess.Close()

	files := map[permission.Source]string{}
	for _, s := range []permission.Source{permission.SourceLocal, permission.SourceProject, permission.SourceUser} {
		if p, err := sess.env.opts.PersistPath(s); err == nil {
			files[s] = p
		}
	}
	err = tui.Run(ctx, tui.Config{
		Agent:         sess.agent,
		History:       sess.history,
		Prompt:        prompt,
		SessionID:     sess.rec.ID,
		Provider:      sess.choice.name,
		Cwd:           sess.cwd,
		Home:          f.Getenv("HOME"),
		SettingsFiles: files,
		Sessions:      func() ([]tui.SessionInfo, error) { return listSessions(sess.store.Dir(sess.cwd)) },
		Resume:        func(id string) ([]llm.Message, error) { return sess.switchTo(opts, id) },
		NoColor:       f.Getenv("NO_COLOR") != "",
		In:            f.In,
		Out:           f.Out,
	})
	if err != nil && ctx.Err() != nil {
		return &exitCodeError{code: exitCancel, err: errors.New("interrupted; resume with: reins --resume " + sess.rec.ID)}
	}
	return err
}

// switchTo makes the session id the one the agent records into, with its permission state
// restored onto the settings' context as --resume does.
func (s *agentSession) switchTo(opts *agentOptions, id string) ([]llm.Message, error) {
	t, err := s.store.Load(s.cwd, id)
	if err != nil {
		return nil, err
	}
	pc := s.env.pc
	var scoped []agent.ScopedGrant
	if t.Permissions != nil {
		keep := opts.perm.mode != "" || opts.perm.dangerouslySkip
		if pc, err = t.Permissions.Restore(pc, keep); err != nil {
			return nil, err
		}
		scoped = t.Permissions.Scoped
	}
	w, err := s.store.Reopen(t)
	if err != nil {
		return nil, err
	}
	old := s.rec
	s.rec, s.agent.Recorder, s.transcript, s.history = w, w, t, t.Messages
	old.Close()
	if err := s.agent.Permissions.Replace(pc, scoped); err != nil {
		return nil, err
	}
	if err := w.AppendPermissions(s.agent.Permissions.State()); err != nil {
		return nil, err
	}
	return t.Messages, nil
}

// listSessions lists the sessions saved in dir, newest first.
func listSessions(dir string) ([]tui.SessionInfo, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []tui.SessionInfo
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || filepath.Ext(name) != ".jsonl" {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, tui.SessionInfo{ID: strings.TrimSuffix(name, ".jsonl"), Modified: info.ModTime()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Modified.After(out[j].Modified) })
	return out, nil
}
