package permission

import (
	"fmt"
	"strings"
)

// Mode is a permission mode. The five external modes can be chosen by a person; auto is
// accepted where it is available; bubble is internal to forked sub-agents.
type Mode string

const (
	ModeDefault     Mode = "default"
	ModeAcceptEdits Mode = "acceptEdits"
	ModePlan        Mode = "plan"
	ModeDontAsk     Mode = "dontAsk"
	ModeBypass      Mode = "bypassPermissions"
	ModeAuto        Mode = "auto"
	ModeBubble      Mode = "bubble"
)

// ExternalModes are the modes a person may name in settings or flags, in Claude Code's order.
var ExternalModes = []Mode{ModeAcceptEdits, ModeBypass, ModeDefault, ModeDontAsk, ModePlan}

// ParseMode parses a mode name a person wrote. It accepts the external modes and auto; bubble
// is never user-addressable. Unlike Claude Code, which silently falls back to default, an
// unknown name is an error that lists the valid ones.
func ParseMode(s string) (Mode, error) {
	m := Mode(s)
	switch m {
	case ModeDefault, ModeAcceptEdits, ModePlan, ModeDontAsk, ModeBypass, ModeAuto:
		return m, nil
	}
	valid := make([]string, 0, len(ExternalModes)+1)
	for _, v := range ExternalModes {
		valid = append(valid, string(v))
	}
	valid = append(valid, string(ModeAuto))
	return "", fmt.Errorf("unknown permission mode %q (valid modes: %s)", s, strings.Join(valid, ", "))
}

// Title is the mode's display name.
func (m Mode) Title() string {
	switch m {
	case ModeDefault:
		return "Default"
	case ModePlan:
		return "Plan Mode"
	case ModeAcceptEdits:
		return "Accept edits"
	case ModeBypass:
		return "Bypass Permissions"
	case ModeDontAsk:
		return "Don't Ask"
	case ModeAuto:
		return "Auto mode"
	case ModeBubble:
		return "Bubble"
	}
	return string(m)
}

// NextMode is the Shift+Tab cycle: default → acceptEdits → plan → bypassPermissions (when
// available) → auto (when available) → default. dontAsk is never part of the cycle; cycling from
// it, or from any other mode, returns to default.
func NextMode(current Mode, bypassAvailable, autoAvailable bool) Mode {
	switch current {
	case ModeDefault:
		return ModeAcceptEdits
	case ModeAcceptEdits:
		return ModePlan
	case ModePlan:
		if bypassAvailable {
			return ModeBypass
		}
		if autoAvailable {
			return ModeAuto
		}
		return ModeDefault
	case ModeBypass:
		if autoAvailable {
			return ModeAuto
		}
		return ModeDefault
	}
	return ModeDefault
}
