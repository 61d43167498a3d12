package sdkproto

import (
	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/session"
)

// Stream-json lines for hooks (--include-hook-events), in Claude Code's shapes.
type hookStartedLine struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	HookID    string `json:"hook_id"`
	HookName  string `json:"hook_name"`
	HookEvent string `json:"hook_event"`
	SessionID string `json:"session_id"`
	UUID      string `json:"uuid"`
}

type hookResponseLine struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	HookID    string `json:"hook_id"`
	HookName  string `json:"hook_name"`
	HookEvent string `json:"hook_event"`
	Output    string `json:"output"`
	Stdout    string `json:"stdout"`
	Stderr    string `json:"stderr"`
	ExitCode  *int   `json:"exit_code,omitempty"`
	Outcome   string `json:"outcome"`
	SessionID string `json:"session_id"`
	UUID      string `json:"uuid"`
}

// informationalLine is Claude Code's system/informational message: a text for the person, such
// as what a hook told them (its systemMessage, a failed hook). Every stream gets it.
type informationalLine struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	Content   string `json:"content"`
	Level     string `json:"level"`
	SessionID string `json:"session_id"`
	UUID      string `json:"uuid"`
}

// hookMessage writes what a hook told the person.
func (e *Emitter) hookMessage(text string) {
	e.write(informationalLine{Type: "system", Subtype: "informational", Content: text, Level: "warning", SessionID: e.SessionID, UUID: session.NewID()})
}

// hook writes the line of a hook run (--include-hook-events).
func (e *Emitter) hook(ev agent.Event) {
	run := ev.Hook
	if !run.Done {
		e.write(hookStartedLine{Type: "system", Subtype: "hook_started", HookID: run.ID, HookName: run.Hook.Name(),
			HookEvent: string(run.Event), SessionID: e.SessionID, UUID: session.NewID()})
		return
	}
	l := hookResponseLine{Type: "system", Subtype: "hook_response", HookID: run.ID, HookName: run.Hook.Name(),
		HookEvent: string(run.Event), Output: run.Stdout + run.Stderr, Stdout: run.Stdout, Stderr: run.Stderr,
		Outcome: run.Outcome, SessionID: e.SessionID, UUID: session.NewID()}
	if run.Outcome != hooks.OutcomeTimeout && run.Outcome != hooks.OutcomeCancelled {
		code := run.ExitCode
		l.ExitCode = &code
	}
	e.write(l)
}
