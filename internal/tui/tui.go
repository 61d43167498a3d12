package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// Config is what the interactive mode runs with. Agent is set up exactly as for a headless
// run (provider, tools, permissions, recorder, bus); Run installs the dialog as its Asker.
type Config struct {
	Agent *agent.Agent
	// History is the conversation of a resumed session.
	History []llm.Message
	// Prompt, if set, is sent as the first message (reins "…" in a terminal).
	Prompt    string
	SessionID string
	Provider  string
	// BaseURL and Credential say where the model requests go and where their credential comes
	// from (its source, never its value), for /status; CredentialNotes are credentials
	// configured but not used, and why.
	BaseURL, Credential string
	CredentialNotes     []string
	Cwd, Home           string
	// Trusted says the folder is trusted (its settings apply), for the start banner.
	Trusted bool
	// Trust trusts the folder (as reins trust does), when a rule saved in an untrusted
	// project's settings waits for it; nil offers no trust.
	Trust func() error
	// SettingsFiles names the file each editable settings source writes, for the labels of
	// "don't ask again".
	SettingsFiles map[permission.Source]string
	// Sessions lists this folder's saved sessions, newest first, for /resume.
	Sessions func() ([]SessionInfo, error)
	// Resume switches to the saved session id: the agent records into it from now on and its
	// permission state is restored. It returns the session's conversation. Nil disables
	// switching.
	Resume func(id string) ([]llm.Message, error)
	// SubAgent returns the saved conversation of a sub-agent of the current session by its
	// agent id (nil when there is none), for the Agent cards of a resumed conversation.
	SubAgent func(agentID string) []llm.Message
	// NoColor renders without colour (NO_COLOR).
	NoColor bool
	// WrapAsker, if set, wraps the dialog asker (PermissionRequest hooks answer beside it).
	WrapAsker func(permission.Asker) permission.Asker
	// Prompts are the MCP servers' prompts, offered as /mcp__server__prompt commands;
	// RunPrompt runs one with the text after the command and returns what to send as the
	// person's turn.
	Prompts   []PromptCommand
	RunPrompt func(ctx context.Context, name, args string) (string, error)
	// Commands are the custom slash commands; RunCommand expands one (its rules join the
	// session's for the turn) and returns the prompt to send and end, which drops the rules
	// when the turn is done.
	Commands   []CustomCommand
	RunCommand func(ctx context.Context, name, args string) (prompt string, end func(), err error)
	// Ignored, if set, returns the rules of the settings the session does not apply, and why,
	// for /permissions and the dialog's "?" view. It is called again each time: what a rule
	// shadows changes with the rules.
	Ignored func() []IgnoredRule
	// Agents, if set, lists the agent types for /agents.
	Agents func() []AgentInfo
	// Skills, if set, lists the session's skills for /skills.
	Skills func() []SkillInfo
	// MCP, if set, reports the session's MCP servers for /mcp; Reconnect, if set, starts one
	// again (/mcp reconnect NAME) and returns what became of it.
	MCP       func() []MCPServerInfo
	Reconnect func(ctx context.Context, name string) error
	// SetMCPEnabled turns a server off for the rest of the session, or on again (the /mcp
	// menu); nil offers neither.
	SetMCPEnabled func(ctx context.Context, name string, on bool) error
	// Checkpoints, if set, keeps a checkpoint of the files per message, for /rewind.
	Checkpoints Checkpoints
	// Memory, if set, reports the session's memory files for /memory.
	Memory func() MemoryReport
	// Elicitor, if set, shows MCP servers' requests for input while the chat runs.
	Elicitor *Elicitor
	// Notices, if set, shows in the transcript what the session reports while the chat runs
	// (warnings, retries, standard error): nothing may write to the terminal behind it.
	Notices *Notices
	// StatusLine, if set, is the settings' status command, whose line is shown under the
	// built-in one (statusline.go).
	StatusLine *StatusCommand
	// Now is the clock of durations and scoped approvals; nil is time.Now.
	Now func() time.Time

	In  io.Reader
	Out io.Writer
	// Width and Height fix the size when the output is not a terminal (tests).
	Width, Height int
}

// SessionInfo is one saved session, as /resume lists it.
type SessionInfo struct {
	ID       string
	Modified time.Time
	// Summary is the session's first prompt; a session without one is not offered.
	Summary string
	// Branch is the git branch it began on, Size its file's size in bytes (0: unknown).
	Branch string
	Size   int64
}

func (c *Config) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// Run shows the chat until the person quits (Ctrl+C twice from an empty prompt, /exit) or ctx
// ends. On a quit the conversation is written to Out once the screen is gone, with the
// command that resumes it. A running turn is aborted and waited for before Run returns, so
// the session on disk is complete.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Agent == nil || cfg.Agent.Permissions == nil {
		return errors.New("tui: an agent with permissions is required")
	}
	if cfg.Agent.Bus == nil {
		cfg.Agent.Bus = &agent.Bus{}
	}
	m := newModel(ctx, &cfg)
	m.fence = newFence()
	m.entries = append([]*entry{m.banner()}, m.entries...)
	p := tea.NewProgram(statusModel{m}, Terminal{In: cfg.In, Out: cfg.Out, NoColor: cfg.NoColor, Width: cfg.Width, Height: cfg.Height}.options(ctx)...)
	var a permission.Asker = &asker{send: p.Send, perms: cfg.Agent.Permissions, lookup: toolLookup(cfg.Agent.Tools), now: cfg.now, stop: m.stopper.stop, ignored: cfg.ignored,
		saved: func(ups []permission.Update, dest permission.Source) { p.Send(trustOfferMsg{updates: ups, dest: dest}) }}
	if cfg.WrapAsker != nil {
		a = cfg.WrapAsker(a)
	}
	cfg.Agent.Asker = a
	unsubscribe := cfg.Agent.Bus.Subscribe(func(ev agent.Event) { p.Send(busMsg{ev: ev}) })
	if cfg.Elicitor != nil {
		cfg.Elicitor.attach(p.Send)
		defer cfg.Elicitor.attach(nil)
	}
	if cfg.Notices != nil {
		// The kept notices are sent once the program reads its messages; the detach waits
		// for that, so that no notice goes to a program that has ended.
		attached := make(chan struct{})
		go func() { cfg.Notices.attach(p.Send); close(attached) }()
		defer func() { <-attached; cfg.Notices.attach(nil) }()
	}
	_, err := p.Run()
	// The program draws no more: a turn's end need not wait for its events.
	m.fence.close()
	if m.cancel != nil {
		m.cancel()
	}
	m.turn.Wait()
	unsubscribe()
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) && ctx.Err() == nil {
		return fmt.Errorf("interactive mode: %w", err)
	}
	if m.quitting {
		if werr := m.leaveScrollback(cfg.Out); werr != nil {
			return fmt.Errorf("interactive mode: leaving the conversation on screen: %w", werr)
		}
	}
	return ctx.Err()
}

func toolLookup(ts []tool.Tool) func(string) tool.Tool {
	byName := map[string]tool.Tool{}
	for _, t := range ts {
		byName[t.Name()] = t
		for _, a := range t.Spec().Aliases {
			if _, ok := byName[a]; !ok {
				byName[a] = t
			}
		}
	}
	return func(name string) tool.Tool {
		if t, ok := byName[name]; ok {
			return t
		}
		return byName[permission.NormalizeToolName(name)]
	}
}
