package app

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/reinsdev/reins/commands"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
)

// LoadCommands reads the custom slash commands of a session with settings s: the user's and
// the project's folders, then extra roots (a plugin's commands/), later ones winning a name
// clash. Files that cannot be used and shadowed commands are returned as warnings.
func LoadCommands(ctx context.Context, s *Settings, extra ...commands.Root) (*commands.Set, []string) {
	roots := commands.Dirs(s.Options.ClaudeConfigDir, s.Options.ConfigDir, s.Context.OriginalCwd())
	set := commands.Load(ctx, append(roots, extra...))
	warnings := set.Warnings()
	for _, c := range set.All() {
		if _, why := CommandRules(s, c); why != "" {
			warnings = append(warnings, "/"+c.Name+": "+why)
		}
	}
	return set, warnings
}

// CommandRules are the rules command c brings to its turn under settings s, and why the rules
// it declares do not apply when they do not: an untrusted project's command, or managed policy
// that allows its own rules only.
func CommandRules(s *Settings, c *commands.Command) ([]permission.Rule, string) {
	if len(c.AllowedTools()) > 0 && s.Loaded != nil && s.Loaded.ManagedRulesOnly() {
		return nil, "allowed-tools of " + c.File + " ignored: managed policy sets allowManagedPermissionRulesOnly"
	}
	return c.Rules(s.Trusted), c.Ignored(s.Trusted)
}

// ParseSlash splits a prompt "/name args" into the name and the arguments; ok is false for a
// prompt that does not start with a slash and a name.
func ParseSlash(prompt string) (name, args string, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimLeft(prompt, " \t"), "/")
	if !found {
		return "", "", false
	}
	name, args, _ = strings.Cut(rest, " ")
	if i := strings.IndexAny(name, "\n\t"); i >= 0 {
		name, args = name[:i], rest[i+1:]
	}
	return name, strings.TrimSpace(args), name != ""
}

// Prepared is a command ready to drive a turn: the prompt to send, and End, which drops the
// command's rules and must be called when the turn ends.
type Prepared struct {
	Command *commands.Command
	Prompt  string
	End     func()
}

// PrepareCommand begins the command's turn: its rules (when the project's trust lets them
// apply) join the session's permissions, and its body is expanded with every @file a Read and
// every !`cmd` a Bash call through the agent's own pipeline (engine, asker, hooks), decided
// with those rules. A refused one stops the command: the rules are dropped and the error says
// why. trusted is the workspace trust.
func (a *App) PrepareCommand(ctx context.Context, c *commands.Command, args string) (*Prepared, error) {
	rules, _ := CommandRules(a.Settings, c)
	end, err := a.Permissions.BeginCommand(rules)
	if err != nil {
		return nil, fmt.Errorf("/%s: %w", c.Name, err)
	}
	prompt, err := c.Expand(ctx, args, a.commandHost(c.Name))
	if err != nil {
		end()
		return nil, err
	}
	if c.Model != "" && c.Model != "inherit" {
		// The command's model runs its turn only; the session's comes back with the end.
		prev := a.Agent.Model
		a.Agent.Model = a.Provider.ResolveModel(c.Model)
		endRules := end
		end = func() {
			a.Agent.Model = prev
			endRules()
		}
	}
	return &Prepared{Command: c, Prompt: prompt, End: end}, nil
}

// ExpandForModel expands a command the model runs with the SlashCommand tool: its @file and
// !`cmd` go through the agent's pipeline as the person's command's do, but the command's
// allowed-tools are not added: the model does not widen its own permissions by choosing a
// command.
func (a *App) ExpandForModel(ctx context.Context, c *commands.Command, args string) (string, error) {
	return c.Expand(ctx, args, a.commandHost(c.Name))
}

// commandHost is the host of a command's body: its !`cmd` lines run nothing under
// disableSkillShellExecution or --restricted.
func (a *App) commandHost(name string) commands.Host {
	h := &commandHost{a: a, name: name}
	if a.ShellDisabled() != "" {
		return commands.NoShell(h)
	}
	return h
}

// ShellDisabled says why commands' and skills' !`cmd` lines run nothing (the setting's
// file:line:col, or --restricted); "" when they run.
func (a *App) ShellDisabled() string {
	if a.opts.Settings.Flags.Restricted {
		return settings.RestrictedFlag
	}
	if a.Settings == nil || a.Settings.Loaded == nil {
		return ""
	}
	return a.Settings.Loaded.SkillShellDisabled()
}

// commandHost runs a command's includes and lines as calls of the session's agent.
type commandHost struct {
	a    *App
	name string
	n    atomic.Int64
}

func (h *commandHost) id() string {
	return fmt.Sprintf("command_%s_%d", strings.ReplaceAll(h.name, ":", "_"), h.n.Add(1))
}

func (h *commandHost) Read(ctx context.Context, path string) (string, error) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(h.a.Permissions.Context().Cwd(), path)
	}
	return h.a.Agent.Call(ctx, h.id(), "Read", map[string]any{"file_path": path})
}

func (h *commandHost) Bash(ctx context.Context, command string) (string, error) {
	return h.a.Agent.Call(ctx, h.id(), "Bash", map[string]any{"command": command, "description": "slash command /" + h.name})
}
