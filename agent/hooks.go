package agent

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"

	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// HookStopError ends a run that a hook stopped (continue: false) or whose prompt a
// UserPromptSubmit hook blocked. The run's result is an error result that says why.
type HookStopError struct {
	Event  hooks.Event
	Reason string
}

func (e *HookStopError) Error() string {
	if e.Event == hooks.UserPromptSubmit {
		return "the prompt was blocked by a UserPromptSubmit hook: " + e.Reason
	}
	if e.Reason == "" {
		return "a " + string(e.Event) + " hook stopped the run"
	}
	return "a " + string(e.Event) + " hook stopped the run: " + e.Reason
}

// hookStop remembers the first continue: false of a turn.
type hookStop struct {
	once sync.Once
	err  *HookStopError
}

func (s *hookStop) set(ev hooks.Event, reason string) {
	s.once.Do(func() { s.err = &HookStopError{Event: ev, Reason: reason} })
}

// pathKeys are the input fields that name files; hooks see them absolute, as Claude Code's
// backfill of observable input makes them.
var pathKeys = []string{"file_path", "notebook_path", "path"}

// observableInput is a call's input as hooks see it: relative file paths made absolute against
// the current directory.
func observableInput(raw json.RawMessage, cwd string) json.RawMessage {
	var m map[string]any
	if cwd == "" || json.Unmarshal(raw, &m) != nil {
		return raw
	}
	changed := false
	for _, k := range pathKeys {
		if p, ok := m[k].(string); ok && p != "" && !filepath.IsAbs(p) && !strings.HasPrefix(p, "~") {
			m[k] = filepath.Join(cwd, p)
			changed = true
		}
	}
	if !changed {
		return raw
	}
	b, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return b
}

func hookCommon(pc *permission.Context) hooks.Common {
	return hooks.Common{Cwd: pc.Cwd(), PermissionMode: pc.Mode()}
}

// notify publishes what hooks had to tell the person.
func notify(bus *Bus, msgs []string) {
	for _, m := range msgs {
		bus.Publish(Event{Type: EventHookMessage, Text: m})
	}
}

// toolResponse is the tool_response PostToolUse hooks see: the tool's structured output, or
// its text.
func toolResponse(res tool.Result) any {
	if res.Output != nil {
		return res.Output
	}
	return toolResultText(res)
}

func toolResultText(res tool.Result) string {
	var texts []string
	for _, c := range res.Content {
		if c.Type != "image" {
			texts = append(texts, c.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// withHookText adds text blocks from hooks to a tool result.
func withHookText(b llm.Block, label string, texts []string) llm.Block {
	for _, t := range texts {
		if strings.TrimSpace(t) == "" {
			continue
		}
		b.Content = append(b.Content, llm.Text(label+": "+t))
	}
	return b
}

// preToolUse runs the PreToolUse hooks of a call. It returns the verdict for the engine and the
// input to decide on (the hooks' updatedInput, re-decoded and re-validated). A non-empty
// failure is the call's error result.
func (x *executor) preToolUse(ctx context.Context, c *call, pc *permission.Context, env *tool.Env) (hv permission.HookVerdict, input any, hc hooks.ToolCall, extra []string, failure string) {
	t := c.tool
	hc = hooks.ToolCall{Name: t.Name(), ID: c.use.ID, Input: observableInput(c.use.Input, pc.Cwd())}
	if !x.hooks.Has(hooks.PreToolUse) {
		return hv, c.input, hc, nil, ""
	}
	pre := x.hooks.PreToolUse(ctx, hookCommon(pc), hc)
	notify(x.bus, pre.Messages)
	if pre.Stop {
		x.stop.set(hooks.PreToolUse, pre.StopReason)
	}
	input = c.input
	if pre.UpdatedInput != nil {
		in, err := t.Decode(pre.UpdatedInput)
		if err != nil {
			return hv, nil, hc, nil, tool.UseError("the input a PreToolUse hook substituted is invalid: " + err.Error())
		}
		if msg, crashed := validate(ctx, t, in, env); msg != "" {
			if !crashed {
				msg = tool.UseError(msg)
			}
			return hv, nil, hc, nil, msg
		}
		input = in
		hc.Input = observableInput(pre.UpdatedInput, pc.Cwd())
	}
	return pre.Verdict, input, hc, pre.Context, ""
}

// permissionDenied runs the PermissionDenied hooks and returns the message for the model.
func (x *executor) permissionDenied(ctx context.Context, pc *permission.Context, hc hooks.ToolCall, msg string) string {
	if !x.hooks.Has(hooks.PermissionDenied) {
		return msg
	}
	rep, retry := x.hooks.PermissionDenied(ctx, hookCommon(pc), hc, msg)
	notify(x.bus, rep.Messages)
	if rep.Stop {
		x.stop.set(hooks.PermissionDenied, rep.StopReason)
	}
	if retry {
		msg += "\nA PermissionDenied hook says you may retry this call."
	}
	return msg
}

// postToolUse runs the PostToolUse hooks of a call that succeeded (res set, not an error) or
// the PostToolUseFailure hooks of one that failed, and adds what they say for the model to its
// result.
func (x *executor) postToolUse(ctx context.Context, pc *permission.Context, hc hooks.ToolCall, res *tool.Result, errText string, interrupted bool, result llm.Block) llm.Block {
	ev := hooks.PostToolUseFailure
	if res != nil && !res.IsError {
		ev = hooks.PostToolUse
	}
	if !x.hooks.Has(ev) {
		return result
	}
	var post hooks.PostToolUseResult
	if ev == hooks.PostToolUse {
		post = x.hooks.PostToolUse(ctx, hookCommon(pc), hc, toolResponse(*res))
	} else {
		if res != nil {
			errText = toolResultText(*res)
		}
		post = x.hooks.PostToolUseFailure(ctx, hookCommon(pc), hc, errText, interrupted)
	}
	notify(x.bus, post.Messages)
	if post.Stop {
		x.stop.set(ev, post.StopReason)
	}
	result = withHookText(result, string(ev)+" hook feedback", post.Feedback)
	return withHookText(result, string(ev)+" hook context", post.Context)
}
