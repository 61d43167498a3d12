// Package slashcommand is Claude Code's SlashCommand tool: the model runs a custom slash
// command by its name and arguments and reads the expanded prompt as the result.
//
// The call is decided by the engine as any tool's: a deny or ask rule on SlashCommand, tool-wide
// or for one command ("SlashCommand(/review)", "SlashCommand(/review:*)" for any arguments),
// applies; without an allow rule the call is asked about. A command marked
// disable-model-invocation is refused, as is a name that is no command. The command's
// @file and !`cmd` are calls of their own, decided by the engine too. Unlike a person's
// /command, the model's does not add the command's allowed-tools to its turn: what the model
// chooses to run never widens what the model may do (docs/deviations.md).
package slashcommand

import (
	"context"
	"fmt"
	"strings"

	"github.com/reinsdev/reins/commands"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// Name is the tool's name.
const Name = "SlashCommand"

// Input is the tool's input.
type Input struct {
	Command string `json:"command" jsonschema:"The slash command to execute with its arguments, e.g., \"/review-pr 123\""`
}

// Expander expands a command's body for the model; the app's runs its @file and !`cmd` through
// the session's call pipeline.
type Expander func(ctx context.Context, c *commands.Command, args string) (string, error)

// charBudget bounds the list of commands in the tool's prompt, as Claude Code's default does.
const charBudget = 15000

// New returns the tool over the session's commands, or nil when none may be run by the model.
func New(set *commands.Set, expand Expander) tool.Tool {
	var usable []*commands.Command
	for _, c := range set.All() {
		if !c.DisableModelInvocation {
			usable = append(usable, c)
		}
	}
	if len(usable) == 0 {
		return nil
	}
	return tool.Build(tool.Def[Input]{
		Name:        Name,
		SearchHint:  "run a custom slash command",
		Description: "Execute a slash command within the main conversation",
		Prompt:      prompt(usable),
		Validate: func(_ context.Context, in Input, _ *tool.Env) *tool.Failure {
			if _, _, refusal := lookup(set, in.Command); refusal != "" {
				return &tool.Failure{Message: refusal}
			}
			return nil
		},
		CheckPermissions: check,
		Call: func(ctx context.Context, in Input, _ *tool.Env) (tool.Result, error) {
			c, args, refusal := lookup(set, in.Command)
			if refusal != "" {
				return tool.ErrorResult(refusal), nil
			}
			text, err := expand(ctx, c, args)
			if err != nil {
				if ctx.Err() != nil {
					return tool.Result{}, err
				}
				return tool.ErrorResult(err.Error()), nil
			}
			return tool.TextResult("<command-name>/" + c.Name + "</command-name>\n" + text), nil
		},
	})
}

// lookup finds the command a call names, or says why the model may not run it (Claude Code's
// messages): no such command, or one marked disable-model-invocation.
func lookup(set *commands.Set, line string) (c *commands.Command, args, refusal string) {
	name, args, _ := strings.Cut(strings.TrimSpace(line), " ")
	name, ok := strings.CutPrefix(name, "/")
	if !ok || name == "" {
		return nil, "", fmt.Sprintf("invalid command %q: a slash command starts with /", line)
	}
	c, found := set.Lookup(name)
	if !found {
		return nil, "", "Unknown slash command: " + name
	}
	if c.DisableModelInvocation {
		return nil, "", fmt.Sprintf("Slash command %s cannot be used with %s tool due to disable-model-invocation", name, Name)
	}
	return c, strings.TrimSpace(args), ""
}

// check applies SlashCommand's content rules: "/name" matches the command without arguments,
// "/name:*" with any; deny before ask before allow. Without a matching allow rule it asks.
func check(_ context.Context, pc *permission.Context, in Input) permission.Decision {
	line := strings.Join(strings.Fields(in.Command), " ")
	for _, b := range []permission.Behavior{permission.Deny, permission.Ask, permission.Allow} {
		for _, r := range pc.ContentRules(b, Name) {
			if matches(r.Value.Content, line) {
				d := permission.Decision{Behavior: b, Reason: &permission.Reason{Type: permission.ReasonRule, Rule: r}}
				if b != permission.Allow {
					d.Message = fmt.Sprintf("Permission to use %s with command %s has been %s.", Name, line, map[permission.Behavior]string{permission.Deny: "denied", permission.Ask: "asked for"}[b])
				}
				return d
			}
		}
	}
	return permission.Decision{Behavior: permission.Passthrough, Message: fmt.Sprintf("Run the slash command %s?", line)}
}

func matches(rule, line string) bool {
	if prefix, ok := strings.CutSuffix(rule, ":*"); ok {
		return line == prefix || strings.HasPrefix(line, prefix+" ")
	}
	return line == rule
}

func prompt(cs []*commands.Command) string {
	var b strings.Builder
	b.WriteString("Execute a custom slash command within the main conversation. The result is the command's prompt: follow it.\n\n")
	b.WriteString("Use this tool only for the commands listed below, when the user asks for one or it clearly fits the task. Do not use it for built-in commands such as /help or /compact.\n\nAvailable commands:\n")
	for _, c := range cs {
		line := "- /" + c.Name
		if c.ArgumentHint != "" {
			line += " " + c.ArgumentHint
		}
		line += ": " + c.Description + "\n"
		if b.Len()+len(line) > charBudget {
			b.WriteString("- (more commands not listed: the list is limited to 15000 characters)\n")
			break
		}
		b.WriteString(line)
	}
	return b.String()
}
