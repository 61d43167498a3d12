package toolcall

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// hookCall is a call as its hooks see it.
type hookCall struct {
	common hooks.Common
	call   hooks.ToolCall
	// preContext is what PreToolUse hooks added for the model, shown after the result.
	preContext []string
}

// newHookCall is nil without hooks: a call then costs no observable input.
func (p *Pipeline) newHookCall(c Call) *hookCall {
	if p.Hooks == nil {
		return nil
	}
	return &hookCall{common: Common(c.Permissions), call: hooks.ToolCall{Name: c.Tool.Name(), ID: c.ID, Input: ObservableInput(c.Raw, c.Permissions.Cwd())}}
}

// Common is what every hook input carries about the session's permissions.
func Common(pc *permission.Context) hooks.Common {
	return hooks.Common{Cwd: pc.Cwd(), PermissionMode: pc.Mode()}
}

func (p *Pipeline) has(ev hooks.Event) bool { return p.Hooks != nil && p.Hooks.Has(ev) }

// Publish passes what hooks had to tell the person to Notify.
func (p *Pipeline) publish(msgs []string) {
	if p.Notify == nil {
		return
	}
	for _, m := range msgs {
		p.Notify(m)
	}
}

func (p *Pipeline) stop(ev hooks.Event, stop bool, reason string) {
	if stop && p.Stop != nil {
		p.Stop(ev, reason)
	}
}

// preToolUse runs the PreToolUse hooks of a call. It returns the input to decide on (the
// hooks' updatedInput, decoded and validated like the model's), their verdict for the engine
// (nil when no hook is configured) and, when the substitute is invalid, the failure text.
func (p *Pipeline) preToolUse(ctx context.Context, h *hookCall, c Call) (input any, hv *permission.HookVerdict, failure string) {
	if !p.has(hooks.PreToolUse) {
		if p.Hooks == nil {
			return c.Input, nil, ""
		}
		return c.Input, &permission.HookVerdict{}, ""
	}
	pre := p.Hooks.PreToolUse(ctx, h.common, h.call)
	p.publish(pre.Messages)
	p.stop(hooks.PreToolUse, pre.Stop, pre.StopReason)
	input = c.Input
	if pre.UpdatedInput != nil {
		in, err := Decode(c.Tool, pre.UpdatedInput)
		if err != nil {
			if _, crashed := err.(*CrashError); crashed {
				return nil, nil, err.Error()
			}
			return nil, nil, tool.UseError("the input a PreToolUse hook substituted is invalid: " + err.Error())
		}
		if msg := validate(ctx, c.Tool, in, c.Env); msg != "" {
			return nil, nil, msg
		}
		input = in
		h.call.Input = ObservableInput(pre.UpdatedInput, c.Permissions.Cwd())
	}
	h.preContext = labelled("PreToolUse hook context", pre.Context)
	return input, &pre.Verdict, ""
}

// permissionDenied runs the PermissionDenied hooks and returns the message for the model.
func (p *Pipeline) permissionDenied(ctx context.Context, h *hookCall, msg string) string {
	if !p.has(hooks.PermissionDenied) {
		return msg
	}
	rep, retry := p.Hooks.PermissionDenied(ctx, h.common, h.call, msg)
	p.publish(rep.Messages)
	p.stop(hooks.PermissionDenied, rep.Stop, rep.StopReason)
	if retry {
		msg += "\nA PermissionDenied hook says you may retry this call."
	}
	return msg
}

// postToolUse runs the PostToolUse hooks of a call that returned (res set, not an error) or
// the PostToolUseFailure hooks of one that did not, and returns what they say for the model.
func (p *Pipeline) postToolUse(ctx context.Context, h *hookCall, res *tool.Result, failure string) []string {
	ev := hooks.PostToolUseFailure
	if res != nil && !res.IsError {
		ev = hooks.PostToolUse
	}
	if !p.has(ev) {
		return nil
	}
	var post hooks.PostToolUseResult
	if ev == hooks.PostToolUse {
		post = p.Hooks.PostToolUse(ctx, h.common, h.call, toolResponse(*res))
	} else {
		if res != nil {
			failure = ResultText(*res)
		}
		post = p.Hooks.PostToolUseFailure(ctx, h.common, h.call, failure, failure == InterruptedMessage)
	}
	p.publish(post.Messages)
	p.stop(ev, post.Stop, post.StopReason)
	return append(labelled(string(ev)+" hook feedback", post.Feedback), labelled(string(ev)+" hook context", post.Context)...)
}

// labelled prefixes each non-blank text with its label.
func labelled(label string, texts []string) []string {
	var out []string
	for _, t := range texts {
		if strings.TrimSpace(t) != "" {
			out = append(out, label+": "+t)
		}
	}
	return out
}

// pathKeys are the input fields that name files; hooks see them absolute, as Claude Code's
// backfill of observable input makes them.
var pathKeys = []string{"file_path", "notebook_path", "path"}

// ObservableInput is a call's input as hooks see it: relative file paths made absolute
// against the current directory.
func ObservableInput(raw json.RawMessage, cwd string) json.RawMessage {
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

// toolResponse is the tool_response PostToolUse hooks see: the tool's structured output, or
// its text.
func toolResponse(res tool.Result) any {
	if res.Output != nil {
		return res.Output
	}
	return ResultText(res)
}

// ResultText joins the text blocks of a result, images left out.
func ResultText(res tool.Result) string {
	var texts []string
	for _, c := range res.Content {
		if c.Type != "image" {
			texts = append(texts, c.Text)
		}
	}
	return strings.Join(texts, "\n")
}
