package posjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Kind is the JSON type of a value.
type Kind uint8

const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "a boolean"
	case Number:
		return "a number"
	case String:
		return "a string"
	case Array:
		return "an array"
	case Object:
		return "an object"
	}
	return "unknown"
}

// Value is one node of a JSON document that remembers where it was written and keeps object
// members in their written order. Scalars keep their literal text, so a document written back
// out changes only its layout, never a number's digits or a string's escapes.
type Value struct {
	Kind    Kind
	Off     int    // byte offset of the value's first byte; -1 for values built in memory
	Raw     string // scalars: the literal as written (or as generated)
	Str     string // String: the decoded string
	Bool    bool   // Bool: the value
	Elems   []*Value
	Members []Member
	// Counted is the number of elements of an array that was counted instead of built (see
	// ParseCounting).
	Counted int
}

// Member is one key of an object, in written order. Duplicate keys are kept as written; lookups
// see the last one, as JSON.parse does.
type Member struct {
	Key    string
	RawKey string // the key as written, quotes and escapes included
	Off    int    // byte offset of the key's opening quote; -1 for members built in memory
	Val    *Value
}

// MaxDepth bounds nesting so hostile input cannot make the tree walk recurse without end.
const MaxDepth = 512

// MsgTooDeep is the message of the OffsetError for a value nested deeper than MaxDepth.
const MsgTooDeep = "JSON is nested too deeply"

// OffsetError is a problem at a byte offset of a document: a syntax error from Check, or a
// reader's own. The caller names the file and turns the offset into a line and column with
// Lines.Errorf.
type OffsetError struct {
	Off int
	Msg string
}

func (e *OffsetError) Error() string { return e.Msg }

// Parse parses a whole document. encoding/json's scanner checks the syntax first, because
// the offsets of its SyntaxError are exact there (the bad byte is at Offset-1) while those
// Decoder.Token reports depend on which internal path found the problem. The tree is then
// built with Decoder.Token, taking each value's start from InputOffset.
func Parse(data []byte) (*Value, error) { return ParseCounting(data, "", nil) }

// ParseCounting is Parse that only counts the elements of the arrays held by the members
// named in keys of any top-level object member named object: such an array becomes an empty
// array value with its position and the count in Counted, and nothing of its elements is
// decoded, kept or allocated (see countedLists). The whole document is still checked, so a
// syntax error inside a counted array fails as anywhere else. A counted member that is not
// an array is built as usual, so that its type error keeps its position.
func ParseCounting(data []byte, object string, keys []string) (*Value, error) {
	if err := Check(data); err != nil {
		return nil, err
	}
	cuts := countedLists(data, object, keys)
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
		attachCounts(v, object, keys, cuts)
	}
	return v, nil
}

// Check returns the document's first syntax error, an *OffsetError with its offset, or nil.
// json.Valid is the fast path: it neither copies nor allocates.
func Check(data []byte) error {
	if json.Valid(data) {
		return nil
	}
	var raw json.RawMessage
	err := json.Unmarshal(data, &raw)
	var se *json.SyntaxError
	switch {
	case err == nil:
		return &OffsetError{Msg: "JSON is not valid"}
	case !errors.As(err, &se):
		return &OffsetError{Msg: err.Error()}
	}
	off := int(se.Offset) - 1
	msg := se.Error()
	if int(se.Offset) >= len(data) && strings.HasPrefix(msg, "unexpected end") {
		// Point just after the last written byte rather than at trailing blank lines.
		off = len(bytes.TrimRight(data, " \t\r\n"))
		msg += " (a closing brace, bracket or quote is missing)"
	}
	return &OffsetError{Off: max(off, 0), Msg: msg}
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
		return nil, start, start, &OffsetError{Off: p.docOffset(start), Msg: err.Error()}
	}
	return t, start, int(p.dec.InputOffset()), nil
}

func (p *treeParser) value(depth int) (*Value, error) {
	t, start, end, err := p.next()
	if err != nil {
		return nil, err
	}
	return p.valueFrom(t, start, end, depth)
}

