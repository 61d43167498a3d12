package permission

import (
	"fmt"
)

// Behavior is what a decision or a rule says. The zero value is Passthrough: a tool that
// decides nothing leaves the call to the pipeline, which asks.
type Behavior int

const (
	Passthrough Behavior = iota
	Allow
	Ask
	Deny
)

var behaviorNames = [...]string{"passthrough", "allow", "ask", "deny"}

func (b Behavior) String() string {
	if b < 0 || int(b) >= len(behaviorNames) {
		return fmt.Sprintf("Behavior(%d)", int(b))
	}
	return behaviorNames[b]
}

// MarshalText prints behaviours by name in JSON.
func (b Behavior) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalText parses a behaviour name.
func (b *Behavior) UnmarshalText(t []byte) error {
	for i, n := range behaviorNames {
		if n == string(t) {
			*b = Behavior(i)
			return nil
		}
	}
	return fmt.Errorf("unknown permission behavior %q", t)
}

// ReasonType says what produced a decision.
type ReasonType string

const (
	ReasonRule                 ReasonType = "rule"
	ReasonMode                 ReasonType = "mode"
	ReasonSubcommandResults    ReasonType = "subcommandResults"
	ReasonPermissionPromptTool ReasonType = "permissionPromptTool"
	ReasonHook                 ReasonType = "hook"
	ReasonAsyncAgent           ReasonType = "asyncAgent"
	ReasonClassifier           ReasonType = "classifier"
	ReasonWorkingDir           ReasonType = "workingDir"
	ReasonSafetyCheck          ReasonType = "safetyCheck"
	ReasonOther                ReasonType = "other"
)

// Reason explains a decision. Rule is set for ReasonRule, Mode for ReasonMode; Detail is a
// human-readable explanation for the other types.
type Reason struct {
	Type   ReasonType `json:"type"`
	Rule   *Rule      `json:"rule,omitempty"`
	Mode   Mode       `json:"mode,omitempty"`
	Detail string     `json:"detail,omitempty"`
	// ClassifierApprovable marks safety checks that auto mode's classifier may approve
	// (sensitive files) as opposed to those that must always reach a person (suspicious
	// Windows path patterns).
	ClassifierApprovable bool `json:"classifierApprovable,omitempty"`
	// Subresults holds the per-part decisions of a compound Bash command.
	Subresults []SubResult `json:"subresults,omitempty"`
	// Setting names the setting that turned an ask into this denial, with where it was set
	// (permissions.denyInsteadOfPrompting, a working-directory fence).
	Setting string `json:"setting,omitempty"`
	// Hook names the hooks that decided, each with where it is configured.
	Hook string `json:"hook,omitempty"`
	// Answerer is set by the askers a person answers through (FrontEndChat, FrontEndSDK, …):
	// where the person said yes or no.
	Answerer string `json:"answerer,omitempty"`
}

// SubResult is the decision for one part of a compound command.
type SubResult struct {
	Command  string   `json:"command"`
	Decision Decision `json:"decision"`
}

func (r *Reason) String() string {
	if r == nil {
		return ""
	}
	switch r.Type {
	case ReasonRule:
		if r.Rule != nil {
			return fmt.Sprintf("rule %s", r.Rule.Describe())
		}
	case ReasonMode:
		return fmt.Sprintf("mode %s", r.Mode)
	}
	switch {
	case r.Detail != "" && r.Type == ReasonOther:
		// "other" names no kind a reader could act on; the detail says it all.
		return r.Detail
	case r.Detail != "":
		return fmt.Sprintf("%s: %s", r.Type, r.Detail)
	}
	return string(r.Type)
}

// Decision is the answer for one tool call.
type Decision struct {
	Behavior Behavior `json:"behavior"`
	// Message is shown to the person on ask and returned to the model on deny.
	Message string  `json:"message,omitempty"`
	Reason  *Reason `json:"reason,omitempty"`
	// UpdatedInput, when set, replaces the tool's input for the call.
	UpdatedInput any `json:"updatedInput,omitempty"`
	// Suggestions are updates a person could accept to stop being asked.
	Suggestions []Update `json:"suggestions,omitempty"`
	// BlockedPath is the path that made a file check ask or deny.
	BlockedPath string `json:"blockedPath,omitempty"`
	// UserModified marks an allow whose UpdatedInput a person edited in the permission
	// dialog; the agent tells the model when the tool says the edit changed the call.
	UserModified bool `json:"userModified,omitempty"`
	// Damage is what a Bash command would delete or overwrite (bashrules' damage count).
	Damage *Damage `json:"damage,omitempty"`

	// By says who decided; [Engine.AuthorizeCall] sets it on the decision it returns.
	By *DecidedBy `json:"decidedBy,omitempty"`

	// denialLimit marks auto mode's ask after too many blocks: with no one to ask, the run
	// aborts (ErrTooManyDenials) instead of denying once more.
	denialLimit bool
	// answer is the reason of the asker's answer when an asker settled the call; headless
	// marks an ask denied because there was no asker. attribute reads both.
	answer   *Reason
	headless bool
}

// IsAskRule reports whether the decision is an ask produced by a content-level ask rule, which
// bypass mode must respect.
func (d Decision) isAskRule() bool {
	return d.Behavior == Ask && d.Reason != nil && d.Reason.Type == ReasonRule && d.Reason.Rule != nil && d.Reason.Rule.Behavior == Ask
}

func (d Decision) isSafetyAsk() bool {
	return d.Behavior == Ask && d.Reason != nil && d.Reason.Type == ReasonSafetyCheck
}

// RequestMessage is the default ask message for a tool.
func RequestMessage(tool string) string {
	return fmt.Sprintf("Reins requested permissions to use %s, but you haven't granted it yet.", tool)
}

// deniedMessage is the message of a tool-wide deny.
func deniedMessage(tool string) string {
	return fmt.Sprintf("Permission to use %s has been denied.", tool)
}

// DontAskMessage is the deny message of dontAsk mode.
func dontAskMessage(tool string) string {
	return fmt.Sprintf("Permission to use %s has been denied because Reins is running in don't ask mode. "+
		"IMPORTANT: You *may* attempt to accomplish this action using other tools that might naturally be used to accomplish this goal, "+
		"e.g. using head instead of cat. But you *should not* attempt to work around this denial in malicious ways, "+
		"e.g. do not use your ability to run tests to execute non-test actions. "+
		"You should only try to work around this restriction in reasonable ways that do not attempt to bypass the intended behavior. "+
		"If you believe this capability is essential to complete the user's request, STOP and explain to the user "+
		"what you were trying to do and why you need this permission. Let the user decide how to proceed.", tool)
}

// autoRejectMessage is the deny message where no person can be asked.
func autoRejectMessage(tool string) string {
	return fmt.Sprintf("Permission to use %s has been denied. "+
		"Reins could not ask for approval because no one can answer permission prompts in this context. "+
		"Try a different approach, or STOP and explain to the user what you were trying to do and why you need this permission.", tool)
}
