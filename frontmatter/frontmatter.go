// Package frontmatter reads the YAML header of Markdown definition files: sub-agents, slash
// commands and skills. It owns what those files share: the "---" fences, the size bound, the
// byte-order mark, refusing duplicate and unknown keys (with a "did you mean"), and errors that
// name the file, line and column of the problem. What a key means is the caller's business.
package frontmatter

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/reinsdev/reins/posjson"
)

// Error is a problem in one file, at a position when it has one: the positioned error every
// configuration reader of Reins returns.
type Error = posjson.Error

// Doc is a parsed file: its header's keys and the Markdown body after it.
type Doc struct {
	File string
	// Present is false for a file with no front matter; its whole text is then the body.
	Present bool
	// Body is the text after the closing fence, and BodyLine its first line in the file.
	Body     []byte
	BodyLine int
	values   map[string]*yaml.Node
}

// Parse splits data into header and body and checks the header's keys against known. A file
// larger than maxSize is refused unread. A file with no header parses with Present false, so a
// caller for which the header is optional (slash commands) and one for which it is required
// (sub-agents) share the reading.
func Parse(file string, data []byte, known []string, maxSize int) (*Doc, error) {
	if len(data) > maxSize {
		return nil, &Error{File: file, Msg: fmt.Sprintf("file is larger than %d bytes", maxSize)}
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	head, body, bodyLine, ok := split(data)
	if !ok && bytes.HasPrefix(data, []byte("---")) && strings.TrimRight(firstLine(data), " \t\r") == "---" {
		return nil, &Error{File: file, Line: 1, Col: 1, Msg: "the front matter opened here has no closing \"---\" line"}
	}
	if !ok {
		return &Doc{File: file, Body: data, BodyLine: 1, values: map[string]*yaml.Node{}}, nil
	}
	d := &Doc{File: file, Present: true, Body: body, BodyLine: bodyLine, values: map[string]*yaml.Node{}}
	var root yaml.Node
	if err := yaml.Unmarshal(head, &root); err != nil {
		return nil, yamlError(file, err)
	}
	if len(root.Content) == 0 {
		return d, nil // "---\n---": an empty header
	}
	m := root.Content[0]
	if m.Kind != yaml.MappingNode {
		return nil, &Error{File: file, Line: 2, Col: 1, Msg: "front matter must be a mapping of keys to values"}
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if _, dup := d.values[k.Value]; dup {
			return nil, d.errAt(k, "duplicate key %q", k.Value)
		}
		if !slices.Contains(known, k.Value) {
			return nil, d.errAt(k, "unknown key %q%s", k.Value, posjson.Suggest(k.Value, known))
		}
		d.values[k.Value] = m.Content[i+1]
	}
	return d, nil
}

// Has reports whether the header sets key.
func (d *Doc) Has(key string) bool { _, ok := d.values[key]; return ok }

// Pos is the line and column of key's value in the file, or 0, 0 when the header does not set
// it.
func (d *Doc) Pos(key string) (line, col int) {
	n, ok := d.values[key]
	if !ok {
		return 0, 0
	}
	return n.Line + 1, n.Column
}

// ErrAt is an error at key's value, or at the header's start when key is not set.
func (d *Doc) ErrAt(key, format string, args ...any) error {
	if n, ok := d.values[key]; ok {
		return d.errAt(n, format, args...)
	}
	return &Error{File: d.File, Line: 2, Col: 1, Msg: fmt.Sprintf(format, args...)}
}

// errAt places an error at a node: its line plus one for the opening fence.
func (d *Doc) errAt(n *yaml.Node, format string, args ...any) error {
	return &Error{File: d.File, Line: n.Line + 1, Col: n.Column, Msg: fmt.Sprintf(format, args...)}
}

// Str reads a string value, trimmed; a missing required key is an error at the header's start.
func (d *Doc) Str(key string, required bool) (string, error) {
	n, ok := d.values[key]
	if !ok {
		if required {
			return "", d.ErrAt(key, "missing required key %q", key)
		}
		return "", nil
	}
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", d.errAt(n, "%q must be a string", key)
	}
	return strings.TrimSpace(n.Value), nil
}

// Bool reads a true/false value; a missing key is false.
func (d *Doc) Bool(key string) (bool, error) {
	n, ok := d.values[key]
	if !ok {
		return false, nil
	}
	b, err := strconv.ParseBool(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil {
		return false, d.errAt(n, "%q must be true or false", key)
	}
	return b, nil
}

// List reads a list of names: a YAML sequence or, as Claude Code's files often write it, a
// comma-separated string ("Read, Grep, Glob").
func (d *Doc) List(key string) ([]string, error) {
	n, ok := d.values[key]
	if !ok {
		return nil, nil
	}
	var out []string
	switch n.Kind {
	case yaml.ScalarNode:
		for p := range strings.SplitSeq(n.Value, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out, nil
	case yaml.SequenceNode:
		for _, e := range n.Content {
			if e.Kind != yaml.ScalarNode {
				return nil, d.errAt(e, "%q entries must be strings", key)
			}
			out = append(out, strings.TrimSpace(e.Value))
		}
		return out, nil
	}
	return nil, d.errAt(n, "%q must be a list or a comma-separated string", key)
}

func firstLine(data []byte) string {
	l, _, _ := bytes.Cut(data, []byte("\n"))
	return string(l)
}

// split separates "---\n<yaml>\n---\n<body>". bodyLine is the body's first line.
func split(data []byte) (head, body []byte, bodyLine int, ok bool) {
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	rest, found := bytes.CutPrefix(data, []byte("---\n"))
	if !found {
		return nil, nil, 0, false
	}
	line := 2
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		var l []byte
		if i < 0 {
			l, rest = rest, nil
		} else {
			l, rest = rest[:i], rest[i+1:]
		}
		if string(bytes.TrimRight(l, " \t")) == "---" {
			end := len(data) - len(rest) - len(l) - 1
			if i < 0 {
				end = len(data) - len(l)
			}
			return data[4:max(end, 4)], rest, line + 1, true
		}
		line++
	}
	return nil, nil, 0, false
}

var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`) })

// yamlError places a YAML parser error at its line when the parser names one.
func yamlError(file string, err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		return &Error{File: file, Msg: "front matter: " + strings.Join(te.Errors, "; ")}
	}
	if m := yamlLine().FindStringSubmatch(err.Error()); m != nil && m[1] != "" {
		n, _ := strconv.Atoi(m[1])
		return &Error{File: file, Line: n + 1, Col: 1, Msg: "front matter: " + m[2]}
	}
	return &Error{File: file, Msg: "front matter: " + err.Error()}
}
