package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// FailClosed is implemented by the handlers whose failures block: every handler type but
// command (http, mcp_tool, prompt, agent). A command hook keeps Claude Code's contract, where
// an exit code other than 0 and 2 is a non-blocking error; a handler that talks to a service
// or a model has no such code, and one that cannot answer must not let a call through
// (Codex's hooks fail open; Reins' do not).
type FailClosed interface {
	FailsClosed() bool
}

// failsClosed reports whether h's failures block.
func failsClosed(h *Hook) bool {
	fc, ok := h.Handler.(FailClosed)
	return ok && fc.FailsClosed()
}

// closingEvents are the events on which a fail-closed handler's failure blocks: where a
// command hook's exit 2 blocks a call or a prompt, or tells the model the check did not pass.
// Elsewhere (Stop, SubagentStop, SessionStart, …) a failure is reported and the agent goes on:
// a Stop hook's block keeps the agent running, and a judge that keeps failing would keep it
// running for ever.
var closingEvents = map[Event]bool{
	PreToolUse: true, PermissionRequest: true, UserPromptSubmit: true, PostToolUse: true, PostToolUseFailure: true,
}

// FailsClosedOn reports whether a fail-closed handler's failure blocks on ev.
func FailsClosedOn(ev Event) bool { return closingEvents[ev] }

// closeFailure applies the outcome rules of a fail-closed handler to its run, once for every
// handler type: an error, a timeout or an answer that is not hook JSON becomes a block on the
// events that decide, with a reason that names the hook and what went wrong. A cancelled run
// stays cancelled: the run is ending, nothing will be called.
func closeFailure(run *Run) {
	if !closingEvents[run.Event] {
		return
	}
	var why string
	switch run.Outcome {
	case OutcomeError, OutcomeTimeout:
		why = "failed"
		if run.Err != nil {
			why += ": " + run.Err.Error()
		} else if run.ExitCode != 0 {
			why += fmt.Sprintf(": exit %d", run.ExitCode)
		}
	case OutcomeSuccess:
		if err := strictOutput(run.Stdout); err != nil {
			run.Err = err
			why = "answered something that is not hook JSON: " + err.Error()
		}
	}
	if why == "" {
		return
	}
	run.Outcome = OutcomeBlocking
	run.Output = nil
	run.Stderr = forModel(fmt.Sprintf("%s hook %s %s (a %s hook that cannot answer blocks)", run.Event, run.Hook.Name(), why, handlerType(run.Hook)))
}

// strictOutput checks a fail-closed handler's answer: nothing, or one JSON object that reads
// as hook output. Text, a truncated object or a second value after the first are garbage, not
// "no decision".
func strictOutput(stdout string) error {
	t := bytes.TrimSpace([]byte(stdout))
	if len(t) == 0 {
		return nil
	}
	if t[0] != '{' || !json.Valid(t) {
		return fmt.Errorf("the answer is not a JSON object")
	}
	if _, err := parseOutput(string(t), DefaultMaxOutput); err != nil {
		return err
	}
	return nil
}

// Typed is implemented by handlers that say which settings type they run ("http", …).
type Typed interface {
	Type() string
}

func handlerType(h *Hook) string {
	if t, ok := h.Handler.(Typed); ok {
		return t.Type()
	}
	return "command"
}