func (p *treeParser) valueFrom(t json.Token, start, end, depth int) (*Value, error) {
	off := p.docOffset(start)
	if depth > MaxDepth {
		return nil, &OffsetError{Off: off, Msg: MsgTooDeep}
	}
	raw := string(p.data[start:end])
	switch t := t.(type) {
	case nil:
		return &Value{Kind: Null, Off: off, Raw: raw}, nil
	case bool:
		return &Value{Kind: Bool, Off: off, Raw: raw, Bool: t}, nil
	case json.Number:
		return &Value{Kind: Number, Off: off, Raw: raw}, nil
	case string:
		return &Value{Kind: String, Off: off, Raw: raw, Str: t}, nil
	case json.Delim:
		switch t {
		case '[':
			v := &Value{Kind: Array, Off: off}
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
				v.Elems = append(v.Elems, el)
			}
		case '{':
			v := &Value{Kind: Object, Off: off}
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
					return nil, &OffsetError{Off: p.docOffset(s), Msg: "object key is not a string"}
				}
				val, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				v.Members = append(v.Members, Member{Key: key, RawKey: string(p.data[s:e]), Off: p.docOffset(s), Val: val})
			}
		}
	}
	return nil, &OffsetError{Off: off, Msg: fmt.Sprintf("unexpected token %v", t)}
}

// Get returns the value of the last member named key, or nil.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for i := len(v.Members) - 1; i >= 0; i-- {
		if v.Members[i].Key == key {
			return v.Members[i].Val
		}
	}
	return nil
}

// Set replaces the value of the last member named key, or appends a member.
func (v *Value) Set(key string, val *Value) {
	for i := len(v.Members) - 1; i >= 0; i-- {
		if v.Members[i].Key == key {
			v.Members[i].Val = val
			return
		}
	}
	v.Members = append(v.Members, Member{Key: key, RawKey: Quote(key), Off: -1, Val: val})
}

// DuplicateKeys returns the members whose key appears again later in the object.
func (v *Value) DuplicateKeys() []Member {
	var out []Member
	seen := map[string]bool{}
	for i := len(v.Members) - 1; i >= 0; i-- {
		m := v.Members[i]
		if seen[m.Key] {
			out = append(out, m)
		}
		seen[m.Key] = true
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Off < out[j].Off })
	return out
}

// NewObject, NewArray and NewString build values in memory, without a position.
func NewObject() *Value { return &Value{Kind: Object, Off: -1} }

func NewArray() *Value { return &Value{Kind: Array, Off: -1} }

func NewString(s string) *Value {
	return &Value{Kind: String, Off: -1, Raw: Quote(s), Str: s}
}

// Quote encodes s as a JSON string without escaping <, > and &, which would make rules such as
// Bash(a > b) unreadable in the file.
func Quote(s string) string {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	_ = e.Encode(s) // encoding a string cannot fail
	return strings.TrimSuffix(b.String(), "\n")
}

// Marshal writes the document with two-space indentation and a trailing newline.
func (v *Value) Marshal() []byte {
	var b bytes.Buffer
	v.write(&b, 0)
	b.WriteByte('\n')
	return b.Bytes()
}

func (v *Value) write(b *bytes.Buffer, depth int) {
	indent := func(d int) {
		b.WriteByte('\n')
		for range d {
			b.WriteString("  ")
		}
	}
	switch v.Kind {
	case Array:
		if len(v.Elems) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, el := range v.Elems {
			if i > 0 {
				b.WriteByte(',')
			}
			indent(depth + 1)
			el.write(b, depth+1)
		}
		indent(depth)
		b.WriteByte(']')
	case Object:
		if len(v.Members) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, m := range v.Members {
			if i > 0 {
				b.WriteByte(',')
			}
			indent(depth + 1)
			b.WriteString(m.RawKey)
			b.WriteString(": ")
			m.Val.write(b, depth+1)
		}
		indent(depth)
		b.WriteByte('}')
	default:
		b.WriteString(v.Raw)
	}
}

// Describe names a value for a message: a scalar by its literal (shortened), a container by
// its type.
func (v *Value) Describe() string {
	switch v.Kind {
	case Array, Object:
		return v.Kind.String()
	}
	if r := []rune(v.Raw); len(r) > 40 {
		return string(r[:37]) + "..."
	}
	return v.Raw
}
