package search

import (
	_ "embed"
	"fmt"
	"strings"
)

// rgTypes is the output of `rg --type-list` (ripgrep 13.0.0): the file types the type
// parameter accepts. Both engines use this table — the Go engine to match, the rg engine to
// pin each type's globs with --type-add — so a type means the same thing whichever engine
// runs and whatever ripgrep version is installed.
//
//go:embed rgtypes.txt
var rgTypes string

// typeGlobs returns the globs of a file type, or an error naming the unknown type the way
// ripgrep does. The table is scanned on each call: a call is one per search, and scanning
// keeps the table a constant rather than a cached global.
func typeGlobs(name string) ([]string, error) {
	for line := range strings.Lines(rgTypes) {
		n, globs, ok := strings.Cut(strings.TrimSpace(line), ": ")
		if ok && n == name {
			return strings.Split(globs, ", "), nil
		}
	}
	return nil, fmt.Errorf("unrecognized file type: %s", name)
}

// typeFilter selects files whose name matches one of a type's globs. Directories are never
// filtered by type.
type typeFilter struct {
	patterns []globPattern
}

func newTypeFilter(name string) (*typeFilter, error) {
	if name == "" {
		return nil, nil
	}
	globs, err := typeGlobs(name)
	if err != nil {
		return nil, err
	}
	f := &typeFilter{}
	for _, g := range globs {
		p, err := parseGlob(g)
		if err != nil {
			return nil, fmt.Errorf("file type %s: %w", name, err)
		}
		f.patterns = append(f.patterns, p)
	}
	return f, nil
}

func (f *typeFilter) match(name string, isDir bool) matchResult {
	if f == nil || isDir {
		return noMatch
	}
	for i := range f.patterns {
		if f.patterns[i].match(name, false) {
			return whitelisted
		}
	}
	return ignored
}
