package settings

import (
	"fmt"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/posjson"
)

// CheckpointSettings is the checkpoints key (Reins' own): the limits of the shadow store
// that rewind restores from. A limit of 0 (or absent) is the store's default.
type CheckpointSettings struct {
	MaxFileBytes  *IntEntry `json:"maxFileBytes,omitempty"`
	MaxTotalBytes *IntEntry `json:"maxTotalBytes,omitempty"`
}

var knownCheckpointKeys = []string{"maxFileBytes", "maxTotalBytes"}

// readCheckpoints reads fileCheckpointingEnabled (Claude Code's) and checkpoints.
func (d *settingsDoc) readCheckpoints(root *posjson.Value, s *Settings) error {
	if v := root.Get("fileCheckpointingEnabled"); v != nil && v.Kind != posjson.Null {
		if v.Kind != posjson.Bool {
			return d.errAt(v.Off, "fileCheckpointingEnabled must be true or false, not %s", v.Kind)
		}
		line, col := d.idx.Pos(v.Off)
		s.FileCheckpointing = &BoolEntry{Value: v.Bool, Line: line, Col: col}
	}
	v := root.Get("checkpoints")
	if v == nil || v.Kind == posjson.Null {
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

// CheckpointLimits are the store's limits, given the store's own defaults. The person's own
// files (user, trusted local, --settings, managed) decide by precedence; a project's shared
// file, and a local one until the project is trusted, may only lower a limit, as with the
// damage budget: a clone must not make the store keep what the person's settings would not
// (60 MB of a file where the default keeps nothing above 16 MiB). A higher value is ignored,
// with a warning at its position.
func (l *Loaded) CheckpointLimits(trusted bool, defFile, defTotal int64) (maxFile, maxTotal int64, warns []Warning) {
	maxFile, maxTotal = defFile, defTotal
	type lower struct {
		f    *File
		e    *IntEntry
		key  string
		into *int64
	}
	var lowers []lower
	for _, f := range l.scalarOrder() {
		c := f.Settings.Checkpoints
		if c == nil {
			continue
		}
		tightenOnly := f.Source == permission.SourceProject || (WaitsForTrust(f.Source) && !trusted)
		for _, v := range []struct {
			key  string
			e    *IntEntry
			into *int64
			def  int64
		}{{"maxFileBytes", c.MaxFileBytes, &maxFile, defFile}, {"maxTotalBytes", c.MaxTotalBytes, &maxTotal, defTotal}} {
			switch {
			case v.e == nil:
			case tightenOnly:
				lowers = append(lowers, lower{f, v.e, v.key, v.into})
			case v.e.Value == 0:
				*v.into = v.def
			default:
				*v.into = v.e.Value
			}
		}
	}
	for _, lw := range lowers {
		if n := lw.e.Value; n > 0 && n <= *lw.into {
			*lw.into = n
			continue
		}
		if lw.e.Value > *lw.into {
			warns = append(warns, Warning{File: lw.f.Path, Line: lw.e.Line, Col: lw.e.Col,
				Message: fmt.Sprintf("checkpoints.%s %d is ignored: %s may only lower the checkpoint store's limits (%d here)%s",
					lw.key, lw.e.Value, trustWord(lw.f.Source), *lw.into, waitsNote(lw.f.Source))})
		}
	}
	return maxFile, maxTotal, warns
}

// trustWord names, for a warning, the file whose setting may only tighten.
func trustWord(src permission.Source) string {
	if src == permission.SourceProject {
		return "a project's shared settings file"
	}
	return "a file of a project that is not trusted"
}

// FileCheckpointingEnabled is false when a policy file sets fileCheckpointingEnabled: false
// (an administrator's word keeps checkpoints off) or, without one, when the winning value of
// the other files is false. True where no file sets it. A project's false — its shared file's
// or its local file's — counts only once the project is trusted: until then a clone could
// turn off the checkpoints that would undo what its own instructions make the agent do. It is
// ignored with a warning.
func (l *Loaded) FileCheckpointingEnabled(trusted bool) (bool, []Warning) {
	on := true
	var warns []Warning
	for _, f := range l.scalarOrder() {
		e := f.Settings.FileCheckpointing
		if e == nil {
			continue
		}
		if !e.Value && WaitsForTrust(f.Source) && !trusted {
			warns = append(warns, Warning{File: f.Path, Line: e.Line, Col: e.Col,
				Message: "fileCheckpointingEnabled false is ignored: this project is not trusted, so it may not turn checkpoints off" + waitsNote(f.Source) + " (run reins trust)"})
			continue
		}
		on = e.Value
	}
	return on, warns
}
