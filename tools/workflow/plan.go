package workflow

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools/internal/schemax"
)

// Tool names.
const (
	EnterPlanModeName = "EnterPlanMode"
	ExitPlanModeName  = "ExitPlanMode"
)

// ExitPlanAskMessage is the ask ExitPlanMode's permission check returns.
const ExitPlanAskMessage = "Exit plan mode?"

// Messages of the plan tools.
const (
	subAgentMessage   = "EnterPlanMode tool cannot be used in agent contexts"
	notInPlanMessage  = "You are not in plan mode. This tool is only for exiting plan mode after writing a plan. If your plan was already approved, continue with implementation."
	approvedPlanReply = "User has approved your plan. You can now start coding. Start with updating your todo list if applicable"
)

// subAgentKey marks an Env that belongs to a sub-agent.
type subAgentKey struct{}

// MarkSubAgent marks env as a sub-agent's: tools that only the main agent may use (entering
// plan mode) refuse to run in it. The Agent tool calls it on the Env it gives a sub-agent.
func MarkSubAgent(env *tool.Env) {
	if env.Values == nil {
		env.Values = map[any]any{}
	}
	env.Values[subAgentKey{}] = true
}

// IsSubAgent reports whether env belongs to a sub-agent.
func IsSubAgent(env *tool.Env) bool {
	if env == nil {
		return false
	}
	v, _ := env.Values[subAgentKey{}].(bool)
	return v
}

// EnterPlanModeInput is EnterPlanMode's input: nothing.
type EnterPlanModeInput struct{}

// ModeChange is the structured result of both plan tools.
type ModeChange struct {
	From permission.Mode `json:"from"`
	To   permission.Mode `json:"to"`
	Plan string          `json:"plan,omitempty"`
}

const enterPlanPrompt = `Switch to plan mode before starting a non-trivial implementation, so you can explore the code and agree on an approach with the user before any file changes.

Use it when:
- The task adds a feature or changes behaviour in more than one or two places.
- There are several reasonable approaches and the choice matters.
- Requirements are unclear and you need to explore before you can propose something.
- The change is architectural or touches many files.

Skip it for small, obvious changes (a typo, a one-line fix) and for pure research questions.

In plan mode you read and search, ask the user with AskUserQuestion when something is unclear, and finish by presenting your plan with ExitPlanMode for approval. This tool needs no approval of its own.`

const enteredPlanReply = `Entered plan mode. Focus on exploring the codebase and designing an implementation approach.

In plan mode:
1. Explore the codebase thoroughly to understand the existing patterns.
2. Look for similar features and the architecture they follow.
3. Weigh the possible approaches and their trade-offs.
4. Use AskUserQuestion if you need to clarify the approach.
5. Design a concrete implementation strategy.
6. When ready, use ExitPlanMode to present your plan for approval.

Do NOT write or edit any files yet. This is a read-only exploration and planning phase.`

// NewEnterPlanMode returns the EnterPlanMode tool.
func NewEnterPlanMode() tool.Tool {
	return tool.Build(tool.Def[EnterPlanModeInput]{
		Name:        EnterPlanModeName,
		SearchHint:  "switch to plan mode to design an approach before coding",
		Description: "Switch the session to plan mode",
		Prompt:      enterPlanPrompt,
		SchemaJSON: schemax.Static(EnterPlanModeName, func() *jsonschema.Schema {
			return schemax.For[EnterPlanModeInput](nil)
		}),
		Validate: func(_ context.Context, _ EnterPlanModeInput, env *tool.Env) *tool.Failure {
			if IsSubAgent(env) {
				return tool.Fail(subAgentMessage)
			}
			return nil
		},
		CheckPermissions: func(context.Context, *permission.Context, EnterPlanModeInput) permission.Decision {
			return permission.Decision{Behavior: permission.Allow}
		},
		ReadOnly:        func(EnterPlanModeInput) bool { return true },
		ConcurrencySafe: func(EnterPlanModeInput) bool { return true },
		Defer:           true,
		Call: func(ctx context.Context, _ EnterPlanModeInput, env *tool.Env) (tool.Result, error) {
			if IsSubAgent(env) {
				return tool.ErrorResult(subAgentMessage), nil
			}
			from, err := setMode(ctx, env, permission.ModePlan)
			if err != nil {
				return tool.Result{}, err
			}
			return tool.Result{Content: []tool.Content{tool.Text(enteredPlanReply)}, Output: ModeChange{From: from, To: permission.ModePlan}}, nil
		},
	})
}

