package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Judge asks a model about an event, for prompt and agent hooks. It returns the model's
// final answer as text.
type Judge interface {
	Judge(ctx context.Context, req JudgeRequest) (string, error)
}

// JudgeRequest is one question to a judge.
type JudgeRequest struct {
	// Agent asks a sub-agent with tools (an agent hook) instead of one model reply (a prompt
	// hook).
	Agent bool
	// Prompt is the hook's prompt with the event's input in it.
	Prompt string
	// Model is the hook's model; "" is the session's small, fast model (prompt) or its model
	// (agent).
	Model string
	// Tools are the tools an agent hook's sub-agent may use; nil is the read-only ones.
	Tools []string
}

// JudgeInstructions is what every judge is told about its answer; a Judge puts it in the
// system prompt.
const JudgeInstructions = `You are a hook of a coding agent: you judge one event of the agent against the instructions you are given. ` +
	`Answer with one JSON object and nothing else: {"ok": true} when the event may go on, or {"ok": false, "reason": "why not"} when it must not.`

// Model is a prompt or agent hook: a model judges the event against Prompt, in which
// $ARGUMENTS stands for the event's JSON input (appended when the prompt does not name it). Its
// answer must be {"ok": true} or {"ok": false, "reason": …}: ok false blocks as a command hook's
// exit 2 does, with the reason; ok true lets the event go on and decides nothing (it is not an
// approval). Anything else, a model error and a timeout block on the events that decide (see
// [FailClosed]).
type Model struct {
	Agent  bool
	Prompt string
	Model  string
	Tools  []string
	Judge  Judge
}

// FailsClosed implements FailClosed.
func (h *Model) FailsClosed() bool { return true }

// Type implements Typed.
func (h *Model) Type() string {
	if h.Agent {
		return "agent"
	}
	return "prompt"
}

// Describe names the hook in messages: its type and the start of its prompt.
func (h *Model) Describe() string {
	p := strings.Join(strings.Fields(h.Prompt), " ")
	if len(p) > 40 {
		p = p[:37] + "..."
	}
	return fmt.Sprintf("%s %q", h.Type(), p)
}

// Handle implements Handler.
func (h *Model) Handle(ctx context.Context, input []byte) (Raw, error) {
	if h.Judge == nil {
		return Raw{}, fmt.Errorf("%s hook: no model is available to judge it", h.Type())
	}
	prompt := h.Prompt
	if strings.Contains(prompt, "$ARGUMENTS") {
		prompt = strings.ReplaceAll(prompt, "$ARGUMENTS", string(input))
	} else {
		prompt += "\n\nThe event (hook input JSON):\n" + string(input)
	}
	answer, err := h.Judge.Judge(ctx, JudgeRequest{Agent: h.Agent, Prompt: prompt, Model: h.Model, Tools: h.Tools})
	if err != nil {
		return Raw{}, fmt.Errorf("%s hook: %w", h.Type(), err)
	}
	ok, reason, err := ReadJudgement(answer)
	if err != nil {
		return Raw{}, fmt.Errorf("%s hook: %w", h.Type(), err)
	}
	if !ok {
		return Raw{ExitCode: 2, Stderr: firstNonEmpty(reason, fmt.Sprintf("blocked by %s hook", h.Type()))}, nil
	}
	return Raw{}, nil
}

// ReadJudgement reads a judge's answer: one JSON object with a boolean ok, in a Markdown code
// fence or not. Text around it, a missing or non-boolean ok, and a second value are errors.
func ReadJudgement(answer string) (ok bool, reason string, err error) {
	t := strings.TrimSpace(answer)
	if rest, found := strings.CutPrefix(t, "```"); found {
		rest = strings.TrimPrefix(rest, "json")
		if body, closed := strings.CutSuffix(strings.TrimSpace(rest), "```"); closed {
			t = strings.TrimSpace(body)
		}
	}
	var v struct {
		OK     *bool   `json:"ok"`
		Reason *string `json:"reason"`
	}
	d := json.NewDecoder(strings.NewReader(t))
	if !strings.HasPrefix(t, "{") || d.Decode(&v) != nil || strings.TrimSpace(t[d.InputOffset():]) != "" {
		return false, "", fmt.Errorf("the model's answer is not one JSON object: %q", clip(answer, 200))
	}
	if v.OK == nil {
		return false, "", fmt.Errorf(`the model's answer has no boolean "ok": %q`, clip(answer, 200))
	}
	if v.Reason != nil {
		reason = *v.Reason
	}
	return *v.OK, forModel(reason), nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
