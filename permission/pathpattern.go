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

// compileBatch lets the rules of one context share the memory of their compiled path
// patterns (see pathrule.Batch); nil allocates each on its own.
type compileBatch struct {
	pats  pathrule.Batch
	paths []pathPattern
}

func (b *compileBatch) newPathPattern() *pathPattern {
	if b == nil {
		return &pathPattern{}
	}
	if len(b.paths) == cap(b.paths) {
		b.paths = make([]pathPattern, 0, min(64, max(4, 2*cap(b.paths))))
	}
	b.paths = b.paths[:len(b.paths)+1]
	return &b.paths[len(b.paths)-1]
}

func compilePathPattern(content string, b Behavior, batch *compileBatch) (*pathPattern, error) {
	var p pathPattern
	rest := content
	if r, ok := windowsRuleContent(rest); ok && filepath.Separator == '\\' {
		rest = r
	}
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
	// Git drops a trailing "/**" before deciding whether a pattern is anchored, so "src/**"
	// would match every src folder at any depth. For deny and ask rules that reach is the
	// safe side; an allow rule "src/**" means the project's src (Claude Code 2.1.214).
	if b == Allow && p.anchor == anchorCwd {
		if dir, ok := strings.CutSuffix(rest, "/**"); ok && dir != "" && !strings.Contains(dir, "/") {
			rest = "/" + rest
		}
	}
	var pat *pathrule.Pattern
	var err error
	if batch != nil {
		pat, err = batch.pats.Compile(rest)
	} else {
		pat, err = pathrule.Compile(rest)
	}
	if err != nil {
		return nil, err
	}
	p.pat = pat
	np := batch.newPathPattern()
	*np = p
	return np, nil
}

// base is the lower-cased directory the rule's pattern is relative to.
func (r *Rule) base(pc *Context) string {
	switch r.path.anchor {
	case anchorRoot:
		return "/"
	case anchorHome:
		return pc.lower.home
	case anchorSource:
		if r.rootLower != "" {
			return r.rootLower
		}
		return pc.lower.origCwd
	}
	return pc.lower.cwd
}

// matchPath reports whether a Read/Edit rule covers a path form. Comparison is
// case-insensitive: both sides are lower-cased once, not per rule.
func (r *Rule) matchPath(pc *Context, f pathForm) bool {
	if r.path == nil {
		return false
	}
	if r.matchFrom(r.base(pc), f) {
		return true
	}
	// Relative patterns follow the current directory, so once the shell has moved into src
	// a deny of "./.env" would stop covering the project's .env. Deny and ask rules are
	// matched from the original working directory as well.
	return r.path.anchor == anchorCwd && r.Behavior != Allow && pc.lower.cwd != pc.lower.origCwd && r.matchFrom(pc.lower.origCwd, f)
}

func (r *Rule) matchFrom(base string, f pathForm) bool {
	if base == "" {
		return false
	}
	rel, ok := relUnder(base, f.lower)
	if !ok {
		return false
	}
	return r.path.pat.Match(rel, f.dir)
}

// relUnder returns path relative to base as a slash path ("" for base itself) when path is
// base or inside it. Both must be clean, absolute and already folded (foldPath): every path
// comparison of the engine ignores case, and folding once per check is far cheaper than
// folding per rule.
func relUnder(base, path string) (string, bool) {
	if !strings.HasPrefix(path, base) {
		return "", false
	}
	if len(path) == len(base) {
		return "", true
	}
	if base[len(base)-1] == '/' {
		return path[len(base):], true // a root: "/", or a Windows drive's "/c/"
	}
	// The next byte must be a separator, so /proj_evil is not inside /proj.
	if path[len(base)] != '/' {
		return "", false
	}
	return path[len(base)+1:], true
}