// setMode applies a session setMode update and returns the mode before it.
func setMode(ctx context.Context, env *tool.Env, to permission.Mode) (permission.Mode, error) {
	if env == nil || env.Permissions == nil || env.UpdatePermissions == nil {
		return "", errors.New("the session cannot change its permission mode here")
	}
	from := env.Permissions().Mode()
	err := env.UpdatePermissions(ctx, permission.Update{Type: permission.SetMode, Destination: permission.SourceSession, Mode: to})
	if err != nil {
		return "", fmt.Errorf("switching to %s mode: %w", to, err)
	}
	return from, nil
}

// AllowedPrompt is a kind of action the plan will need, which the user may approve up front.
type AllowedPrompt struct {
	Tool   string `json:"tool" jsonschema:"The tool the action uses, e.g. Bash"`
	Prompt string `json:"prompt" jsonschema:"What the action does, e.g. \"run the test suite\""`
}

// ExitPlanModeInput is ExitPlanMode's input.
type ExitPlanModeInput struct {
	Plan           string          `json:"plan,omitempty" jsonschema:"The plan to present for approval, in Markdown"`
	AllowedPrompts []AllowedPrompt `json:"allowedPrompts,omitempty" jsonschema:"Actions the plan will need permission for, to show the user with the plan"`
}

const exitPlanPrompt = `Use this tool in plan mode when your plan is ready and you want the user's approval to start implementing it.

- Pass the plan in the plan parameter: concise, specific, and complete enough to act on.
- Only use it for tasks that need code changes. For research (reading files, understanding the code base) do not use it.
- Do not ask "is this plan okay?" with AskUserQuestion; this tool asks for approval. Resolve open questions with AskUserQuestion before calling it.
- If the user does not approve, stay in plan mode and revise the plan.`

// NewExitPlanMode returns the ExitPlanMode tool.
func NewExitPlanMode() tool.Tool {
	return tool.Build(tool.Def[ExitPlanModeInput]{
		Name:        ExitPlanModeName,
		SearchHint:  "present the plan for approval and leave plan mode",
		Description: "Present the plan for approval and leave plan mode",
		Prompt:      exitPlanPrompt,
		SchemaJSON: schemax.Static(ExitPlanModeName, func() *jsonschema.Schema {
			return schemax.For[ExitPlanModeInput](nil)
		}),
		Validate: func(_ context.Context, _ ExitPlanModeInput, env *tool.Env) *tool.Failure {
			if env == nil || env.Permissions == nil || env.Permissions().Mode() != permission.ModePlan {
				return tool.Fail(notInPlanMessage)
			}
			return nil
		},
		CheckPermissions: func(context.Context, *permission.Context, ExitPlanModeInput) permission.Decision {
			return permission.Decision{Behavior: permission.Ask, Message: ExitPlanAskMessage,
				Reason: &permission.Reason{Type: permission.ReasonOther, Detail: "leaving plan mode needs the user's approval"}}
		},
		RequiresUserInteraction: true,
		ConcurrencySafe:         func(ExitPlanModeInput) bool { return true },
		Defer:                   true,
		Call: func(ctx context.Context, in ExitPlanModeInput, env *tool.Env) (tool.Result, error) {
			if env == nil || env.Permissions == nil || env.Permissions().Mode() != permission.ModePlan {
				return tool.ErrorResult(notInPlanMessage), nil
			}
			next, err := env.Permissions().ExitPlan()
			if err != nil {
				return tool.Result{}, fmt.Errorf("leaving plan mode: %w", err)
			}
			if _, err := setMode(ctx, env, next.Mode()); err != nil {
				return tool.Result{}, err
			}
			text := approvedPlanReply
			if in.Plan != "" {
				text += "\n\n## Approved Plan:\n" + in.Plan
			}
			return tool.Result{Content: []tool.Content{tool.Text(text)}, Output: ModeChange{From: permission.ModePlan, To: next.Mode(), Plan: in.Plan}}, nil
		},
	})
}
