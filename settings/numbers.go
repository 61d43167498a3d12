package settings

import (
	"math"
	"slices"
	"strconv"
)

// IntEntry is a whole-number setting with its position.
type IntEntry struct {
	Value int64 `json:"value"`
	Line  int   `json:"line"`
	Col   int   `json:"col"`
}

// wholeNumbers reads v, the object of key, whose members are whole numbers of 0 or more
// (1e6 is one), into fields. A bad value or an unknown member is an error, not a warning: a
// limit that silently fell back to its default would let through what the file meant to stop,
// or stop what it meant to let through. The keys of fields are listed in names, in the order
// a "did you mean" prefers.
func (p docPos) wholeNumbers(key string, v *value, names []string, fields map[string]**IntEntry) error {
	if v.kind != kindObject {
		return p.errAt(v.off, "%s must be an object of whole numbers (%s), not %s", key, quotedList(names), v.kind)
	}
	for _, m := range v.members {
		dst, ok := fields[m.key]
		if !ok || !slices.Contains(names, m.key) {
			return p.errAt(m.off, "%s", unknownKeyMessage(" in "+key, m.key, DidYouMean(m.key, names)))
		}
		n, err := strconv.ParseFloat(m.val.raw, 64)
		if m.val.kind != kindNumber || err != nil || n < 0 || n != math.Trunc(n) || n > math.MaxInt64/2 {
			return p.errAt(m.val.off, "%s.%s must be a whole number, 0 or more, not %s", key, m.key, m.val.describe())
		}
		line, col := p.idx.pos(m.val.off)
		*dst = &IntEntry{Value: int64(n), Line: line, Col: col}
	}
	return nil
}

func quotedList(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += strconv.Quote(n)
	}
	return out
}
