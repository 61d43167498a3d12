package tool

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Limits on a schema's shape. jsonschema-go validates by plain recursion: a "$ref" that leads
// back to itself without stepping into a property or an item checks the same value forever,
// and the Go runtime ends the process on the stack overflow (no recover can catch it). A
// schema from outside (an MCP server) must not be able to do that, nor to make one value cost
// an exponential number of checks, so a schema is measured before it is used.
const (
	// MaxSchemaDepth is how deeply subschemas may nest (a tool's schema is rarely deeper
	// than ten).
	MaxSchemaDepth = 64
	// MaxSchemaChecksPerValue bounds the subschemas one value is checked against in one
	// step: allOf/anyOf/oneOf/not/if/then/else/dependentSchemas and references, followed
	// through without descending into the value.
	MaxSchemaChecksPerValue = 10_000
)

// maxSchemaJSONDepth bounds the nesting of a schema's JSON text: a subschema level takes at
// most two (`"properties": {"a": {…}}`), and values (enum, const, default) get the rest.
const maxSchemaJSONDepth = 4 * MaxSchemaDepth

// CheckSchemaDepth refuses schema text nested deeper than a schema may be, before it is
// parsed: jsonschema-go's Schema.UnmarshalJSON takes time quadratic in the depth (a
// 5,000-level schema, 180 KB, took 17 s), so the depth must be known first. Text that is not
// JSON is left to the parser to report.
func CheckSchemaDepth(raw []byte) error {
	depth, inString, escaped := 0, false, false
	for i, c := range raw {
		switch {
		case escaped:
			escaped = false
		case inString:
			switch c {
			case '\\':
				escaped = true
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			if depth > maxSchemaJSONDepth {
				return fmt.Errorf("the schema nests deeper than %d levels (its JSON is %d deep at byte %d)", MaxSchemaDepth, maxSchemaJSONDepth, i)
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return nil
}

// CheckSchemaShape reports a schema whose validation would not end or would explode: a cycle
// of references that comes back to a schema without consuming any of the value (`{"$ref":"#"}`,
// `$defs` that refer to each other through allOf/anyOf/…), nesting deeper than
// [MaxSchemaDepth], or more than [MaxSchemaChecksPerValue] checks of one value. A recursive
// schema whose recursion goes through "properties", "items" and the like is fine: each step
// consumes a level of the value, whose depth encoding/json bounds.
//
// s must have been resolved (every reference leads somewhere); a reference this check cannot
// follow as jsonschema-go did is an error too, so that the answer is never "fine" by mistake.
func CheckSchemaShape(s *jsonschema.Schema) error {
	g := &shapeGraph{
		loc:     map[*jsonschema.Schema]string{},
		same:    map[*jsonschema.Schema][]*jsonschema.Schema{},
		kids:    map[*jsonschema.Schema]map[string]*jsonschema.Schema{},
		base:    map[*jsonschema.Schema]*jsonschema.Schema{},
		uri:     map[*jsonschema.Schema]*url.URL{},
		byURI:   map[string]*jsonschema.Schema{},
		anchors: map[*jsonschema.Schema]map[string]*jsonschema.Schema{},
		dynamic: map[string][]*jsonschema.Schema{},
		draft7:  strings.Contains(s.Schema, "draft-07"),
	}
	g.uri[s] = &url.URL{}
	g.byURI[""] = s
	if err := g.walk(s, s, "#", 0); err != nil {
		return err
	}
	if err := g.linkRefs(); err != nil {
		return err
	}
	return g.checkCycles()
}

// shapeGraph is a schema as a graph: its subschemas, and for each the subschemas the same
// value is checked against next (same).
type shapeGraph struct {
	order []*jsonschema.Schema
	loc   map[*jsonschema.Schema]string // JSON pointer from the root, for messages
	same  map[*jsonschema.Schema][]*jsonschema.Schema
	// kids are the subschemas by pointer segments ("not", "allOf\x000"), for JSON pointers.
	kids map[*jsonschema.Schema]map[string]*jsonschema.Schema
	// base is each schema's resource (the nearest with an $id, or the root); uri and byURI
	// name resources; anchors are each resource's anchors; dynamic, the $dynamicAnchors.
	base    map[*jsonschema.Schema]*jsonschema.Schema
	uri     map[*jsonschema.Schema]*url.URL
	byURI   map[string]*jsonschema.Schema
	anchors map[*jsonschema.Schema]map[string]*jsonschema.Schema
	dynamic map[string][]*jsonschema.Schema
	draft7  bool
}

type subschema struct {
	seg  string // pointer segments joined by \x00
	s    *jsonschema.Schema
	same bool // checked against the same value as its parent
}

// subschemas lists a schema's children: those checked against the same value (logic and
// conditionals) and those checked against part of it (properties, items, …) or never ($defs).
func subschemas(s *jsonschema.Schema) []subschema {
	var out []subschema
	one := func(kw string, c *jsonschema.Schema, same bool) {
		if c != nil {
			out = append(out, subschema{kw, c, same})
		}
	}
	list := func(kw string, cs []*jsonschema.Schema, same bool) {
		for i, c := range cs {
			one(kw+"\x00"+strconv.Itoa(i), c, same)
		}
	}
	byName := func(kw string, m map[string]*jsonschema.Schema, same bool) {
		for _, k := range sortedKeys(m) {
			one(kw+"\x00"+k, m[k], same)
		}
	}
	list("allOf", s.AllOf, true)
	list("anyOf", s.AnyOf, true)
	list("oneOf", s.OneOf, true)
	one("not", s.Not, true)
	one("if", s.If, true)
	one("then", s.Then, true)
	one("else", s.Else, true)
	byName("dependentSchemas", s.DependentSchemas, true)
	byName("dependencies", s.DependencySchemas, true)

	byName("$defs", s.Defs, false)
	byName("definitions", s.Definitions, false)
	byName("properties", s.Properties, false)
	byName("patternProperties", s.PatternProperties, false)
	one("additionalProperties", s.AdditionalProperties, false)
	one("propertyNames", s.PropertyNames, false)
	one("unevaluatedProperties", s.UnevaluatedProperties, false)
	one("items", s.Items, false)
	list("items", s.ItemsArray, false)
	list("prefixItems", s.PrefixItems, false)
	one("additionalItems", s.AdditionalItems, false)
	one("contains", s.Contains, false)
	one("unevaluatedItems", s.UnevaluatedItems, false)
	one("contentSchema", s.ContentSchema, false)
	return out
}

func sortedKeys(m map[string]*jsonschema.Schema) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// walk records every subschema, its location, its resource and anchors (as jsonschema-go's
// resolveURIs does), and the same-value edges of the tree.
func (g *shapeGraph) walk(s, base *jsonschema.Schema, loc string, depth int) error {
	if depth > MaxSchemaDepth {
		return fmt.Errorf("the schema nests deeper than %d levels (at %s)", MaxSchemaDepth, shortLoc(loc))
	}
	if _, seen := g.loc[s]; seen {
		return fmt.Errorf("the schema at %s appears twice in the tree", loc)
	}
	g.order = append(g.order, s)
	g.loc[s] = loc
	if s.ID != "" && !(g.draft7 && s.Ref != "") {
		id, err := url.Parse(s.ID)
		if err != nil {
			return fmt.Errorf("$id %q at %s: %w", s.ID, loc, err)
		}
		if g.draft7 && id.Fragment != "" {
			g.addAnchor(base, strings.TrimPrefix(s.ID, "#"), s)
		} else {
			u := g.uri[base].ResolveReference(id)
			g.uri[s], g.byURI[u.String()] = u, s
			base = s
		}
	}
	g.base[s] = base
	if !g.draft7 {
		g.addAnchor(base, s.Anchor, s)
		g.addAnchor(base, s.DynamicAnchor, s)
		if s.DynamicAnchor != "" {
			g.dynamic[s.DynamicAnchor] = append(g.dynamic[s.DynamicAnchor], s)
		}
	}
	g.kids[s] = map[string]*jsonschema.Schema{}
	for _, c := range subschemas(s) {
		g.kids[s][c.seg] = c.s
		if c.same {
			g.same[s] = append(g.same[s], c.s)
		}
		if err := g.walk(c.s, base, loc+"/"+strings.ReplaceAll(c.seg, "\x00", "/"), depth+1); err != nil {
			return err
		}
	}
	return nil
}

func (g *shapeGraph) addAnchor(base *jsonschema.Schema, name string, s *jsonschema.Schema) {
	if name == "" {
		return
	}
	if g.anchors[base] == nil {
		g.anchors[base] = map[string]*jsonschema.Schema{}
	}
	g.anchors[base][name] = s
}

// linkRefs adds the same-value edges of "$ref" and "$dynamicRef". A dynamic reference may
// land on any schema with its anchor, so it gets an edge to each.
func (g *shapeGraph) linkRefs() error {
	for _, s := range g.order {
		if s.Ref != "" {
			t, _, err := g.follow(s, s.Ref)
			if err != nil {
				return err
			}
			g.same[s] = append(g.same[s], t)
		}
		if s.DynamicRef != "" {
			t, anchor, err := g.follow(s, s.DynamicRef)
			if err != nil {
				return err
			}
			g.same[s] = append(g.same[s], t)
			if anchor != "" {
				g.same[s] = append(g.same[s], g.dynamic[anchor]...)
			}
		}
	}
	return nil
}

// follow finds what a reference in s refers to, as jsonschema-go's resolveRef does. anchor is
// set when it lands on a $dynamicAnchor.
func (g *shapeGraph) follow(s *jsonschema.Schema, ref string) (_ *jsonschema.Schema, anchor string, err error) {
	fail := func(why string) (*jsonschema.Schema, string, error) {
		return nil, "", fmt.Errorf("cannot follow the reference %q at %s: %s", ref, g.loc[s], why)
	}
	r, err := url.Parse(ref)
	if err != nil {
		return fail(err.Error())
	}
	r = g.uri[g.base[s]].ResolveReference(r)
	frag := r.Fragment
	r.Fragment, r.RawFragment = "", ""
	res := g.byURI[r.String()]
	if res == nil {
		return fail("it is not in the schema")
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		t := g.anchors[res][frag]
		if t == nil {
			return fail("no such anchor")
		}
		if t.DynamicAnchor == frag {
			anchor = frag
		}
		return t, anchor, nil
	}
	t := res
	segs := strings.Split(frag, "/")[1:]
	for i := 0; i < len(segs); i++ {
		seg := unescapePointer(segs[i])
		if c := g.kids[t][seg]; c != nil {
			t = c
			continue
		}
		if i+1 < len(segs) {
			if c := g.kids[t][seg+"\x00"+unescapePointer(segs[i+1])]; c != nil {
				t = c
				i++
				continue
			}
		}
		return fail("no subschema at " + frag)
	}
	return t, "", nil
}

func unescapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// checkCycles looks for a cycle of same-value edges (depth-first, the path kept for the
// message), and counts the checks one value can cost.
func (g *shapeGraph) checkCycles() error {
	const (
		unseen = iota
		onPath
		done
	)
	state := map[*jsonschema.Schema]int{}
	cost := map[*jsonschema.Schema]int{}
	var path []*jsonschema.Schema
	var visit func(s *jsonschema.Schema) error
	visit = func(s *jsonschema.Schema) error {
		state[s] = onPath
		path = append(path, s)
		n := 1
		for _, t := range g.same[s] {
			switch state[t] {
			case onPath:
				return g.cycleError(path[slices.Index(path, t):], t)
			case unseen:
				if err := visit(t); err != nil {
					return err
				}
			}
			n += cost[t]
			if n > MaxSchemaChecksPerValue {
				return fmt.Errorf("one value would be checked against more than %d subschemas starting at %s", MaxSchemaChecksPerValue, shortLoc(g.loc[s]))
			}
		}
		cost[s] = n
		state[s] = done
		path = path[:len(path)-1]
		return nil
	}
	for _, s := range g.order {
		if state[s] == unseen {
			if err := visit(s); err != nil {
				return err
			}
		}
	}
	return nil
}

func (g *shapeGraph) cycleError(cycle []*jsonschema.Schema, back *jsonschema.Schema) error {
	var locs []string
	for _, s := range cycle {
		locs = append(locs, shortLoc(g.loc[s]))
	}
	locs = append(locs, shortLoc(g.loc[back]))
	return errors.New("its references loop without consuming any of the value, so checking an input would never end: " + strings.Join(locs, " → "))
}

// shortLoc keeps a location readable in a one-line message.
func shortLoc(loc string) string {
	const max = 120
	if len(loc) <= max {
		return loc
	}
	return loc[:max/2] + "…" + loc[len(loc)-max/2:]
}
