package cli

import (
	"context"
	"errors"
	"strings"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/internal/tui"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/mcp/client"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/session"
)

// runInteractive runs the full-screen chat: the same setup, provider and agent as -p (and the
// SDK protocol), with the permission dialog as the asker — behind the PermissionRequest hooks
// when there are any. A non-empty prompt is sent as the first message.
func runInteractive(ctx context.Context, f *Factory, opts *agentOptions, prompt string) error {
	term := tui.Terminal{In: f.In, Out: f.Out, NoColor: f.Getenv("NO_COLOR") != ""}
	opts.mcp.approve = func(ctx context.Context, pending []client.Entry) (map[string]bool, error) {
		return approveProjectServers(ctx, term, pending)
	}
	elicitor := tui.NewElicitor()
	s, err := setupRun(ctx, f, opts)
	if err != nil {
		return err
	}
	defer s.Close()
	// MCP servers' requests for input go to the chat's form while it runs.
	s.elicit.set(elicitor)
	defer s.elicit.set(nil)
	if s.rec == nil {
		return usageErrorf("--no-session-persistence is for headless runs; the interactive mode saves its session")
	}

	files := map[permission.Source]string{}
	for _, src := range []permission.Source{permission.SourceLocal, permission.SourceProject, permission.SourceUser} {
		if p, err := s.env.opts.PersistPath(src); err == nil {
			files[src] = p
		}
	}
	prompts, perr := s.mcp.prompts(ctx)
	if perr != nil {
		f.warn("%v", perr)
	}
	s.agent.System = sessionStart(ctx, s.hooks, s.bus, s.perms.Context(), s.resumed, s.choice.Model, s.agent.System)
	err = tui.Run(ctx, tui.Config{
		Agent:         s.agent,
		History:       s.history,
		Prompt:        prompt,
		SessionID:     s.sessionID,
		Provider:      s.choice.Name,
		Cwd:           s.cwd,
		Home:          f.Getenv("HOME"),
		SettingsFiles: files,
		Sessions:      func() ([]tui.SessionInfo, error) { return listSessions(s.store, s.cwd) },
		Resume:        func(id string) ([]llm.Message, error) { return s.switchTo(ctx, f, opts, id) },
		NoColor:       f.Getenv("NO_COLOR") != "",
		WrapAsker:     s.withHooks,
		Elicitor:      elicitor,
		SubAgent:      s.sidechains(ctx),
		Prompts:       promptCommands(prompts),
		RunPrompt: func(ctx context.Context, name, args string) (string, error) {
			return s.mcp.runPrompt(ctx, prompts, name, args)
		},
		In:  f.In,
		Out: f.Out,
	})
	sessionEnd(ctx, s.hooks, s.bus, s.perms)
	if err != nil && ctx.Err() != nil {
		return finishWith(outcomeInterrupted, errors.New("interrupted; resume with: reins --resume "+s.sessionID))
	}
	return err
}

// approveProjectServers shows the approval dialog of the project servers before the chat
// starts.
func approveProjectServers(ctx context.Context, term tui.Terminal, pending []client.Entry) (map[string]bool, error) {
	servers := make([]tui.MCPServer, 0, len(pending))
	for _, e := range pending {
		c := e.Config
		launch := c.URL
		if c.TransportType() == client.TypeStdio {
			launch = strings.Join(append([]string{c.Command}, c.Args...), " ")
		}
		servers = append(servers, tui.MCPServer{Name: c.Name, Launch: c.TransportType() + ": " + launch})
	}
	answers, err := tui.ApproveMCPServers(ctx, term, servers)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for name, a := range answers {
		switch a {
		case tui.MCPApprove:
			out[name] = true
		case tui.MCPReject:
			out[name] = false
		}
	}
	return out, nil
}

// sidechains returns the lookup of the current session's sub-agent conversations by agent
// id, for the Agent cards of a resumed conversation: nil when one cannot be read (the card then
// shows only its result). The files are read once per session file; the UI calls it from its
// own goroutine only.
func (s *runSetup) sidechains(ctx context.Context) func(agentID string) []llm.Message {
	var path string
	var all map[string]*session.Transcript
	return func(agentID string) []llm.Message {
		if s.rec == nil {
			return nil
		}
		if path != s.rec.Path {
			path = s.rec.Path
			all, _ = s.store.Sidechains(ctx, &session.Transcript{ID: s.sessionID, Path: path})
		}
		if t := all[agentID]; t != nil {
			return t.Messages
		}
		return nil
	}
}

// promptCommands are the MCP prompts as the chat's slash commands.
func promptCommands(prompts []client.Prompt) []tui.PromptCommand {
	out := make([]tui.PromptCommand, 0, len(prompts))
	for _, p := range prompts {
		c := tui.PromptCommand{Name: p.Command, Description: p.Description}
		for _, a := range p.Args {
			name := strings.ToUpper(a.Name)
			if !a.Required {
				name = "[" + name + "]"
			}
			c.Args = append(c.Args, name)
		}
		out = append(out, c)
	}
	return out
}

// switchTo makes the session id the one the agent records into, with its permission state
// restored onto the settings' context as --resume does.
func (s *runSetup) switchTo(ctx context.Context, f *Factory, opts *agentOptions, id string) ([]llm.Message, error) {
	t, err := s.store.Load(ctx, s.cwd, id)
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
		if err := refuseRootBypass(f, pc, "the resumed session"); err != nil {
			return nil, err
		}
		scoped = t.Permissions.Scoped
	}
	w, err := s.store.Reopen(t)
	if err != nil {
		return nil, err
	}
	old := s.rec
	s.rec, s.agent.Recorder, s.sessionID, s.history = w, w, t.ID, t.Messages
	old.Close()
	// The new session's saved results: the agent saves there from now on (sub-agents read the
	// folder as they start) and the model may read them back.
	if pc, err = s.openResultsDir(pc); err != nil {
		return nil, err
	}
	s.agent.ResultsDir = s.resultsDir
	if err := s.agent.Permissions.Replace(pc, scoped); err != nil {
		return nil, err
	}
	if err := w.AppendPermissions(s.agent.Permissions.State()); err != nil {
		return nil, err
	}
	return t.Messages, nil
}

// listSessions lists cwd's saved sessions for the resume picker, newest first.
func listSessions(store *session.Store, cwd string) ([]tui.SessionInfo, error) {
	saved, err := store.List(cwd)
	out := make([]tui.SessionInfo, len(saved))
	for i, sv := range saved {
		out[i] = tui.SessionInfo{ID: sv.ID, Modified: sv.Modified}
	}
	return out, err
}
