package settings

import (
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/posjson"
)

// DamageBudgetSettings is the damageBudget key of one settings file (Reins' own): how many
// files, and how many bytes, a Bash command may delete or overwrite before it asks as a
// safety check. Absent fields are nil.
type DamageBudgetSettings struct {
	Files *IntEntry `json:"files,omitempty"`
	Bytes *IntEntry `json:"bytes,omitempty"`
}

var damageBudgetKeys = []string{"files", "bytes"}

// parseDamageBudget reads the damageBudget key.
func parseDamageBudget(root *posjson.Value, p docPos) (*DamageBudgetSettings, error) {
	v := root.Get("damageBudget")
	if v == nil || v.Kind == posjson.Null {
		return nil, nil
	}
	s := &DamageBudgetSettings{}
	if err := p.wholeNumbers("damageBudget", v, damageBudgetKeys, map[string]**IntEntry{"files": &s.Files, "bytes": &s.Bytes}); err != nil {
		return nil, err
	}
	return s, nil
}

// DamageBudget is the session's damage budget, field by field: the smallest value any file
// sets. The default takes part unless a file of the person's own (user, local, --settings or
// managed policy) sets the field: a project's shared file can only lower the budget, and so
// can a local file until the project is trusted (a repository can commit one).
func (l *Loaded) DamageBudget(trusted bool) permission.DamageBudget {
	files, bytes := permission.DefaultDamageBudget.Files, permission.DefaultDamageBudget.Bytes
	var ownFiles, ownBytes *int64
	low := func(cur **int64, n int64) {
		if *cur == nil || n < **cur {
			*cur = &n
		}
	}
	var projFiles, projBytes *int64
	for _, f := range l.scalarOrder() {
		d := f.Settings.DamageBudget
		if d == nil {
			continue
		}
		fl, bl := &ownFiles, &ownBytes
		if f.Source == permission.SourceProject || (WaitsForTrust(f.Source) && !trusted) {
			fl, bl = &projFiles, &projBytes
		}
		if d.Files != nil {
			low(fl, d.Files.Value)
		}
		if d.Bytes != nil {
			low(bl, d.Bytes.Value)
		}
	}
	if ownFiles != nil {
		files = *ownFiles
	}
	if ownBytes != nil {
		bytes = *ownBytes
	}
	if projFiles != nil {
		files = min(files, *projFiles)
	}
	if projBytes != nil {
		bytes = min(bytes, *projBytes)
	}
	return permission.DamageBudget{Files: files, Bytes: bytes}
}
