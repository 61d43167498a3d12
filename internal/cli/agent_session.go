package cli

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/session"
	"github.com/reinsdev/reins/settings"
	"github.com/reinsdev/reins/tools/web"
)

// agentSession is what a conversation runs with — settings, the restored session, the
// provider, the recorder, the tools and the agent — built the same way for `reins -p` and for
// the interactive mode.
type agentSession struct {
	env        *permEnv
	cwd        string
	store      *session.Store
	transcript *session.Transcript
	// history is the restored conversation (nil for a new session).
	history []llm.Message
	pc      *permission.Context
	choice  *providerChoice
	rec     *session.Writer
	pool    *agentPool
	agent   *agent.Agent
}

// Close ends the tools' processes and closes the session file.
func (s *agentSession) Close() {
	if s.pool != nil {
		s.pool.Close()
	}
	if s.rec != nil {
		s.rec.Close()
	}
}

// openAgentSession loads the settings, restores the session of --continue/--resume, resolves
// the provider and builds the agent. The caller closes the result.
func openAgentSession(ctx context.Context, f *Factory, opts *agentOptions) (_ *agentSession, err error) {
	env, err := opts.perm.load(f)
	if err != nil {
		return nil, err
	}
	for _, w := range env.warnings {
		fmt.Fprintf(f.ErrOut, "reins: warning: %s\n", w)
	}
	s := &agentSession{env: env, cwd: env.pc.OriginalCwd(), store: session.NewStore(env.opts.ConfigDir)}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	cwd, store := s.cwd, s.store

	// Restore the session before anything else, so that a bad id fails fast.
	var transcript *session.Transcript
	switch {
	case opts.continueLast:
		id, err := store.Latest(cwd)
		if err != nil {
			return nil, fmt.Errorf("--continue: %w", err)
		}
		if transcript, err = store.Load(cwd, id); err != nil {
			return nil, err
		}
	case opts.resume != "":
		if transcript, err = store.Load(cwd, opts.resume); err != nil {
			return nil, fmt.Errorf("--resume: %w", err)
		}
	}
	pc := env.pc
	var scoped []agent.ScopedGrant
	if transcript != nil {
		s.transcript, s.history = transcript, transcript.Messages
		if transcript.Skipped > 0 {
			fmt.Fprintf(f.ErrOut, "reins: warning: %d unreadable line(s) of session %s were skipped\n", transcript.Skipped, transcript.ID)
		}
		if transcript.Permissions != nil {
			keep := opts.perm.mode != "" || opts.perm.dangerouslySkip
			if pc, err = transcript.Permissions.Restore(pc, keep); err != nil {
				return nil, err
			}
			scoped = transcript.Permissions.Scoped
		}
	}
	s.pc = pc

	choice, err := resolveProvider(ctx, f, opts.provider, opts.model, env.loaded)
	if err != nil {
		return nil, err
	}
	s.choice = choice

	if transcript != nil {
		s.rec, err = store.Reopen(transcript)
	} else {
		s.rec, err = store.Create(cwd, choice.model)
	}
	if err != nil {
		return nil, err
	}

	perms := agent.NewPermissions(pc, func(_ context.Context, updates []permission.Update) error {
		return settings.Persist(env.opts, updates...)
	})
	// Scoped approvals come back only while they are still valid.
	perms.RestoreScoped(scoped)
	if err := s.rec.AppendPermissions(perms.State()); err != nil {
		return nil, err
	}
	s.pool = newAgentPool(f, pc, perms, web.ModelSummarizer{Provider: choice.provider, Model: smallModel(f, env.loaded, choice)})

	var dirs []string
	for _, d := range pc.AdditionalDirs() {
		dirs = append(dirs, d.Path)
	}
	system, err := systemPrompt(ctx, s.pool.tools, promptEnv{
		Cwd: cwd, Dirs: dirs, Platform: runtime.GOOS, Date: time.Now(), Git: isGitRepo(cwd),
		Mode: pc.Mode(), Append: opts.appendSystemPrompt,
	})
	if err != nil {
		return nil, err
	}

	s.agent = &agent.Agent{
		Provider:       choice.provider,
		Model:          choice.model,
		System:         system,
		Tools:          s.pool.tools,
		MaxTokens:      envInt(f, "REINS_MAX_OUTPUT_TOKENS"),
		MaxTurns:       opts.maxTurns,
		MaxConcurrency: cmp.Or(envInt(f, "REINS_MAX_TOOL_USE_CONCURRENCY"), envInt(f, "CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY")),
		Permissions:    perms,
		Env:            s.pool.env,
		Cwd:            s.pool.cwd,
		Recorder:       s.rec,
		Bus:            &agent.Bus{},
	}
	return s, nil
}
