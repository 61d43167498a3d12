package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"
)

// Genesis is the Prev of the first entry of a log.
const Genesis = "0000000000000000000000000000000000000000000000000000000000000000"

// MaxInputBytes bounds an input written whole into an entry ([Options.LogInputs]); a larger
// input is only hashed, with InputTruncated set.
const MaxInputBytes = 16 << 10

// maxLine bounds one line of the log, as read back: an entry is small by construction, so a
// longer line is damage.
const maxLine = 64 << 10

// Kinds of entries.
const (
	// KindDecision is a permission decision about a call.
	KindDecision = "decision"
	// KindRun is a call that ran (or failed to run) after an allow, with its outcome.
	KindRun = "run"
	// KindSession marks a session's start, with the policy it runs under.
	KindSession = "session"
)

// Entry is one line of the log. Seq and Prev are the chain; the rest is what happened.
type Entry struct {
	Seq  int64     `json:"seq"`
	Prev string    `json:"prev"`
	Time time.Time `json:"time"`
	Kind string    `json:"kind"`

	Session string `json:"session,omitempty"`
	// Parent is the Agent call's tool_use id for a sub-agent's call.
	Parent    string `json:"parent,omitempty"`
	Tool      string `json:"tool,omitempty"`
	ToolUseID string `json:"toolUseId,omitempty"`
	Cwd       string `json:"cwd,omitempty"`
	Mode      string `json:"mode,omitempty"`

	// Decision is allow, ask or deny; Reason says what produced it, Rule, RuleSource and
	// RuleOrigin name the deciding rule (its file:line) when a rule did.
	Decision   string `json:"decision,omitempty"`
	Reason     string `json:"reason,omitempty"`
	Rule       string `json:"rule,omitempty"`
	RuleSource string `json:"ruleSource,omitempty"`
	RuleOrigin string `json:"ruleOrigin,omitempty"`
	// DecidedBy says who decided: rule, person, hook, classifier, mode, setting, check or
	// noOne; FrontEnd is where a person answered, Hook the deciding hooks with their
	// file:line:col, Setting the setting that turned an ask into a denial, with its position.
	DecidedBy string `json:"decidedBy,omitempty"`
	FrontEnd  string `json:"frontEnd,omitempty"`
	Hook      string `json:"hook,omitempty"`
	Setting   string `json:"setting,omitempty"`
	// Stage is how far the call got (toolcall's stages: denied, invalid, done, failed…);
	// IsError is set for a result the tool marked as an error.
	Stage   string `json:"stage,omitempty"`
	IsError bool   `json:"isError,omitempty"`

	InputSHA256    string          `json:"inputSha256,omitempty"`
	Input          json.RawMessage `json:"input,omitempty"`
	InputTruncated bool            `json:"inputTruncated,omitempty"`

	// PolicyVersion is the version of the signed policy bundle in force, if any.
	PolicyVersion string `json:"policyVersion,omitempty"`
}

// hashLine is the link to a line: the SHA-256 of its bytes without the newline.
func hashLine(line []byte) string {
	s := sha256.Sum256(line)
	return hex.EncodeToString(s[:])
}

// HashInput is the InputSHA256 of a raw input.
func HashInput(raw []byte) string {
	return hashLine(raw)
}

// redact sets the input fields of e from raw: the hash always, the input itself only when
// asked and small enough.
func (e *Entry) redact(raw json.RawMessage, logInputs bool) {
	if len(raw) == 0 {
		return
	}
	e.InputSHA256 = HashInput(raw)
	if !logInputs {
		return
	}
	if len(raw) > MaxInputBytes || !json.Valid(raw) {
		e.InputTruncated = true
		return
	}
	e.Input = raw
}
