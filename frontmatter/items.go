package frontmatter

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// Entry is one entry of a list value with its position in the file, so that what a caller
// makes of it (a rule from allowed-tools) can say where it was written.
type Entry struct {
	Value     string
	Line, Col int
}

// Entries reads a list as List does, each entry with its file position. The entries of a
// comma-separated string on one line get their own columns; in a folded or quoted string the
// string's position is the best there is.
func (d *Doc) Entries(key string) ([]Entry, error) {
	n, ok := d.values[key]
	if !ok {
		return nil, nil
	}
	var out []Entry
	switch n.Kind {
	case yaml.ScalarNode:
		plain := n.Style == 0 && !strings.Contains(n.Value, "\n")
		off := 0
		for p := range strings.SplitSeq(n.Value, ",") {
			start := off + len(p) - len(strings.TrimLeft(p, " \t"))
			off += len(p) + 1
			if p = strings.TrimSpace(p); p == "" {
				continue
			}
			col := n.Column
			if plain {
				col += start
			}
			out = append(out, Entry{Value: p, Line: n.Line + 1, Col: col})
		}
		return out, nil
	case yaml.SequenceNode:
		for _, e := range n.Content {
			if e.Kind != yaml.ScalarNode {
				return nil, d.errAt(e, "%q entries must be strings", key)
			}
			out = append(out, Entry{Value: strings.TrimSpace(e.Value), Line: e.Line + 1, Col: e.Column})
		}
		return out, nil
	}
	return nil, d.errAt(n, "%q must be a list or a comma-separated string", key)
}
