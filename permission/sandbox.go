package permission

import (
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

// ProtectedNames returns the folder and file names whose writes need a person's approval
// everywhere (see the write check). The sandbox keeps them read-only too.
func ProtectedNames() (dirs, files []string) {
	return slices.Sorted(maps.Keys(protectedDirs)), slices.Sorted(maps.Keys(protectedFiles))
}
