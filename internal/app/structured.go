package app

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// Structured output (--json-schema), as Claude Code does it: the model gets a StructuredOutput
// tool whose input schema is the caller's schema, and is told to end by calling it. The input
// it passes — validated against the schema by the tool's decoding, like any tool input — is the
// result's structured_output. A model that ends its turn without calling it is reminded, at
// most maxStructuredRetries times; then the run ends with SubtypeMaxStructuredRetries.

const (
	structuredToolName   = "StructuredOutput"
	maxStructuredRetries = 3
	// SubtypeMaxStructuredRetries is Claude Code's result subtype of a run whose model never
	// gave its answer in the required shape.
	SubtypeMaxStructuredRetries = "error_max_structured_output_retries"
)

const structuredPrompt = "When you have finished, you MUST call the " + structuredToolName +
	" tool exactly once with your final answer; its input schema is the required format. Do not answer with plain text instead."

const structuredReminder = "You must call the " + structuredToolName + " tool with your final answer in the required format."

// StructuredOutput holds what the model passed to StructuredOutput in the current run.
type StructuredOutput struct {
	mu    sync.Mutex
	value json.RawMessage
	tool  tool.Tool // StructuredOutput, which sets value
}

func (s *StructuredOutput) reset() {
	s.mu.Lock()
	s.value = nil
	s.mu.Unlock()
}

// Value returns the structured output of the run, if the model gave one.
func (s *StructuredOutput) Value() (any, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.value == nil {
		return nil, false
	}
	return s.value, true
}

// newStructuredTool builds the StructuredOutput tool for schema, a JSON Schema object.
func newStructuredTool(schema string, holder *StructuredOutput) (t tool.Tool, err error) {
	var obj map[string]any
	if err := json.Unmarshal([]byte(schema), &obj); err != nil {
		return nil, &UsageError{Err: fmt.Errorf("--json-schema: not a JSON object: %v", err)}
	}
	defer func() {
		// tool.Build panics on a schema it cannot read: here that is the caller's input.
		if r := recover(); r != nil {
			t, err = nil, &UsageError{Err: fmt.Errorf("--json-schema: %v", r)}
		}
	}()
	return tool.Build(tool.Def[json.RawMessage]{
		Name:        structuredToolName,
		Description: "Return your final answer in the required format. Call this exactly once, at the end.",
		RawSchema:   json.RawMessage(schema),
		// It changes nothing outside the conversation.
		CheckPermissions: func(context.Context, *permission.Context, json.RawMessage) permission.Decision {
			return permission.Decision{Behavior: permission.Allow, Reason: &permission.Reason{Type: permission.ReasonOther, Detail: "structured output"}}
		},
		ReadOnly: func(json.RawMessage) bool { return true },
		Call: func(_ context.Context, in json.RawMessage, _ *tool.Env) (tool.Result, error) {
			holder.mu.Lock()
			holder.value = append(json.RawMessage(nil), in...)
			holder.mu.Unlock()
			res := tool.TextResult("Structured output provided successfully")
			// As Claude Code: the valid answer ends the turn; the model is not asked again.
			res.EndTurn = true
			return res, nil
		},
	}), nil
}

// RunTurn runs one user message after history, holding the model to the schema when there is
// one. A front end runs every turn through it. A prompt that is /compact (with optional
// instructions after it) compacts the conversation instead, as Claude Code does with
// `-p "/compact"` on a continued session.
func (a *App) RunTurn(ctx context.Context, history []llm.Message, prompt llm.Message) (*agent.Result, error) {
	if instr, ok := CompactCommand(prompt.Text()); ok && len(prompt.Content) == 1 {
		return a.Agent.Compact(ctx, history, instr)
	}
	if a.Structured == nil {
		return a.Agent.Run(ctx, history, prompt)
	}
	a.Structured.reset()
	res, err := a.Agent.Run(ctx, history, prompt)
	for try := 0; err == nil && res.Subtype == agent.SubtypeSuccess; try++ {
		if v, ok := a.Structured.Value(); ok {
			// The result's text is the answer, as the turn ended with it.
			res.Text = string(v.(json.RawMessage))
			break
		}
		if try == maxStructuredRetries {
			res.Subtype, res.IsError = SubtypeMaxStructuredRetries, true
			res.Err = fmt.Errorf("the model did not call %s after %d reminders", structuredToolName, maxStructuredRetries)
			break
		}
		var next *agent.Result
		next, err = a.Agent.Run(ctx, res.Messages, llm.UserText(structuredReminder))
		res = mergeResults(res, next)
	}
	return res, err
}

// mergeResults adds a continuation run to the run it continues.
func mergeResults(first, next *agent.Result) *agent.Result {
	out := *next
	out.NumTurns += first.NumTurns
	out.Duration += first.Duration
	out.APIDuration += first.APIDuration
	out.Usage = first.Usage.Add(next.Usage)
	out.CostUSD += first.CostUSD
	out.CostKnown = first.CostKnown && next.CostKnown
	out.PermissionDenials = append(append([]agent.Denial(nil), first.PermissionDenials...), next.PermissionDenials...)
	return &out
}
