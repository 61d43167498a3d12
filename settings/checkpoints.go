package settings

// CheckpointSettings is the checkpoints key (Reins' own): the limits of the shadow store
// that rewind restores from. A limit of 0 (or absent) is the store's default.
type CheckpointSettings struct {
	MaxFileBytes  *IntEntry `json:"maxFileBytes,omitempty"`
	MaxTotalBytes *IntEntry `json:"maxTotalBytes,omitempty"`
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
	cs := &CheckpointSettings{}
	fields := map[string]**IntEntry{"maxFileBytes": &cs.MaxFileBytes, "maxTotalBytes": &cs.MaxTotalBytes}
	if err := d.wholeNumbers("checkpoints", v, knownCheckpointKeys, fields); err != nil {
		return err
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
