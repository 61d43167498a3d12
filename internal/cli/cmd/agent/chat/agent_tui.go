// Package chat is the interactive mode: it assembles the session with the chat as the
// answerer of every ask and runs the full-screen TUI (internal/tui) over the agent's events.
package chat

import (
	"context"
	"errors"
	"strings"

	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/cli/cmd/agent/chat/chatview"
	"github.com/reinsdev/reins/internal/cli/cmd/agent/shared"
	"github.com/reinsdev/reins/internal/cli/cmd/mcp"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/internal/tui"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/mcp/client"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/session"
	"github.com/reinsdev/reins/settings"
)

// RunInteractive runs the full-screen chat: the same setup, provider and agent as -p (and the
// SDK protocol), with the permission dialog as the asker — behind the PermissionRequest hooks
// when there are any. A non-empty prompt is sent as the first message.
func RunInteractive(ctx context.Context, f *cmdutil.Factory, opts *shared.Options, prompt string) error {
	if opts.SDK.NoPersist {
		return cmdutil.UsageErrorf("--no-session-persistence is for headless runs; the interactive mode saves its session")
	}
	term := tui.Terminal{In: f.In, Out: f.Out, NoColor: f.Getenv("NO_COLOR") != ""}
	opts.MCP.Approve = serverApprover{f: f, ask: func(ctx context.Context, pending []client.Entry) (map[string]bool, error) {
		return approveProjectServers(ctx, term, pending)
	}}
	elicitor := tui.NewElicitor()
	notices := tui.NewNotices()
	defer chatview.Stderr(f, notices)()
	if err := chatview.AskTrust(ctx, f, opts, term); err != nil {
		return err
	}
	opts.Chat = true
	a, err := shared.NewSession(ctx, f, opts)
	if err != nil {
		return err
	}
	// After Close (deferred later, run first): keep or remove the session's worktree.
	defer shared.LeaveWorktree(ctx, f, a, f.In, true)
	defer a.Close()
	// MCP servers' requests for input go to the chat's form while it runs.
	a.SetElicitor(elicitor)
	defer a.SetElicitor(nil)

	files := map[permission.Source]string{}
	for _, src := range []permission.Source{permission.SourceLocal, permission.SourceProject, permission.SourceUser} {
		if p, err := a.Settings.Options.PersistPath(src); err == nil {
			files[src] = p
		}
	}
	prompts, perr := a.Ext.MCP.Prompts(ctx)
	if perr != nil {
		f.Warn("%v", perr)
	}
	a.StartSession(ctx)
	status, stopStatus := chatview.StatusLine(f, a)
	defer stopStatus()
	o := a.Settings.Options
	err = tui.Run(ctx, tui.Config{
		StatusLine:      status,
		Agent:           a.Agent,
		History:         a.Session.History,
		Prompt:          prompt,
		SessionID:       a.Session.ID,
		Provider:        a.Provider.Name,
		BaseURL:         a.Provider.BaseURL,
		Credential:      a.Provider.Credential,
		CredentialNotes: a.Provider.CredentialNotes,
		Cwd:             a.Cwd,
		Home:            f.Getenv("HOME"),
		Trusted:         a.Settings.Trusted,
		Trust:           func() error { return settings.Trust(o.ConfigDir, o.Home, o.Cwd) },
		SettingsFiles:   files,
		Sessions:        func() ([]tui.SessionInfo, error) { return listSessions(ctx, a.Session.Store, a.Cwd) },
		Resume:          func(id string) ([]llm.Message, error) { return a.SwitchSession(ctx, id) },
		NoColor:         f.Getenv("NO_COLOR") != "",
		WrapAsker:       a.WithHooks,
		Elicitor:        elicitor,
		Notices:         notices,
		SubAgent:        a.Sidechains(ctx),
		Prompts:         promptCommands(prompts),
		Memory:          func() tui.MemoryReport { return memoryReport(a.Ext.Memory) },
		Checkpoints:     chatview.CheckpointsOf(a),
		Ignored:         func() []tui.IgnoredRule { return chatview.IgnoredRules(a.Settings.Report, a.Permissions.Context()) },
		Agents:          func() []tui.AgentInfo { return chatview.Agents(a.Ext.Agents) },
		Skills:          func() []tui.SkillInfo { return chatview.Skills(a.Ext.Skills) },
		MCP:             func() []tui.MCPServerInfo { return chatview.MCP(a.Ext.MCP) },
		Reconnect:       a.ReconnectMCP,
		SetMCPEnabled:   a.SetMCPEnabled,
		RunPrompt: func(ctx context.Context, name, args string) (string, error) {
			return a.Ext.MCP.RunPrompt(ctx, prompts, name, args)
		},
		Commands: chatview.Commands(a),
		RunCommand: func(ctx context.Context, name, args string) (string, func(), error) {
			return chatview.RunCommand(ctx, a, name, args)
		},
		In:  f.In,
		Out: f.Out,
	})
	a.EndSession(ctx)
	if err != nil && ctx.Err() != nil {
		return cmdutil.FinishWith(cmdutil.OutcomeInterrupted, errors.New("interrupted; resume with: reins --resume "+a.Session.ID))
	}
	return err
}

// serverApprover is the chat's approver of project MCP servers: ask puts them to the person
// (the dialog), and each answer is recorded as `reins mcp approve` records it.
type serverApprover struct {
	f   *cmdutil.Factory
	ask func(ctx context.Context, pending []client.Entry) (map[string]bool, error)
}

func (s serverApprover) ApproveProjectServers(ctx context.Context, pending []client.Entry) (map[string]bool, error) {
	return s.ask(ctx, pending)
}

func (s serverApprover) RecordProjectServer(cwd, name string, reject bool) error {
	_, err := mcp.RecordProjectServerAnswer(s.f, cwd, name, reject)
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

// listSessions lists cwd's saved sessions for the resume picker, newest first.
func listSessions(ctx context.Context, store *session.Store, cwd string) ([]tui.SessionInfo, error) {
	saved, err := store.List(cwd)
	// The picker shows the newest; each costs a read of the start of its file.
	saved = saved[:min(len(saved), maxListedSessions)]
	out := make([]tui.SessionInfo, len(saved))
	for i, sv := range saved {
		out[i] = tui.SessionInfo{ID: sv.ID, Modified: sv.Modified}
		if p, perr := store.Peek(ctx, cwd, sv.ID); perr == nil {
			out[i].Summary, out[i].Branch, out[i].Size = p.Prompt, p.Branch, p.Size
		}
	}
	return out, err
}

// maxListedSessions bounds the sessions /resume lists.
const maxListedSessions = 200

// memoryReport is what /memory lists of the session's memory.
func memoryReport(m *app.Memory) tui.MemoryReport {
	var r tui.MemoryReport
	for _, f := range m.All() {
		src := string(f.Source)
		if f.ImportedBy != "" {
			src += ", imported by " + f.ImportedBy
		}
		if f.Untrusted {
			src += ", untrusted"
			r.Untrusted = true
		}
		r.Files = append(r.Files, tui.MemoryFile{Path: f.Path, Source: src})
	}
	for _, w := range m.Loader.Warnings() {
		r.Warnings = append(r.Warnings, w.String())
	}
	return r
}
