package agenttool

import "github.com/reinsdev/reins/permission"

// ChildMode is the permission mode a sub-agent runs in, given its parent's context and the
// mode its definition asks for (empty: none).
//
// Claude Code lets the definition's mode apply unless the parent is in bypassPermissions,
// acceptEdits or auto, whose mode then wins. Reins applies the definition's mode only where
// the parent would put the call to a person — the parent is in default or plan mode and can
// prompt — because only there can a wider mode not turn a parent's deny into an allow: a
// dontAsk or prompt-less parent keeps its mode (docs/deviations.md). Plan mode is never
// entered in a sub-agent (a plan-mode parent's sub-agents run in default mode, which decides
// as plan does), and bypassPermissions or auto only when the parent's session has them
// available.
func ChildMode(parent *permission.Context, want permission.Mode) permission.Mode {
	pm := parent.Mode()
	switch pm {
	case permission.ModeDefault, permission.ModePlan:
	default:
		return pm
	}
	base := permission.ModeDefault
	if parent.AvoidPrompts() {
		return base
	}
	switch want {
	case "", permission.ModePlan, permission.ModeBubble:
		return base
	case permission.ModeBypass:
		if !parent.BypassAvailable() {
			return base
		}
	case permission.ModeAuto:
		if !parent.AutoAvailable() {
			return base
		}
	}
	return want
}
