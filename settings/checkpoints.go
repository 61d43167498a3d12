package settings

import (
	"fmt"
	"math"
	"strconv"
)

// CheckpointSettings is the checkpoints key (Reins' own): the limits of the shadow store
// that rewind restores from. A limit of 0 (or absent) is the store's default.
type CheckpointSettings struct {
	MaxFileBytes  *IntEntry `json:"maxFileBytes,omitempty"`
	MaxTotalBytes *IntEntry `json:"maxTotalBytes,omitempty"`
}

// IntEntry is a whole-number setting with its position.
type IntEntry struct {
	Value int64 `json:"value"`
	Line  int   `json:"line"`
	Col   int   `json:"col"`
}

var knownCheckpointKeys = []string{"maxFileBytes", "maxTotalBytes"}

// readCheckpoints reads fileCheckpointingEnabled (Claude Code's) and checkpoints.
func (d *settingsDoc) readCheckpoints(root *value, s *Settings) error {
	if v := root.get("fileCheckpointingEnabled"); v != nil && v.kind != kindNull {
		if v.kind != kindBool {
			return d.errAt(v.off, "fileCheckpointingEnabled must be true or false, not %s", v.kind)
		}
		line, col := d.idx.pos(v.off)
		s.FileCheckpointing = &BoolEntry{Value: v.b, Line: line, Col: col}
	}
	v := root.get("checkpoints")
	if v == nil || v.kind == kindNull {
		return nil
	}
	if v.kind != kindObject {
		return d.errAt(v.off, "checkpoints must be an object, not %s", v.kind)
	}
	cs := &CheckpointSettings{}
	for _, m := range v.members {
		var dst **IntEntry
		switch m.key {
		case "maxFileBytes":
			dst = &cs.MaxFileBytes
		case "maxTotalBytes":
			dst = &cs.MaxTotalBytes
		default:
			msg := fmt.Sprintf("checkpoints: unknown key %q", m.key)
			if k := DidYouMean(m.key, knownCheckpointKeys); k != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", k)
			}
			return d.errAt(m.off, "%s", msg)
		}
		n, err := strconv.ParseFloat(m.val.raw, 64)
		if m.val.kind != kindNumber || err != nil || n < 0 || n != math.Trunc(n) || n > math.MaxInt64/2 {
			return d.errAt(m.val.off, "checkpoints.%s must be a whole number of bytes, 0 or more, not %s", m.key, m.val.describe())
		}
		line, col := d.idx.pos(m.val.off)
		*dst = &IntEntry{Value: int64(n), Line: line, Col: col}
	}
	s.Checkpoints = cs
	return nil
}

// CheckpointLimits are the winning checkpoint limits (by the precedence of defaultMode), 0
// where no file sets one.
func (l *Loaded) CheckpointLimits() (maxFile, maxTotal int64) {
	for _, f := range l.scalarOrder() {
		c := f.Settings.Checkpoints
		if c == nil {
			continue
		}
		if c.MaxFileBytes != nil {
			maxFile = c.MaxFileBytes.Value
		}
		if c.MaxTotalBytes != nil {
			maxTotal = c.MaxTotalBytes.Value
		}
	}
	return maxFile, maxTotal
}

// FileCheckpointingEnabled is false when a policy file sets fileCheckpointingEnabled: false
// (an administrator's word keeps checkpoints off) or, without one, when the winning value of
// the other files is false. True where no file sets it.
func (l *Loaded) FileCheckpointingEnabled() bool {
	on := true
	for _, f := range l.scalarOrder() {
		if e := f.Settings.FileCheckpointing; e != nil {
			on = e.Value
		}
	}
	return on
}
