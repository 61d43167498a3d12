package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// answerKind is what the person chose in a dialog.
type answerKind int

const (
	ansYes answerKind = iota
	ansAlways
	// ansAlwaysServer remembers every tool of an MCP tool's server.
	ansAlwaysServer
	ansSession
	ansTimed
	ansCalls
	ansNo
	ansNoFeedback
	ansEdited
	ansPlanAuto
	ansPlanManual
	ansPlanRestore
	ansPlanKeep
	ansQuestions
)

// answer is the person's reply to one ask.
type answer struct {
	kind     answerKind
	dest     permission.Source
	feedback string
	// edited is the input the person changed before allowing (ansEdited).
	edited json.RawMessage
	// answers maps question text to the chosen labels or free text (ansQuestions).
	answers map[string]string
}

// askMsg brings an ask into the program; reply receives the answer exactly once.
type askMsg struct {
	id int64
	// useID is the tool_use the ask is about, when the agent says (its card may be drawn
	// after the dialog opens: the two come by different goroutines).
	useID string
	req   permission.AskRequest
	raw   json.RawMessage
	trace []permission.Step
	// ignored are the ignored rules that could have decided the call, for the "?" view.
	ignored []string
	reply   chan<- answer
}

// withdrawMsg removes the dialog of an ask whose turn was aborted.
type withdrawMsg struct{ id int64 }

// noticeMsg shows a line in the transcript (an error saving a rule, a scoped approval).
type noticeMsg struct {
	text  string
	isErr bool
	// retry marks the model API's retry of a request: the retries share one line.
	retry bool
}

// Scope of the timed and counted approvals the dialog offers.
const (
	scopedDuration = 30 * time.Minute
	scopedCalls    = 5
)

// asker is the run's permission.Asker: it turns an ask into a dialog and the person's answer
// into a decision. The work that needs the engine (re-checking an edited input, applying
// updates) happens here, on the agent's goroutine, not in the UI's Update.
type asker struct {
	send   func(tea.Msg)
	perms  *agent.Permissions
	lookup func(name string) tool.Tool
	now    func() time.Time
	next   atomic.Int64
	// stop ends the running turn: a plain No means stop, as in Claude Code. It is called on
	// the agent's goroutine before Ask returns, so the model is never asked again in between.
	stop func(cause error)
	// ignored returns the settings' rules the session does not apply; nil is none.
	ignored func() []IgnoredRule
	// saved, if set, is told of the rules an answer saved to a settings file (the chat offers
	// the trust those of an untrusted project wait for).
	saved func(ups []permission.Update, dest permission.Source)
}

var _ permission.Asker = (*asker)(nil)

func (a *asker) Ask(ctx context.Context, req permission.AskRequest) (permission.Decision, error) {
	raw, err := json.Marshal(req.Input)
	if err != nil {
		return permission.Decision{}, fmt.Errorf("showing the input of %s: %w", req.Tool, err)
	}
	reply := make(chan answer, 1)
	id := a.next.Add(1)
	a.send(a.message(ctx, id, req, raw, reply))
	select {
	case ans := <-reply:
		d, err := a.settle(ctx, req, raw, ans)
		if ans.kind == ansNo && a.stop != nil {
			// The denial is decided before the turn is stopped: the call's result is the
			// rejection, and the calls after it are cancelled.
			a.stop(errSaidNo)
		}
		return d, err
	case <-ctx.Done():
		a.send(withdrawMsg{id: id})
		return permission.Decision{}, ctx.Err()
	}
}

// message is the dialog's ask: the call, its trace and the ignored rules that could have
// decided it.
func (a *asker) message(ctx context.Context, id int64, req permission.AskRequest, raw json.RawMessage, reply chan<- answer) askMsg {
	msg := askMsg{id: id, req: req, raw: raw, trace: a.trace(ctx, req), reply: reply}
	if use, ok := agent.ToolUseOf(ctx); ok {
		msg.useID = use.ID
	}
	if a.ignored != nil {
		msg.ignored = ignoredForCall(a.ignored(), req.Tool)
	}
	return msg
}

// trace decides the call again with a trace attached, for the dialog's "?" view. It uses a
// fresh engine so that auto mode's denial counters are not touched twice.
func (a *asker) trace(ctx context.Context, req permission.AskRequest) []permission.Step {
	t := a.lookup(req.Tool)
	if t == nil {
		return nil
	}
	var tr permission.Trace
	var e permission.Engine
	e.Decide(permission.WithTrace(ctx, &tr), a.perms.Context(), t, req.Input)
	return tr.Steps()
}

var approved = &permission.Reason{Type: permission.ReasonOther, Detail: "approved in the permission dialog", Answerer: permission.FrontEndChat}

