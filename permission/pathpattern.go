package permission

import (
	"path/filepath"
	"strings"

	"github.com/reinsdev/reins/pathrule"
)

// anchor says which directory a path rule is relative to.
type anchor int

const (
	anchorCwd    anchor = iota // "x", "./x": the current working directory
	anchorRoot                 // "//x": the file-system root
	anchorHome                 // "~/x": the home directory
	anchorSource               // "/x": the root of the rule's settings source
)

// pathPattern is a compiled Read or Edit rule content.
type pathPattern struct {
	anchor anchor
	pat    *pathrule.Pattern
}

func compilePathPattern(content string) (*pathPattern, error) {
	p := &pathPattern{}
	rest := content
	switch {
	case strings.HasPrefix(rest, "//"):
		p.anchor, rest = anchorRoot, rest[1:]
	case rest == "~" || strings.HasPrefix(rest, "~/"):
		p.anchor, rest = anchorHome, strings.TrimPrefix(rest, "~")
	case strings.HasPrefix(rest, "/"):
		p.anchor = anchorSource
	default:
		p.anchor = anchorCwd
		for strings.HasPrefix(rest, "./") {
			rest = rest[2:]
		}
	}
	if p.anchor != anchorCwd && rest == "/" {
		// "//" or "~/" alone: everything under the anchor.
		rest = "/**"
	}
	pat, err := pathrule.Compile(rest)
	if err != nil {
		return nil, err
	}
	p.pat = pat
	return p, nil
}

// base is the directory the rule's pattern is relative to.
func (r *Rule) base(pc *Context) string {
	switch r.path.anchor {
	case anchorRoot:
		return "/"
	case anchorHome:
		return pc.home
	case anchorSource:
		if r.Root != "" {
			return r.Root
		}
		return pc.origCwd
	}
	return pc.cwd
}

// matchPath reports whether a Read/Edit rule covers the absolute path abs.
func (r *Rule) matchPath(pc *Context, abs string, isDir bool) bool {
	if r.path == nil {
		return false
	}
	base := r.base(pc)
	if base == "" {
		return false
	}
	rel, ok := relUnder(base, abs)
	if !ok {
		return false
	}
	return r.path.pat.Match(rel, isDir)
}

// relUnder returns path relative to base as a slash path ("" for base itself) when path is
// base or inside it. Comparison ignores case, like every path comparison of the engine.
func relUnder(base, path string) (string, bool) {
	base = filepath.Clean(base)
	path = filepath.Clean(path)
	if strings.EqualFold(base, path) {
		return "", true
	}
	prefix := base
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	if len(path) <= len(prefix) || !strings.EqualFold(path[:len(prefix)], prefix) {
		return "", false
	}
	return filepath.ToSlash(path[len(prefix):]), true
}
