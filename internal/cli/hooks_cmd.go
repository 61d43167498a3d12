package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
)

func newCmdHooks(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "Show the hooks configured in the settings files",
	}
	cmd.AddCommand(newCmdHooksList(f))
	return cmd
}

type hooksListOptions struct {
	perm   permFlags
	asJSON bool
}

func newCmdHooksList(f *Factory) *cobra.Command {
	opts := &hooksListOptions{}
	cmd := &cobra.Command{
		Use:     "list",
		Example: "  reins hooks list\n  reins hooks list --json",
		Short:   "List every hook with the file:line:col that configures it, and whether it runs",
		Long: `Lists the hooks of every settings source (Reins' and Claude Code's user, project, local,
--settings and managed files), in load order, each with the file:line:col of its entry. A hook
that does not run says why: the project is not trusted (run "reins trust"), disableAllHooks
is set, or a managed policy sets allowManagedHooksOnly. An invalid hook configuration is an
error naming its position.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			env, err := opts.perm.load(f)
			if err != nil {
				return err
			}
			for _, w := range env.warnings {
				f.warn("%s", w)
			}
			entries := env.loaded.Hooks(env.trusted)
			if opts.asJSON {
				if entries == nil {
					entries = []settings.HookEntry{}
				}
				return writeJSON(f.Out, entries)
			}
			if len(entries) == 0 {
				fmt.Fprintln(f.Out, "No hooks are configured.")
				return nil
			}
			for _, h := range entries {
				event := h.Event
				if h.Matcher != "" {
					event += "(" + h.Matcher + ")"
				}
				line := fmt.Sprintf("%s: %s: %s", h.Origin(), event, h.Command)
				if h.TimeoutSeconds > 0 {
					line += fmt.Sprintf(" [timeout %gs]", h.TimeoutSeconds)
				}
				if h.Skipped != "" {
					line += " — skipped: " + h.Skipped
				}
				fmt.Fprintln(f.Out, line)
			}
			return nil
		},
	}
	opts.perm.register(cmd)
	cmd.Flags().BoolVar(&opts.asJSON, "json", false, "print the hooks as JSON")
	return cmd
}

// hookOptions are the agent's hook flags.
type hookOptions struct {
	includeEvents bool
}

func (o *hookOptions) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&o.includeEvents, "include-hook-events", false, "with --output-format stream-json: a line when each hook starts and ends")
}

// newHookRunner builds the runner for the hooks that run in this session; nil when none does,
// so a session without hooks pays nothing for them, unless always (an SDK session, whose
// caller may register hook callbacks in initialize).
func newHookRunner(env *permEnv, sessionID, transcriptPath string, bus *agent.Bus, always bool) (*hooks.Runner, error) {
	var hs []hooks.Hook
	for _, e := range env.loaded.Hooks(env.trusted) {
		if e.Skipped != "" {
			continue
		}
		hs = append(hs, hooks.Hook{Event: hooks.Event(e.Event), Matcher: e.Matcher, Command: e.Command,
			Timeout: time.Duration(e.TimeoutSeconds * float64(time.Second)), Origin: e.Origin()})
	}
	if len(hs) == 0 && !always {
		return nil, nil
	}
	r, err := hooks.NewRunner(hs)
	if err != nil {
		return nil, err
	}
	r.ProjectDir = env.pc.OriginalCwd()
	r.SessionID, r.TranscriptPath = sessionID, transcriptPath
	r.Observe = func(run hooks.Run) { bus.Publish(agent.Event{Type: agent.EventHook, Hook: &run}) }
	r.Groups = hookGroups()
	return r, nil
}

// headlessHookAsker lets PermissionRequest hooks answer the asks of a headless run before they
// are denied; updates they grant are applied like a person's.
func headlessHookAsker(r *hooks.Runner, perms *agent.Permissions) permission.Asker {
	return &hooks.Asker{
		Runner: r,
		Common: func() hooks.Common {
			pc := perms.Context()
			return hooks.Common{Cwd: pc.Cwd(), PermissionMode: pc.Mode()}
		},
		Apply: func(ctx context.Context, us []permission.Update) error { return perms.Update(ctx, us...) },
	}
}

// printHookMessages prints what hooks tell the person on standard error.
func printHookMessages(f *Factory, bus *agent.Bus) (unsubscribe func()) {
	return bus.Subscribe(func(ev agent.Event) {
		if ev.Type == agent.EventHookMessage {
			fmt.Fprintf(f.ErrOut, "reins: hook: %s\n", ev.Text)
		}
	})
}

// sessionEnd runs the SessionEnd hooks after the run, also when it was interrupted.
func sessionEnd(ctx context.Context, r *hooks.Runner, bus *agent.Bus, perms *agent.Permissions) {
	if !r.Has(hooks.SessionEnd) {
		return
	}
	pc := perms.Context()
	rep := r.SessionEnd(context.WithoutCancel(ctx), hooks.Common{Cwd: pc.Cwd(), PermissionMode: pc.Mode()}, "other")
	for _, m := range rep.Messages {
		bus.Publish(agent.Event{Type: agent.EventHookMessage, Text: m})
	}
}

// sessionStart runs the SessionStart hooks and returns the system prompt with their context.
func sessionStart(ctx context.Context, r *hooks.Runner, bus *agent.Bus, pc *permission.Context, resumed bool, model string, system []llm.SystemBlock) []llm.SystemBlock {
	if !r.Has(hooks.SessionStart) {
		return system
	}
	source := "startup"
	if resumed {
		source = "resume"
	}
	rep, texts := r.SessionStart(ctx, hooks.Common{Cwd: pc.Cwd(), PermissionMode: pc.Mode()}, source, model)
	for _, m := range rep.Messages {
		bus.Publish(agent.Event{Type: agent.EventHookMessage, Text: m})
	}
	if len(texts) == 0 {
		return system
	}
	return append(system, llm.SystemBlock{Text: "SessionStart hook additional context:\n" + strings.Join(texts, "\n")})
}
