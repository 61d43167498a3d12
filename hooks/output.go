package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Output is a hook's JSON answer (exit 0 with a JSON object on standard output).
type Output struct {
	// Continue false stops the agent after the current step; StopReason is shown then.
	Continue       *bool  `json:"continue,omitempty"`
	StopReason     string `json:"stopReason,omitempty"`
	SuppressOutput bool   `json:"suppressOutput,omitempty"`
	SystemMessage  string `json:"systemMessage,omitempty"`
	// Decision and Reason are the legacy top-level answer: "approve" or "block".
	Decision string    `json:"decision,omitempty"`
	Reason   string    `json:"reason,omitempty"`
	Specific *Specific `json:"hookSpecificOutput,omitempty"`
}

// Specific is hookSpecificOutput.
type Specific struct {
	HookEventName string `json:"hookEventName,omitempty"`
	// PreToolUse.
	PermissionDecision       string          `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string          `json:"permissionDecisionReason,omitempty"`
	UpdatedInput             json.RawMessage `json:"updatedInput,omitempty"`
	// PreToolUse, PostToolUse, UserPromptSubmit, SessionStart.
	AdditionalContext string `json:"additionalContext,omitempty"`
	// PermissionRequest.
	Decision *RequestDecision `json:"decision,omitempty"`
	// PermissionDenied.
	Retry bool `json:"retry,omitempty"`
}

// RequestDecision is a PermissionRequest hook's answer.
type RequestDecision struct {
	Behavior           string          `json:"behavior"`
	UpdatedInput       json.RawMessage `json:"updatedInput,omitempty"`
	UpdatedPermissions json.RawMessage `json:"updatedPermissions,omitempty"`
	Message            string          `json:"message,omitempty"`
	Interrupt          bool            `json:"interrupt,omitempty"`
}

// truncatedMarker ends a hook's output stream that was cut at the runner's cap.
const truncatedMarker = "\n[hook output truncated]"

// parseOutput reads standard output of a hook that exited 0; limit is the cap it was cut at,
// if it was. Output that does not start like a JSON object is plain text (nil, nil). Output
// that does — the hook meant to answer — must be a valid hook answer: one that does not parse
// (cut off, or cut at the cap) or has the wrong shape is an error, since taking it as no
// answer would let a broken "deny" pass.
func parseOutput(stdout string, limit int) (*Output, error) {
	t := bytes.TrimSpace([]byte(stdout))
	if len(t) == 0 || t[0] != '{' {
		return nil, nil
	}
	var o Output
	d := json.NewDecoder(bytes.NewReader(t))
	if err := d.Decode(&o); err != nil {
		switch {
		case strings.HasSuffix(stdout, truncatedMarker):
			return nil, fmt.Errorf("its standard output starts as a JSON object but was cut at the %d-byte output cap", limit)
		case !json.Valid(t):
			return nil, fmt.Errorf("its standard output starts as a JSON object but does not parse (%v): cut off, or not JSON", err)
		}
		return nil, fmt.Errorf("hook output is not valid hook JSON: %w", err)
	}
	if o.Specific != nil {
		if pd := o.Specific.PermissionDecision; pd != "" && pd != "allow" && pd != "deny" && pd != "ask" {
			return nil, fmt.Errorf("hookSpecificOutput.permissionDecision must be allow, deny or ask, not %q", pd)
		}
		if rd := o.Specific.Decision; rd != nil && rd.Behavior != "allow" && rd.Behavior != "deny" {
			return nil, fmt.Errorf("hookSpecificOutput.decision.behavior must be allow or deny, not %q", rd.Behavior)
		}
		if len(o.Specific.UpdatedInput) > 0 && !isObject(o.Specific.UpdatedInput) {
			return nil, fmt.Errorf("hookSpecificOutput.updatedInput must be an object")
		}
	}
	switch o.Decision {
	case "", "approve", "block":
	default:
		return nil, fmt.Errorf(`decision must be "approve" or "block", not %q`, o.Decision)
	}
	return &o, nil
}

func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

// stops reports whether the output asked the agent to stop.
func (o *Output) stops() bool { return o != nil && o.Continue != nil && !*o.Continue }

// MaxModelText caps each hook text that reaches the model (a blocking hook's standard error, a
// reason, added context), so that one hook cannot flood the conversation.
const MaxModelText = 10000

// forModel caps a text for the model, keeping its head.
func forModel(s string) string {
	if len(s) <= MaxModelText {
		return s
	}
	cut := MaxModelText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[%d more characters of hook output truncated]", len(s)-cut)
}

// blockReason is the text of a blocking hook: its standard error, else a generic line; for a
// hook whose answer is not valid hook JSON, what is wrong with it.
func blockReason(run Run) string {
	if run.BadOutput {
		return forModel(fmt.Sprintf("hook %s answered with output that is not valid hook JSON (%v), which is taken as a block", run.Hook.Name(), run.Err))
	}
	if s := strings.TrimSpace(run.Stderr); s != "" {
		return forModel(s)
	}
	return fmt.Sprintf("blocked by hook %s", run.Hook.Name())
}

// failure describes a non-blocking failure for the person; a hook's answer that is not valid
// hook JSON is named with where the hook is configured.
func failure(run Run) string {
	if run.BadOutput {
		return fmt.Sprintf("%s hook %s%s answered with output that is not valid hook JSON: %v", run.Event, run.Hook.Name(), originSuffix(run.Hook), run.Err)
	}
	msg := fmt.Sprintf("%s hook %s", run.Event, run.Hook.Name())
	switch {
	case run.Err != nil:
		msg += " failed: " + run.Err.Error()
	default:
		msg += fmt.Sprintf(" exited %d", run.ExitCode)
	}
	if s := strings.TrimSpace(run.Stderr); s != "" {
		msg += ": " + s
	}
	return msg
}

// CheckOutput reports whether stdout, a successful hook's answer, would be rejected as
// malformed hook JSON: for a handler that must treat a malformed answer as a failure of its
// own (an SDK callback registered with onFailure: block).
func CheckOutput(stdout string) error {
	_, err := parseOutput(stdout, DefaultMaxOutput)
	return err
}
