package shared

import (
	"context"
	"errors"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/llm"
)

// CommandTurn runs a turn whose prompt may be a custom slash command ("/review main"): the
// command is expanded (its @file and !`cmd` decided by the engine with its rules) and the
// expanded prompt is sent instead of the text, with the command's rules for this turn only.
// A prompt that names no custom command is sent as it is. A command stopped before its prompt
// was sent returns the reason; nothing reached the model.
func CommandTurn(a *app.App, run func(context.Context, []llm.Message, llm.Message) (*agent.Result, error)) func(context.Context, []llm.Message, llm.Message) (*agent.Result, error) {
	return func(ctx context.Context, history []llm.Message, prompt llm.Message) (*agent.Result, error) {
		name, args, ok := app.ParseSlash(prompt.Text())
		c, found := a.Ext.Commands.Lookup(name)
		if !ok || !found || len(prompt.Content) != 1 {
			return run(ctx, history, prompt)
		}
		p, err := a.PrepareCommand(ctx, c, args)
		if err != nil {
			// Every front end gets a result, as from a run that failed before its first request.
			return &agent.Result{Subtype: agent.SubtypeExecutionError, IsError: true, Err: err, Messages: history, CostKnown: true}, commandStopped(err)
		}
		defer p.End()
		return run(ctx, history, llm.UserText(p.Prompt))
	}
}

// commandStopped is a command's refusal as -p's outcome: a refused call is a denial (exit 4).
func commandStopped(err error) error {
	if errors.Is(err, agent.ErrCallRefused) {
		return cmdutil.FinishWith(cmdutil.OutcomeDenied, err)
	}
	return err
}
