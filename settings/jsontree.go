package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// kind is the JSON type of a value.
type kind uint8

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

func (k kind) String() string {
	switch k {
	case kindNull:
		return "null"
	case kindBool:
		return "a boolean"
	case kindNumber:
		return "a number"
	case kindString:
		return "a string"
	case kindArray:
		return "an array"
	case kindObject:
		return "an object"
	}
	return "unknown"
}

// value is one node of a JSON document that remembers where it was written and keeps object
// members in their written order. Scalars keep their literal text, so a document written back
// out changes only its layout, never a number's digits or a string's escapes.
type value struct {
	kind    kind
	off     int    // byte offset of the value's first byte; -1 for values built in memory
	raw     string // scalars: the literal as written (or as generated)
	str     string // kindString: the decoded string
	b       bool   // kindBool
	elems   []*value
	members []member
	// counted is the number of elements of an array that was counted instead of built (see
	// parseJSONCounting).
	counted int
}

// member is one key of an object, in written order. Duplicate keys are kept as written; lookups
// see the last one, as JSON.parse does.
type member struct {
	key    string
	rawKey string
	off    int
	val    *value
}

// maxDepth bounds nesting so hostile input cannot make the tree walk recurse without end.
const maxDepth = 512

const msgTooDeep = "JSON is nested too deeply"

// posError is a problem at a byte offset of a document; the caller turns the offset into a
// line and column.
type posError struct {
	off int
	msg string
}

func (e *posError) Error() string { return e.msg }

// parseJSON parses a whole document. encoding/json's scanner checks the syntax first, because
// the offsets of its SyntaxError are exact there (the bad byte is at Offset-1) while those
// Decoder.Token reports depend on which internal path found the problem. The tree is then
// built with Decoder.Token, taking each value's start from InputOffset.
func parseJSON(data []byte) (*value, error) { return parseJSONCounting(data, nil) }

// parseJSONCounting is parseJSON that only counts the elements of the arrays held by the
// members of a top-level "permissions" object named in counted: such an array becomes an
// empty array value with its position and the count in counted, and nothing of its elements
// is decoded, kept or allocated (see countedLists). The whole document is still checked, so
// a syntax error inside a counted array fails as anywhere else. A counted member that is not
// an array is built as usual, so that its type error keeps its position.
func parseJSONCounting(data []byte, counted []string) (*value, error) {
	if err := checkSyntax(data); err != nil {
		return nil, err
	}
	cuts := countedLists(data, counted)
	tree := data
	if len(cuts) > 0 {
		tree = cutLists(data, cuts)
	}
	d := json.NewDecoder(bytes.NewReader(tree))
	d.UseNumber()
	p := &treeParser{data: tree, dec: d, cuts: cuts}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if len(cuts) > 0 {
		attachCounts(v, counted, cuts)
	}
	return v, nil
}

// checkSyntax returns the position and message of the document's first syntax error.
// json.Valid is the fast path: it neither copies nor allocates.
func checkSyntax(data []byte) error {
	if json.Valid(data) {
		return nil
	}
	var raw json.RawMessage
	err := json.Unmarshal(data, &raw)
	var se *json.SyntaxError
	switch {
	case err == nil:
		return &posError{msg: "JSON is not valid"}
	case !errors.As(err, &se):
		return &posError{msg: err.Error()}
	}
	off := int(se.Offset) - 1
	msg := se.Error()
	if int(se.Offset) >= len(data) && strings.HasPrefix(msg, "unexpected end") {
		// Point just after the last written byte rather than at trailing blank lines.
		off = len(bytes.TrimRight(data, " \t\r\n"))
		msg += " (a closing brace, bracket or quote is missing)"
	}
	return &posError{off: max(off, 0), msg: msg}
}

type treeParser struct {
	data []byte
	dec  *json.Decoder
	cuts []listCut // the arrays left out of data, to map its offsets back to the document's
}

// next returns the next token with the offsets of its first byte and of the byte after it.
// The offsets are into p.data; docOffset maps them to the document's.
func (p *treeParser) next() (json.Token, int, int, error) {
	start := int(p.dec.InputOffset())
	// Token consumes the separators before a value lazily, so skip them to find where the
	// token itself starts.
	for start < len(p.data) {
		switch p.data[start] {
		case ' ', '\t', '\r', '\n', ',', ':':
			start++
			continue
		}
		break
	}
	t, err := p.dec.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, start, start, &posError{off: p.docOffset(start), msg: err.Error()}
	}
	return t, start, int(p.dec.InputOffset()), nil
}

func (p *treeParser) value(depth int) (*value, error) {
	t, start, end, err := p.next()
	if err != nil {
		return nil, err
	}
	return p.valueFrom(t, start, end, depth)
}

