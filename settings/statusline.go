package settings

import (
	"fmt"
	"math"
	"strings"

	"github.com/reinsdev/reins/posjson"
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
func (d *settingsDoc) readStatusLine(root *posjson.Value, s *Settings) error {
	v := root.Get("statusLine")
	if v == nil || v.Kind == posjson.Null {
		return nil
	}
	if v.Kind != posjson.Object {
		return d.errAt(v.Off, `statusLine must be an object {"type": "command", "command": "…"}, not %s`, v.Describe())
	}
	if t := v.Get("type"); t == nil || t.Kind != posjson.String || t.Str != "command" {
		off := v.Off
		if t != nil {
			off = t.Off
		}
		return d.errAt(off, `statusLine.type must be "command"`)
	}
	c := v.Get("command")
	if c == nil || c.Kind != posjson.String || strings.TrimSpace(c.Str) == "" {
		off := v.Off
		if c != nil {
			off = c.Off
		}
		return d.errAt(off, "statusLine.command must be a non-empty string")
	}
	line, col := d.idx.Pos(v.Off)
	sl := &StatusLine{Command: c.Str, Line: line, Col: col}
	if p := v.Get("padding"); p != nil && p.Kind != posjson.Null {
		var n float64
		if p.Kind == posjson.Number {
			if _, err := fmt.Sscan(p.Raw, &n); err != nil {
				n = -1
			}
		}
		if p.Kind != posjson.Number || n < 0 || n > maxPadding || n != math.Trunc(n) {
			return d.errAt(p.Off, "statusLine.padding must be a whole number from 0 to %d, not %s", maxPadding, p.Describe())
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
