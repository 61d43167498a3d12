package settings

import (
	"math"
	"slices"
	"strconv"

	"github.com/reinsdev/reins/posjson"
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
func (p docPos) wholeNumbers(key string, v *posjson.Value, names []string, fields map[string]**IntEntry) error {
	if v.Kind != posjson.Object {
		return p.errAt(v.Off, "%s must be an object of whole numbers (%s), not %s", key, quotedList(names), v.Kind)
	}
	for _, m := range v.Members {
		dst, ok := fields[m.Key]
		if !ok || !slices.Contains(names, m.Key) {
			return p.errAt(m.Off, "%s", unknownKeyMessage(" in "+key, m.Key, posjson.DidYouMean(m.Key, names)))
		}
		n, err := strconv.ParseFloat(m.Val.Raw, 64)
		if m.Val.Kind != posjson.Number || err != nil || n < 0 || n != math.Trunc(n) || n > math.MaxInt64/2 {
			return p.errAt(m.Val.Off, "%s.%s must be a whole number, 0 or more, not %s", key, m.Key, m.Val.Describe())
		}
		line, col := p.idx.Pos(m.Val.Off)
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
