package settings

import (
	"fmt"
	"math"
	"strings"
)

// StatusLine is the statusLine key: a command whose first line of output the chat shows
// under the input ({"type": "command", "command": "…", "padding": 0}).
type StatusLine struct {
	Command string `json:"command"`
	// Padding is how many columns the line is indented by.
	Padding int `json:"padding,omitempty"`
	// File, Line and Col locate the key; Source is its file's.
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
}

// Origin is the key's file:line:col.
func (s StatusLine) Origin() string { return fmt.Sprintf("%s:%d:%d", s.File, s.Line, s.Col) }

// maxPadding bounds statusLine.padding: an indent wider than any terminal is a mistake.
const maxPadding = 200

// readStatusLine reads the statusLine key: an object with type "command" and a command; a
// wrong type or a missing command is an error at its position.
func (d *settingsDoc) readStatusLine(root *value, s *Settings) error {
	v := root.get("statusLine")
	if v == nil || v.kind == kindNull {
		return nil
	}
	if v.kind != kindObject {
		return d.errAt(v.off, `statusLine must be an object {"type": "command", "command": "…"}, not %s`, v.describe())
	}
	if t := v.get("type"); t == nil || t.kind != kindString || t.str != "command" {
		off := v.off
		if t != nil {
			off = t.off
		}
		return d.errAt(off, `statusLine.type must be "command"`)
	}
	c := v.get("command")
	if c == nil || c.kind != kindString || strings.TrimSpace(c.str) == "" {
		off := v.off
		if c != nil {
			off = c.off
		}
		return d.errAt(off, "statusLine.command must be a non-empty string")
	}
	line, col := d.idx.pos(v.off)
	sl := &StatusLine{Command: c.str, Line: line, Col: col}
	if p := v.get("padding"); p != nil && p.kind != kindNull {
		var n float64
		if p.kind == kindNumber {
			if _, err := fmt.Sscan(p.raw, &n); err != nil {
				n = -1
			}
		}
		if p.kind != kindNumber || n < 0 || n > maxPadding || n != math.Trunc(n) {
			return d.errAt(p.off, "statusLine.padding must be a whole number from 0 to %d, not %s", maxPadding, p.describe())
		}
		sl.Padding = int(n)
	}
	s.StatusLine = sl
	return nil
}

// StatusLine returns the statusLine of highest precedence that may run, or nil, and why a
// statusLine that is set does not run ("" when it does). The command is code: like a hook, a
// project's (shared or local) runs only in a trusted project, and disableAllHooks and
// allowManagedHooksOnly turn a non-managed one off.
func (l *Loaded) StatusLine(trusted bool) (*StatusLine, string) {
	g := l.hookGates()
	order := l.scalarOrder()
	for i := len(order) - 1; i >= 0; i-- {
		f := order[i]
		if f.DuplicateOf != "" || f.Settings.StatusLine == nil {
			continue
		}
		sl := *f.Settings.StatusLine
		sl.File = f.Path
		if why := g.skip(f.Source, trusted); why != "" {
			return nil, fmt.Sprintf("statusLine (%s) does not run: %s", sl.Origin(), why)
		}
		return &sl, ""
	}
	return nil, ""
}