func (p *treeParser) valueFrom(t json.Token, start, end, depth int) (*value, error) {
	off := p.docOffset(start)
	if depth > maxDepth {
		return nil, &posError{off: off, msg: msgTooDeep}
	}
	raw := string(p.data[start:end])
	switch t := t.(type) {
	case nil:
		return &value{kind: kindNull, off: off, raw: raw}, nil
	case bool:
		return &value{kind: kindBool, off: off, raw: raw, b: t}, nil
	case json.Number:
		return &value{kind: kindNumber, off: off, raw: raw}, nil
	case string:
		return &value{kind: kindString, off: off, raw: raw, str: t}, nil
	case json.Delim:
		switch t {
		case '[':
			v := &value{kind: kindArray, off: off}
			for {
				t, s, e, err := p.next()
				if err != nil {
					return nil, err
				}
				if t == json.Delim(']') {
					return v, nil
				}
				el, err := p.valueFrom(t, s, e, depth+1)
				if err != nil {
					return nil, err
				}
				v.elems = append(v.elems, el)
			}
		case '{':
			v := &value{kind: kindObject, off: off}
			for {
				t, s, e, err := p.next()
				if err != nil {
					return nil, err
				}
				if t == json.Delim('}') {
					return v, nil
				}
				key, ok := t.(string)
				if !ok {
					return nil, &posError{off: p.docOffset(s), msg: "object key is not a string"}
				}
				val, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				v.members = append(v.members, member{key: key, rawKey: string(p.data[s:e]), off: p.docOffset(s), val: val})
			}
		}
	}
	return nil, &posError{off: off, msg: fmt.Sprintf("unexpected token %v", t)}
}

// get returns the value of the last member named key, or nil.
func (v *value) get(key string) *value {
	if v == nil || v.kind != kindObject {
		return nil
	}
	for i := len(v.members) - 1; i >= 0; i-- {
		if v.members[i].key == key {
			return v.members[i].val
		}
	}
	return nil
}

// set replaces the value of the last member named key, or appends a member.
func (v *value) set(key string, val *value) {
	for i := len(v.members) - 1; i >= 0; i-- {
		if v.members[i].key == key {
			v.members[i].val = val
			return
		}
	}
	v.members = append(v.members, member{key: key, rawKey: quote(key), off: -1, val: val})
}

// duplicateKeys returns the members whose key appears again later in the object.
func (v *value) duplicateKeys() []member {
	var out []member
	seen := map[string]bool{}
	for i := len(v.members) - 1; i >= 0; i-- {
		m := v.members[i]
		if seen[m.key] {
			out = append(out, m)
		}
		seen[m.key] = true
	}
	sort.Slice(out, func(i, j int) bool { return out[i].off < out[j].off })
	return out
}

func newObject() *value { return &value{kind: kindObject, off: -1} }

func newArray() *value { return &value{kind: kindArray, off: -1} }

func newString(s string) *value {
	return &value{kind: kindString, off: -1, raw: quote(s), str: s}
}

// quote encodes s as a JSON string without escaping <, > and &, which would make rules such as
// Bash(a > b) unreadable in the file.
func quote(s string) string {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	_ = e.Encode(s) // encoding a string cannot fail
	return strings.TrimSuffix(b.String(), "\n")
}

// marshal writes the document with two-space indentation and a trailing newline.
func (v *value) marshal() []byte {
	var b bytes.Buffer
	v.write(&b, 0)
	b.WriteByte('\n')
	return b.Bytes()
}

func (v *value) write(b *bytes.Buffer, depth int) {
	indent := func(d int) {
		b.WriteByte('\n')
		for range d {
			b.WriteString("  ")
		}
	}
	switch v.kind {
	case kindArray:
		if len(v.elems) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, el := range v.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			indent(depth + 1)
			el.write(b, depth+1)
		}
		indent(depth)
		b.WriteByte(']')
	case kindObject:
		if len(v.members) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, m := range v.members {
			if i > 0 {
				b.WriteByte(',')
			}
			indent(depth + 1)
			b.WriteString(m.rawKey)
			b.WriteString(": ")
			m.val.write(b, depth+1)
		}
		indent(depth)
		b.WriteByte('}')
	default:
		b.WriteString(v.raw)
	}
}

// lineIndex converts byte offsets to 1-based line and column numbers. Columns count bytes, as
// the Go toolchain's positions do, so a column past a multi-byte character is larger than the
// number of characters a person sees.
type lineIndex []int // offsets at which each line starts

func newLineIndex(data []byte) lineIndex {
	idx := make(lineIndex, 1, bytes.Count(data, []byte{'\n'})+1)
	for off := 0; ; {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return idx
		}
		off += i + 1
		idx = append(idx, off)
	}
}

func (idx lineIndex) pos(off int) (line, col int) {
	if off < 0 {
		return 0, 0
	}
	i := sort.Search(len(idx), func(i int) bool { return idx[i] > off }) - 1
	return i + 1, off - idx[i] + 1
}

// describe names a value for a message: a scalar by its literal (shortened), a container by
// its type.
func (v *value) describe() string {
	switch v.kind {
	case kindArray, kindObject:
		return v.kind.String()
	}
	if r := []rune(v.raw); len(r) > 40 {
		return string(r[:37]) + "..."
	}
	return v.raw
}
