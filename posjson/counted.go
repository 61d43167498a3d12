package posjson

import (
	"encoding/json"
	"slices"
	"unicode/utf8"
)

// A settings file of an untrusted project may hold megabytes of allow rules that will not
// apply. Building a tree node, a string and a position for each would cost a second and
// hundreds of megabytes for a file of some megabytes, so the parser leaves such lists out: countedLists finds them in the checked document with a byte walk, cutLists removes
// their elements, and the tree is built from what is left.

// listCut is an array left out of the tree: its bytes in the document, from its '[' to just
// past its ']', how many elements it has, and how many bytes before it were cut already.
type listCut struct {
	start, end, count int
	before            int
}

// countedLists finds the arrays held by the members named in keys of any top-level member
// named object (duplicates included, as the tree keeps them). data must be valid JSON.
func countedLists(data []byte, object string, keys []string) []listCut {
	if len(keys) == 0 {
		return nil
	}
	w := jsonWalk(data)
	i := w.space(0)
	if i >= len(data) || data[i] != '{' {
		return nil
	}
	var cuts []listCut
	w.members(i, func(key string, _, v, _ int) {
		if key != object || data[v] != '{' {
			return
		}
		w.members(v, func(key string, _, v, _ int) {
			if data[v] != '[' || !slices.Contains(keys, key) {
				return
			}
			end, n, nesting := w.array(v)
			// The tree refuses values nested deeper than maxDepth; such a list is built, so
			// that the file fails as it would in a trusted project.
			if listDepth+nesting < MaxDepth {
				cuts = append(cuts, listCut{start: v, end: end, count: n})
			}
		})
	})
	return cuts
}

// listDepth is the depth of a counted list in the tree: the document is 0, the object 1.
const listDepth = 2

// cutLists returns data without the elements of the cut arrays, which become "[]", and
// records in each cut how many bytes went before it.
func cutLists(data []byte, cuts []listCut) []byte {
	size := len(data)
	for _, c := range cuts {
		size -= c.end - c.start - 2
	}
	out := make([]byte, 0, size)
	last, removed := 0, 0
	for i := range cuts {
		c := &cuts[i]
		c.before = removed
		out = append(out, data[last:c.start+1]...)
		removed += c.end - c.start - 2
		last = c.end - 1
	}
	return append(out, data[last:]...)
}

// docOffset maps an offset into the cut data back to the document.
func (p *treeParser) docOffset(off int) int {
	shift := 0
	for _, c := range p.cuts {
		// In the cut data the array's '[' is at c.start-c.before and its ']' just after.
		if off <= c.start-c.before {
			break
		}
		shift = c.before + c.end - c.start - 2
	}
	return off + shift
}

// attachCounts gives each counted array of the tree its element count.
func attachCounts(root *Value, object string, keys []string, cuts []listCut) {
	for _, m := range root.Members {
		if m.Key != object || m.Val.Kind != Object {
			continue
		}
		for _, pm := range m.Val.Members {
			if pm.Val.Kind != Array || !slices.Contains(keys, pm.Key) {
				continue
			}
			for _, c := range cuts {
				if c.start == pm.Val.Off {
					pm.Val.Counted = c.count
				}
			}
		}
	}
}

// jsonWalk steps over the values of a document already known to be valid JSON, without
// decoding them.
type jsonWalk []byte

func (w jsonWalk) space(i int) int {
	for i < len(w) {
		switch w[i] {
		case ' ', '\t', '\r', '\n':
			i++
			continue
		}
		break
	}
	return i
}

// skip returns the offset just past the value starting at i, and how deeply arrays and
// objects nest in it (0 for a scalar).
func (w jsonWalk) skip(i int) (end, nesting int) {
	switch w[i] {
	case '"':
		return w.str(i), 0
	case '[', '{':
		depth := 0
		for ; i < len(w); i++ {
			switch w[i] {
			case '"':
				i = w.str(i) - 1
			case '[', '{':
				depth++
				nesting = max(nesting, depth)
			case ']', '}':
				depth--
				if depth == 0 {
					return i + 1, nesting
				}
			}
		}
		return i, nesting
	}
	for i < len(w) {
		switch w[i] {
		case ',', ']', '}', ' ', '\t', '\r', '\n':
			return i, 0
		}
		i++
	}
	return i, 0
}

// str returns the offset just past the string whose opening quote is at i.
func (w jsonWalk) str(i int) int {
	for i++; i < len(w); i++ {
		switch w[i] {
		case '\\':
			i++ // an escaped byte cannot end the string
		case '"':
			return i + 1
		}
	}
	return i
}

// members calls f with each member's decoded key, the offsets of its key's quote and of its
// value, and the offset just past the value, for the object whose '{' is at i.
func (w jsonWalk) members(i int, f func(key string, keyOff, v, end int)) {
	i = w.space(i + 1)
	for i < len(w) && w[i] == '"' {
		keyOff, end := i, w.str(i)
		key := string(w[i+1 : end-1])
		if slices.Contains(w[i:end], '\\') || !utf8.Valid(w[i:end]) {
			// Escapes and invalid UTF-8 (which becomes U+FFFD) decode as the tree's keys do,
			// so both agree on which member is which.
			if json.Unmarshal(w[i:end], &key) != nil {
				return
			}
		}
		v := w.space(w.space(end) + 1) // past the ':'
		end, _ = w.skip(v)
		f(key, keyOff, v, end)
		i = w.space(end)
		if i < len(w) && w[i] == ',' {
			i = w.space(i + 1)
		}
	}
}

// array returns the offset just past the array whose '[' is at i, its element count, and
// how deeply arrays and objects nest in it, itself included.
func (w jsonWalk) array(i int) (end, n, nesting int) {
	i = w.space(i + 1)
	for i < len(w) && w[i] != ']' {
		n++
		end, inner := w.skip(i)
		nesting = max(nesting, inner)
		i = w.space(end)
		if i < len(w) && w[i] == ',' {
			i = w.space(i + 1)
		}
	}
	return i + 1, n, nesting + 1
}