// settle turns an answer into the decision the engine returns.
func (a *asker) settle(ctx context.Context, req permission.AskRequest, raw json.RawMessage, ans answer) (permission.Decision, error) {
	allow := permission.Decision{Behavior: permission.Allow, Reason: approved}
	switch ans.kind {
	case ansYes, ansPlanRestore:
		return allow, nil
	case ansAlways, ansAlwaysServer, ansSession:
		dest := ans.dest
		if ans.kind == ansSession {
			dest = permission.SourceSession
		}
		ups := retarget(req.Decision.Suggestions, dest)
		if ans.kind == ansAlwaysServer {
			rv, _ := permission.MCPServerRule(req.Tool)
			ups = []permission.Update{{Type: permission.AddRules, Destination: dest, Behavior: permission.Allow, Rules: []permission.RuleValue{rv}}}
		}
		if err := a.perms.Update(ctx, ups...); err != nil {
			// The call was approved either way; only remembering it failed.
			a.send(noticeMsg{text: fmt.Sprintf("could not save the permission: %v", err), isErr: true})
		} else if a.saved != nil && dest != permission.SourceSession {
			a.saved(ups, dest)
		}
		return allow, nil
	case ansTimed, ansCalls:
		g := agent.ScopedGrant{Rules: ruleStrings(req.Decision.Suggestions)}
		if ans.kind == ansTimed {
			g.Expires = a.now().Add(scopedDuration)
		} else {
			g.Calls = scopedCalls
		}
		if err := a.perms.AddScoped(ctx, g); err != nil {
			a.send(noticeMsg{text: fmt.Sprintf("could not add the approval: %v", err), isErr: true})
		}
		return allow, nil
	case ansNo:
		return permission.Decision{Behavior: permission.Deny, Message: agent.RejectMessage, Reason: rejected}, nil
	case ansNoFeedback, ansPlanKeep:
		return permission.Decision{Behavior: permission.Deny, Message: feedbackMessage(ans.feedback), Reason: rejected}, nil
	case ansEdited:
		// The engine decides the edited call again, and asks again when it still asks.
		return permission.Decision{Behavior: permission.Allow, Reason: approved, UpdatedInput: ans.edited, UserModified: true}, nil
	case ansPlanAuto, ansPlanManual:
		// Leaving plan restores the mode it was entered from; entering plan again from the
		// chosen mode in the same update makes ExitPlanMode land there.
		to := permission.ModeAcceptEdits
		if ans.kind == ansPlanManual {
			to = permission.ModeDefault
		}
		err := a.perms.Update(ctx,
			permission.Update{Type: permission.SetMode, Destination: permission.SourceSession, Mode: to},
			permission.Update{Type: permission.SetMode, Destination: permission.SourceSession, Mode: permission.ModePlan})
		if err != nil {
			return permission.Decision{}, fmt.Errorf("approving the plan: %w", err)
		}
		return allow, nil
	case ansQuestions:
		in, err := withAnswers(raw, ans.answers)
		if err != nil {
			return permission.Decision{}, err
		}
		allow.UpdatedInput = in
		return allow, nil
	}
	return permission.Decision{}, fmt.Errorf("unknown answer %d", ans.kind)
}

// withAnswers is AskUserQuestion's input with the person's answers, the updated input the
// tool runs with.
func withAnswers(raw json.RawMessage, answers map[string]string) (json.RawMessage, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("answering the questions: %w", err)
	}
	m["answers"] = answers
	out, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("answering the questions: %w", err)
	}
	return out, nil
}

// errSaidNo is the cause of a turn stopped by a plain No in a dialog.
var errSaidNo = errors.New("the person said no in the permission dialog")

var rejected = &permission.Reason{Type: permission.ReasonOther, Detail: "rejected in the permission dialog", Answerer: permission.FrontEndChat}

func feedbackMessage(feedback string) string {
	feedback = strings.TrimSpace(feedback)
	if feedback == "" {
		return agent.RejectMessage
	}
	return "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\n" + feedback
}

// retarget aims the suggested updates at dest: rules and directories go to the chosen file;
// a mode change always stays in the session.
func retarget(ups []permission.Update, dest permission.Source) []permission.Update {
	out := make([]permission.Update, 0, len(ups))
	for _, u := range ups {
		if u.Type != permission.SetMode {
			u.Destination = dest
		}
		out = append(out, u)
	}
	return out
}

// ruleStrings lists the allow rules among the suggestions.
func ruleStrings(ups []permission.Update) []string {
	var out []string
	for _, u := range ups {
		if u.Type == permission.AddRules && u.Behavior == permission.Allow {
			for _, r := range u.Rules {
				out = append(out, r.String())
			}
		}
	}
	return out
}
