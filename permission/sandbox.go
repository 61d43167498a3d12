package permission

import (
	"context"
	"maps"
	"slices"
)

// SandboxPolicy is the part of the sandbox settings the pipeline needs: whether Bash commands
// run inside the OS sandbox and whether that lets them skip prompts. Where the sandbox confines
// a command (paths, hosts) is the sandbox package's business, not the engine's.
type SandboxPolicy struct {
	// Enabled is sandbox.enabled: Bash commands run sandboxed unless excluded.
	Enabled bool `json:"enabled"`
	// AutoAllowBash is sandbox.autoAllowBashIfSandboxed: a command that will run sandboxed
	// skips the tool-wide ask rule (step 1b) and is allowed by the Bash check unless a deny or
	// ask rule or a safety check objects.
	AutoAllowBash bool `json:"autoAllowBashIfSandboxed"`
	// AllowUnsandboxed is sandbox.allowUnsandboxedCommands: only then does the Bash input
	// dangerouslyDisableSandbox take effect.
	AllowUnsandboxed bool `json:"allowUnsandboxedCommands"`
	// ExcludedCommands are Bash rule contents ("docker:*") of commands that never run
	// sandboxed, and so never get the auto-allow.
	ExcludedCommands []string `json:"excludedCommands,omitempty"`
}

// SandboxedChecker is implemented by tools whose calls may run inside the OS sandbox (Bash).
// The engine asks it at step 1b.
type SandboxedChecker interface {
	// WouldSandbox reports whether this call would run inside the sandbox.
	WouldSandbox(pc *Context, input any) bool
}

// WithSandbox returns the context with p as its sandbox policy: a session whose sandbox was on
// only by default and found no backend to run on decides and runs with the sandbox off.
func (c *Context) WithSandbox(p SandboxPolicy) *Context {
	n := c.clone()
	n.sandbox = p
	n.sandbox.ExcludedCommands = slices.Clone(p.ExcludedCommands)
	return n
}

// Sandbox returns the session's sandbox policy.
func (c *Context) Sandbox() SandboxPolicy {
	p := c.sandbox
	p.ExcludedCommands = slices.Clone(p.ExcludedCommands)
	return p
}

// sandboxAutoAllows reports whether step 1b lets this call past a tool-wide ask rule.
func (c *Context) sandboxAutoAllows(t Checker, input any) bool {
	if !c.sandbox.Enabled || !c.sandbox.AutoAllowBash || t.Name() != "Bash" {
		return false
	}
	s, ok := t.(SandboxedChecker)
	return ok && s.WouldSandbox(c, input)
}

// SandboxAutoAllowDetail is the trace and reason text of the sandbox auto-allow.
const SandboxAutoAllowDetail = "would run sandboxed: allowed by autoAllowBashIfSandboxed"

// SandboxEscapeDetail is the trace and reason text of a Bash call that would run outside an
// active sandbox.
const SandboxEscapeDetail = "would run outside the OS sandbox (dangerouslyDisableSandbox with allowUnsandboxedCommands, or an excludedCommands match)"

// escapeStep is step 1i: while the sandbox is active, a Bash call that would run outside it —
// dangerouslyDisableSandbox honoured by allowUnsandboxedCommands, a match of excludedCommands —
// leaves the containment every other command runs in, so a person must say yes. It is a safety
// check: no mode, allow rule, hook or classifier passes it, dontAsk and prompt-less contexts
// deny it. Deny rules and the earlier asks have had their say; a tool deny never reaches here.
func escapeStep(ctx context.Context, pc *Context, t Checker, input any, d Decision) (Decision, bool) {
	if !pc.sandbox.Enabled || t.Name() != "Bash" {
		return Decision{}, false
	}
	s, ok := t.(SandboxedChecker)
	if !ok || s.WouldSandbox(pc, input) {
		return Decision{}, false
	}
	Note(ctx, Step{Name: "1i sandbox escape", Outcome: "ask", Detail: SandboxEscapeDetail})
	// No suggestions: a rule cannot answer this ask, so "don't ask again" would promise
	// what it cannot keep.
	return Decision{Behavior: Ask,
		Message: "Reins requested permission to run this Bash command outside the OS sandbox, with none of its limits on files and network. " +
			"No mode, allow rule or classifier covers this; allow it only if the command must run unconfined.",
		Reason:       &Reason{Type: ReasonSafetyCheck, Detail: SandboxEscapeDetail},
		UpdatedInput: d.UpdatedInput, BlockedPath: d.BlockedPath, Damage: d.Damage}, true
}

// ProtectedNames returns the folder and file names whose writes need a person's approval
// everywhere (see the write check). The sandbox keeps them read-only too.
func ProtectedNames() (dirs, files []string) {
	return slices.Sorted(maps.Keys(protectedDirs)), slices.Sorted(maps.Keys(protectedFiles))
}
