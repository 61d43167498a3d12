package permission

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Fences are the settings that turn what would ask into a denial: Claude Code's
// permissions.blockReadsOutsideWorkingDirectories, blockWritesOutsideWorkingDirectories and
// denyInsteadOfPrompting. Each is "" when off, else where it was turned on (a settings file's
// file:line:col, or a flag), which the denial names. Every source may turn one on and none can
// turn it off again: they only take away.
type Fences struct {
	// BlockReadsOutside denies a read outside the working directories that no rule allows,
	// where it would ask.
	BlockReadsOutside string
	// BlockWritesOutside denies a write outside the working directories that no rule allows,
	// where it would ask; the protected-path ask of such a write is a denial too.
	BlockWritesOutside string
	// DenyInsteadOfPrompting denies every call that would reach a person (an ask of any
	// kind: rules, safety checks, hooks, the mode), in every session kind, sub-agents
	// included; the turn goes on with the denial.
	DenyInsteadOfPrompting string
}

// Setting names for the denials' reasons.
const (
	SettingBlockReads    = "permissions.blockReadsOutsideWorkingDirectories"
	SettingBlockWrites   = "permissions.blockWritesOutsideWorkingDirectories"
	SettingDenyPrompting = "permissions.denyInsteadOfPrompting"
)

// Fences returns the context's fences.
func (c *Context) Fences() Fences { return c.fences }

// settingRef names a setting and where it was set, for a reason.
func settingRef(name, from string) string {
	if from == "" || from == "true" {
		return name
	}
	return name + " (" + from + ")"
}

// readFence is the denial of a read outside the working directories under
// blockReadsOutsideWorkingDirectories; ok is false when the fence is off.
func (c *Context) readFence(ctx context.Context, abs string) (Decision, bool) {
	if c.fences.BlockReadsOutside == "" {
		return Decision{}, false
	}
	ref := settingRef(SettingBlockReads, c.fences.BlockReadsOutside)
	Notef(ctx, "read check", "deny", "%s is outside the working directories: %s", abs, ref)
	return Decision{Behavior: Deny, BlockedPath: abs,
		Message: fmt.Sprintf("Permission to read %s has been denied: it is outside the working directories, and %s denies such reads.", abs, ref),
		Reason:  &Reason{Type: ReasonWorkingDir, Detail: "outside the working directories", Setting: ref}}, true
}

// writeFence is the denial of a write outside the working directories under
// blockWritesOutsideWorkingDirectories, for a write no Edit allow rule covers.
func (c *Context) writeFence(ctx context.Context, abs string, forms []pathForm, missing bool) (Decision, bool) {
	if c.fences.BlockWritesOutside == "" || (!missing && c.allInWorkingDirs(forms)) {
		return Decision{}, false
	}
	if !missing && c.mode != ModePlan && c.pathRules(Allow, "Edit").matchAll(c, forms) != nil {
		return Decision{}, false
	}
	ref := settingRef(SettingBlockWrites, c.fences.BlockWritesOutside)
	Notef(ctx, "write check", "deny", "%s is outside the working directories: %s", abs, ref)
	return Decision{Behavior: Deny, BlockedPath: abs,
		Message: fmt.Sprintf("Permission to edit %s has been denied: it is outside the working directories, and %s denies such writes.", abs, ref),
		Reason:  &Reason{Type: ReasonWorkingDir, Detail: "outside the working directories", Setting: ref}}, true
}

// promptDenied turns an ask into a denial under denyInsteadOfPrompting; ok is false when the
// setting is off. The ask's reason stays, with the setting that turned it into a denial.
func (c *Context) promptDenied(ctx context.Context, tool string, d Decision) (Decision, bool) {
	if c.fences.DenyInsteadOfPrompting == "" {
		return Decision{}, false
	}
	ref := settingRef(SettingDenyPrompting, c.fences.DenyInsteadOfPrompting)
	Note(ctx, Step{Name: "post denyInsteadOfPrompting", Outcome: "deny", Detail: ref})
	r := Reason{Type: ReasonOther, Detail: "the call would ask"}
	if d.Reason != nil {
		r = *d.Reason
	}
	r.Setting = ref
	msg := fmt.Sprintf("Permission to use %s has been denied: %s denies what would ask for approval.", tool, ref)
	if d.Message != "" && d.Message != RequestMessage(tool) {
		msg += " It would have asked: " + d.Message
	}
	return Decision{Behavior: Deny, Message: msg, Reason: &r, BlockedPath: d.BlockedPath}, true
}

// ProtectedPaths are the exact paths (files, or folders with everything under them) protected
// beside the protected names: a linked worktree's main repository's hooks and configuration.
func (c *Context) ProtectedPaths() []string { return slices.Clone(c.protectedPaths) }

// extraProtected says why f is one of the context's protected paths, or "".
func (c *Context) extraProtected(f string) string {
	for _, p := range c.protectedPaths {
		if strings.EqualFold(f, p) || strings.HasPrefix(strings.ToLower(f), strings.ToLower(p)+string(filepath.Separator)) {
			return "inside " + p + ", a protected path of this session"
		}
	}
	return ""
}
