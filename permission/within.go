package permission

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Within narrows the working directories to their intersection with dirs, for a front end
// whose client names the directories it works in (an MCP client's roots). A dir inside a
// working directory is kept; a working directory inside a dir is kept in its place; a dir
// that shares nothing with them is refused and returned. The result never reaches a
// directory c does not: narrowing only removes.
//
// The original directory stays the anchor of path rules ("/src/**" still means the project's
// src), so narrowing cannot shift a deny rule away from what it protects. Relative paths
// resolve against the first kept directory. It is an error when nothing is kept.
func (c *Context) Within(dirs []string) (*Context, []string, error) {
	var kept, refused []string
	keep := func(d string) {
		if !slices.Contains(kept, d) {
			kept = append(kept, d)
		}
	}
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			refused = append(refused, d)
			continue
		}
		d = filepath.Clean(d)
		if r, err := evalLinks(d); err == nil {
			d = r
		}
		if c.InWorkingDirs(d) {
			keep(d)
			continue
		}
		inside := false
		for _, w := range c.WorkingDirs() {
			if dirUnder(d, w) {
				keep(w)
				inside = true
			}
		}
		if !inside {
			refused = append(refused, d)
		}
	}
	if len(kept) == 0 {
		return nil, refused, errors.New(noDirsMessage(dirs, c.WorkingDirs()))
	}
	n := c.clone()
	n.narrowed = true
	n.dirs = n.dirs[:0]
	for _, d := range kept {
		n.dirs = append(n.dirs, WorkingDir{Path: d, Source: SourceSession})
	}
	n.cwd = kept[0]
	n.reindex()
	return n, refused, nil
}

// dirUnder reports whether w (or its resolved form) lies inside or at d.
func dirUnder(d, w string) bool {
	forms := []string{w}
	if r, err := evalLinks(w); err == nil && r != w {
		forms = append(forms, r)
	}
	fd := foldPath(d)
	for _, f := range forms {
		if _, ok := relUnder(fd, foldPath(f)); ok {
			return true
		}
	}
	return false
}

func noDirsMessage(dirs, working []string) string {
	return fmt.Sprintf("none of the directories %s lies inside or around the working directories %s",
		strings.Join(dirs, ", "), strings.Join(working, ", "))
}
