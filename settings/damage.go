package settings

import (
	"slices"
	"strconv"

	"github.com/reinsdev/reins/permission"
)

// DamageBudgetSettings is the damageBudget key of one settings file (Reins' own): how many
// files, and how many bytes, a Bash command may delete or overwrite before it asks as a
// safety check. Absent fields are nil.
type DamageBudgetSettings struct {
	Files *IntEntry `json:"files,omitempty"`
	Bytes *IntEntry `json:"bytes,omitempty"`
}

// IntEntry is a whole number with its position.
type IntEntry struct {
	Value int64 `json:"value"`
	Line  int   `json:"line"`
	Col   int   `json:"col"`
}

var damageBudgetKeys = []string{"files", "bytes"}

// parseDamageBudget reads the damageBudget key. A bad value is an error, not a warning: a
// budget that silently fell back to the default would let through what the file meant to
// stop, or stop what it meant to let through.
func parseDamageBudget(root *value, p docPos) (*DamageBudgetSettings, error) {
	v := root.get("damageBudget")
	if v == nil || v.kind == kindNull {
		return nil, nil
	}
	if v.kind != kindObject {
		return nil, p.errAt(v.off, "damageBudget must be an object like {\"files\": 100, \"bytes\": 67108864}, not %s", v.kind)
	}
	for _, m := range v.members {
		if !slices.Contains(damageBudgetKeys, m.key) {
			return nil, p.errAt(m.off, "%s", unknownKeyMessage(" in damageBudget", m.key, DidYouMean(m.key, damageBudgetKeys)))
		}
	}
	s := &DamageBudgetSettings{}
	for _, f := range []struct {
		key string
		dst **IntEntry
	}{{"files", &s.Files}, {"bytes", &s.Bytes}} {
		fv := v.get(f.key)
		if fv == nil {
			continue
		}
		if fv.kind != kindNumber {
			return nil, p.errAt(fv.off, "damageBudget.%s must be a whole number, not %s", f.key, fv.kind)
		}
		n, err := strconv.ParseInt(fv.raw, 10, 64)
		if err != nil || n < 0 {
			return nil, p.errAt(fv.off, "damageBudget.%s must be a whole number from 0 to %d, not %s", f.key, int64(1<<63-1), fv.raw)
		}
		line, col := p.idx.pos(fv.off)
		*f.dst = &IntEntry{Value: n, Line: line, Col: col}
	}
	return s, nil
}

// DamageBudget is the session's damage budget, field by field: the smallest value any file
// sets. The default takes part unless a file of the person's own (user, local, --settings or
// managed policy) sets the field: a project's shared file can only lower the budget.
func (l *Loaded) DamageBudget() permission.DamageBudget {
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
		if f.Source == permission.SourceProject {
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
