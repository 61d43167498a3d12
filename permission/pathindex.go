package permission

import (
	"slices"
	"strings"

	"github.com/reinsdev/reins/pathrule"
)

// pathIndex narrows the Read or Edit rules of one behaviour to those that can match a path,
// so that a decision costs about the same with ten rules or ten thousand. It only ever
// proposes candidates: every candidate is still tested with matchPath, in load order, so the
// rule found (and reported in the trace) is the one a scan of every rule would find. The one
// promise it must keep is that a rule left out cannot match: a rule whose pattern does not
// start with plain text is proposed for every path under its base.
type pathIndex struct {
	rules  []*Rule
	groups []*baseGroup
}

// baseKind is which directory a group's patterns are relative to. The directories themselves
// are looked up at query time, because contexts that share the rules (and so the index) can
// differ in their current working directory.
type baseKind uint8

const (
	baseRoot    baseKind = iota // "//x"
	baseHome                    // "~/x"
	baseSource                  // "/x" with the rule's source root (the original cwd when it has none)
	baseCwd                     // "x": the current working directory
	baseCwdOrig                 // "x" deny and ask rules, matched from the original cwd as well
)

// baseGroup holds the rules that share one base directory.
type baseGroup struct {
	kind baseKind
	root string // lower-cased source root for baseSource; "" means the original cwd
	// lead is a trie of anchored patterns by their leading plain elements; a rule sits at the
	// node of its last plain element (the root node when it has none).
	lead trieNode
	// named holds unanchored patterns of one plain element ("secrets", ".env") by that name:
	// they match a path with such an element at any depth.
	named map[string][]int32
}

type trieNode struct {
	rules []int32
	kids  map[string]*trieNode
}

// linearLimit is the rule count up to which a plain scan is cheaper than the index.
const linearLimit = 8

// pathIndexKey is the memo key of the index of one behaviour's Read or Edit rules: a small
// integer, so that looking it up does not allocate.
type pathIndexKey uint8

// pathRules returns the content rules of behaviour b for a Read or Edit tool with their index,
// built once per set of rules.
func (c *Context) pathRules(b Behavior, tool string) pathIndex {
	rules := c.ContentRules(b, tool)
	if len(rules) <= linearLimit || tool != "Read" && tool != "Edit" {
		return pathIndex{rules: rules}
	}
	key := pathIndexKey(b) * 2
	if tool == "Edit" {
		key++
	}
	if v, ok := c.memo.Load(key); ok {
		return *v.(*pathIndex)
	}
	return *c.Memo(key, func() any { return newPathIndex(rules) }).(*pathIndex)
}

func newPathIndex(rules []*Rule) *pathIndex {
	x := &pathIndex{rules: rules}
	for i, r := range rules {
		if r.path == nil {
			continue // never matches a path
		}
		var kind baseKind
		root := ""
		switch r.path.anchor {
		case anchorRoot:
			kind = baseRoot
		case anchorHome:
			kind = baseHome
		case anchorSource:
			kind, root = baseSource, r.rootLower
		default:
			kind = baseCwd
			if r.Behavior != Allow {
				kind = baseCwdOrig
			}
		}
		g := x.group(kind, root)
		elems, anchored := r.path.pat.LiteralPrefix()
		switch {
		case len(elems) == 0:
			g.lead.rules = append(g.lead.rules, int32(i))
		case !anchored:
			if g.named == nil {
				g.named = map[string][]int32{}
			}
			g.named[elems[0]] = append(g.named[elems[0]], int32(i))
		default:
			n := &g.lead
			for _, e := range elems {
				next := n.kids[e]
				if next == nil {
					if n.kids == nil {
						n.kids = map[string]*trieNode{}
					}
					next = &trieNode{}
					n.kids[e] = next
				}
				n = next
			}
			n.rules = append(n.rules, int32(i))
		}
	}
	return x
}

func (x *pathIndex) group(kind baseKind, root string) *baseGroup {
	for _, g := range x.groups {
		if g.kind == kind && g.root == root {
			return g
		}
	}
	g := &baseGroup{kind: kind, root: root}
	x.groups = append(x.groups, g)
	return g
}

// candidates appends to buf, in load order and without repeats, the positions of the rules
// that may match some form.
func (x pathIndex) candidates(pc *Context, forms []pathForm, buf []int32) []int32 {
	for _, g := range x.groups {
		var bases [2]string
		switch g.kind {
		case baseRoot:
			bases[0] = "/"
		case baseHome:
			bases[0] = pc.lower.home
		case baseSource:
			bases[0] = g.root
			if bases[0] == "" {
				bases[0] = pc.lower.origCwd
			}
		case baseCwd:
			bases[0] = pc.lower.cwd
		case baseCwdOrig:
			bases[0] = pc.lower.cwd
			if pc.lower.cwd != pc.lower.origCwd {
				bases[1] = pc.lower.origCwd
			}
		}
		for _, base := range bases {
			if base == "" {
				continue // matchFrom never matches from an empty base
			}
			for _, f := range forms {
				if rel, ok := relUnder(base, f.lower); ok {
					buf = g.collect(rel, buf)
				}
			}
		}
	}
	slices.Sort(buf)
	return slices.Compact(buf)
}

// collect appends the rules of the group that may match rel (a lower-cased path relative to
// the group's base).
func (g *baseGroup) collect(rel string, buf []int32) []int32 {
	buf = append(buf, g.lead.rules...)
	n := &g.lead
	for rest := rel; rest != ""; {
		elem := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			elem, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		key := pathrule.FoldKey(elem)
		if n != nil {
			if n = n.kids[key]; n != nil {
				buf = append(buf, n.rules...)
			}
		}
		if g.named != nil {
			buf = append(buf, g.named[key]...)
		} else if n == nil {
			break
		}
	}
	return buf
}

// matchAny returns the first rule that covers any of the forms.
func (x pathIndex) matchAny(pc *Context, forms []pathForm) *Rule {
	if x.groups == nil {
		return pc.matchAny(x.rules, forms)
	}
	var arr [32]int32
	for _, i := range x.candidates(pc, forms, arr[:0]) {
		r := x.rules[i]
		for _, f := range forms {
			if r.matchPath(pc, f) {
				return r
			}
		}
	}
	return nil
}

// matchAll returns the first rule that covers every form.
func (x pathIndex) matchAll(pc *Context, forms []pathForm) *Rule {
	if x.groups == nil {
		return pc.matchAll(x.rules, forms)
	}
	var arr [32]int32
	// A rule that covers every form covers the first, so candidates for any form suffice.
	for _, i := range x.candidates(pc, forms, arr[:0]) {
		r := x.rules[i]
		all := true
		for _, f := range forms {
			if !r.matchPath(pc, f) {
				all = false
				break
			}
		}
		if all {
			return r
		}
	}
	return nil
}
