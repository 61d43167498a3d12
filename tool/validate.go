package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// InputError is input that does not fit a tool's schema. It lists every problem it found, so
// the model can fix them in one retry. Its text is the model-facing InputValidationError of
// Claude Code.
type InputError struct {
	Tool   string
	Issues []string
}

func (e *InputError) Error() string {
	return fmt.Sprintf("InputValidationError: %s failed due to the following issue%s:\n%s",
		e.Tool, plural(len(e.Issues)), strings.Join(e.Issues, "\n"))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// inputSchema is a tool's input schema, resolved once. jsonschema-go decides whether an input
// is valid; since it stops at the first problem (and visits properties in map order), a
// failed input is checked again one top-level property at a time, so the model hears about
// every bad parameter, in a stable order.
type inputSchema struct {
	root     *jsonschema.Schema
	resolved *jsonschema.Resolved
}

// resolvedSchemas caches resolved schemas by their JSON. Tools are built again with the same
// schema — each sub-agent's shell builds Bash, TaskOutput and TaskStop — and resolving is most
// of what building costs. A resolved schema is only read after Resolve, so sharing it is safe.
// The cache is bounded so that servers that keep changing their schemas cannot grow it.
var resolvedSchemas struct {
	sync.Mutex
	m map[string]*inputSchema
}

const maxResolvedSchemas = 1024

func resolveSchema(s *jsonschema.Schema, schemaJSON []byte) (*inputSchema, error) {
	key := string(schemaJSON)
	resolvedSchemas.Lock()
	cached := resolvedSchemas.m[key]
	resolvedSchemas.Unlock()
	if cached != nil {
		return cached, nil
	}
	// The shape is checked between a plain resolution (which only follows references) and
	// the one that validates defaults, since validating a default can itself recurse without
	// end.
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, err
	}
	if err := CheckSchemaShape(s); err != nil {
		return nil, err
	}
	if bytes.Contains(schemaJSON, []byte(`"default"`)) {
		if r, err = s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true}); err != nil {
			return nil, err
		}
	}
	is := &inputSchema{root: s, resolved: r}
	resolvedSchemas.Lock()
	if resolvedSchemas.m == nil || len(resolvedSchemas.m) >= maxResolvedSchemas {
		resolvedSchemas.m = map[string]*inputSchema{}
	}
	resolvedSchemas.m[key] = is
	resolvedSchemas.Unlock()
	return is, nil
}

// check applies the schema's defaults to v (decoded JSON) and validates it. It returns every
// problem it can name, in Claude Code's words where Claude Code has words for it.
func (s *inputSchema) check(v *any) (issues []string) {
	if err := s.applyDefaults(v); err != nil {
		return []string{fmt.Sprintf("The input does not fit the schema's defaults: %v", err)}
	}
	err := ValidateSafely(s.resolved, *v)
	if err == nil {
		return nil
	}
	issues = s.explain(*v)
	if len(issues) == 0 {
		issues = []string{describe("", "", err)}
	}
	return issues
}

// applyDefaults fills defaults in; jsonschema-go documents that it may panic on values it
// cannot assign, which is a bad input, not a crash.
func (s *inputSchema) applyDefaults(v *any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return s.resolved.ApplyDefaults(v)
}

// ValidateSafely is r.Validate(v) with a panic of the validator turned into an error, so that
// a bug of jsonschema-go on some schema is the call's error result, not the end of the
// process. (A stack overflow cannot be recovered: [CheckSchemaShape] keeps schemas that
// would recurse without end out.)
func ValidateSafely(r *jsonschema.Resolved, v any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the input schema could not be checked: the validator failed: %v", p)
		}
	}()
	return r.Validate(v)
}

// explain lists the problems of an object input parameter by parameter: missing required
// parameters, unexpected ones, then each present parameter against its own schema.
func (s *inputSchema) explain(v any) []string {
	obj, ok := v.(map[string]any)
	if !ok || s.root.Properties == nil {
		return nil
	}
	var issues []string
	for _, r := range s.root.Required {
		if _, ok := obj[r]; !ok {
			issues = append(issues, fmt.Sprintf("The required parameter `%s` is missing", r))
		}
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if isFalseSchema(s.root.AdditionalProperties) && len(s.root.PatternProperties) == 0 {
		for _, k := range keys {
			if _, ok := s.root.Properties[k]; !ok {
				issues = append(issues, fmt.Sprintf("An unexpected parameter `%s` was provided", k))
			}
		}
	}
	for _, k := range keys {
		if _, ok := s.root.Properties[k]; !ok {
			continue
		}
		r, err := s.propertyOnly(k)
		if err != nil {
			continue // the whole-input error is reported instead
		}
		if err := ValidateSafely(r, map[string]any{k: obj[k]}); err != nil {
			issues = append(issues, describeItem(r, k, obj[k], err))
		}
	}
	return issues
}

// propertyOnly is the root schema reduced to one property, keeping $defs so references still
// resolve. It is built from a JSON copy: jsonschema-go requires every schema to be a tree.
func (s *inputSchema) propertyOnly(name string) (*jsonschema.Resolved, error) {
	b, err := json.Marshal(s.root)
	if err != nil {
		return nil, err
	}
	var c jsonschema.Schema
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, err
	}
	only := &jsonschema.Schema{
		Schema:      c.Schema,
		ID:          c.ID,
		Defs:        c.Defs,
		Definitions: c.Definitions,
		Properties:  map[string]*jsonschema.Schema{name: c.Properties[name]},
	}
	r, err := only.Resolve(nil)
	if err != nil {
		return nil, err
	}
	return r, CheckSchemaShape(only)
}

// describeItem describes a parameter's error; when it lies in an array's items it names the
// first item that fails ("tags[2].name"), found by validating the items one at a time.
func describeItem(r *jsonschema.Resolved, name string, v any, err error) string {
	base := "/properties/" + name
	msg := describe(name, base, err)
	arr, ok := v.([]any)
	if loc, _ := unwrapValidation(err); !ok || !strings.HasPrefix(loc, base+"/items") {
		return msg
	}
	for i, e := range arr {
		if ierr := ValidateSafely(r, map[string]any{name: []any{e}}); ierr != nil {
			return strings.Replace(describe(name, base, ierr), "`"+name+"[]", fmt.Sprintf("`%s[%d]", name, i), 1)
		}
	}
	return msg
}

func isFalseSchema(s *jsonschema.Schema) bool {
	return s != nil && s.Not != nil && s.Not.Type == "" && len(s.Not.Types) == 0 && s.Not.Properties == nil && s.Not.Not == nil
}

var (
	reType    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`has type "([^"]+)", want (?:one of )?"([^"]+)"`) })
	reEnum    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.*) does not equal any of: \[(.*)\]$`) })
	reNumber  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(-?[0-9.e+]+)$`) })
	reCount   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`([0-9]+)$`) })
	reMissing = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`missing properties: \[(.*)\]`) })
	reExtra   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`unexpected additional properties \[(.*)\]`) })
	rePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`does not match regular expression "(.*)"$`) })
)

// describe turns a jsonschema-go validation error into one sentence for the model. param is
// the top-level parameter the error is about ("" for the whole input) and base the schema
// location of that parameter, so a deeper location names a nested parameter.
func describe(param, base string, err error) string {
	loc, leaf := unwrapValidation(err)
	name := param
	if rest, ok := strings.CutPrefix(loc, base); ok && base != "" {
		name += nestedName(rest)
	}
	if name == "" {
		name = "input"
	}
	keyword, detail, _ := strings.Cut(leaf, ": ")
	first, _, _ := strings.Cut(detail, "\n")
	switch keyword {
	case "type":
		if m := reType().FindStringSubmatch(detail); m != nil {
			want := strings.ReplaceAll(m[2], ", ", " | ")
			return fmt.Sprintf("The parameter `%s` type is expected as `%s` but provided as `%s`", name, want, m[1])
		}
	case "enum":
		if m := reEnum().FindStringSubmatch(detail); m != nil {
			return fmt.Sprintf("The parameter `%s` must be one of: %s (got %s)", name, strings.Join(strings.Fields(m[2]), ", "), m[1])
		}
	case "const":
		return fmt.Sprintf("The parameter `%s` has the wrong value: %s", name, detail)
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		words := map[string]string{"minimum": "at least", "maximum": "at most", "exclusiveMinimum": "greater than", "exclusiveMaximum": "less than"}
		if m := reNumber().FindStringSubmatch(detail); m != nil {
			if f, err := strconv.ParseFloat(m[1], 64); err == nil {
				return fmt.Sprintf("The parameter `%s` must be %s %s", name, words[keyword], strconv.FormatFloat(f, 'f', -1, 64))
			}
		}
	case "minLength", "maxLength", "minItems", "maxItems":
		if m := reCount().FindStringSubmatch(detail); m != nil {
			n, _ := strconv.Atoi(m[1])
			switch keyword {
			case "minLength":
				return fmt.Sprintf("The parameter `%s` must be at least %d character%s long", name, n, plural(n))
			case "maxLength":
				return fmt.Sprintf("The parameter `%s` must be at most %d character%s long", name, n, plural(n))
			case "minItems":
				return fmt.Sprintf("The parameter `%s` needs at least %d item%s", name, n, plural(n))
			default:
				return fmt.Sprintf("The parameter `%s` allows at most %d item%s", name, n, plural(n))
			}
		}
	case "pattern":
		if m := rePattern().FindStringSubmatch(detail); m != nil {
			return fmt.Sprintf("The parameter `%s` must match the pattern `%s`", name, m[1])
		}
	case "required":
		if m := reMissing().FindStringSubmatch(detail); m != nil {
			return fmt.Sprintf("The required parameter `%s` is missing", joinName(name, param, unquoteList(m[1])))
		}
	case "anyOf", "oneOf":
		if strings.Contains(first, "validated against both") {
			return fmt.Sprintf("The parameter `%s` matches more than one of the allowed forms", name)
		}
		return fmt.Sprintf("The parameter `%s` does not match any of the allowed forms", name)
	}
	if m := reExtra().FindStringSubmatch(leaf); m != nil {
		return fmt.Sprintf("An unexpected parameter `%s` was provided", joinName(name, param, unquoteList(m[1])))
	}
	return fmt.Sprintf("The parameter `%s` is invalid: %s", name, first)
}

// joinName names a property inside the parameter name ("" and "input" mean the input
// itself).
func joinName(name, param, props string) string {
	if name == "input" && param == "" {
		return props
	}
	return name + "." + props
}

func unquoteList(s string) string {
	var out []string
	for _, f := range strings.Fields(s) {
		if u, err := strconv.Unquote(f); err == nil {
			f = u
		}
		out = append(out, f)
	}
	return strings.Join(out, ", ")
}

// unwrapValidation splits jsonschema-go's "validating LOC: validating LOC: leaf" chain into
// the innermost schema location and the leaf message.
func unwrapValidation(err error) (loc, leaf string) {
	msg := err.Error()
	for {
		rest, ok := strings.CutPrefix(msg, "validating ")
		if !ok {
			break
		}
		l, tail, ok := strings.Cut(rest, ": ")
		if !ok {
			break
		}
		loc, msg = l, tail
	}
	if loc == "root" {
		loc = ""
	}
	return loc, msg
}

// nestedName turns a schema location below a parameter ("/items/properties/name") into the
// part of a parameter name it stands for ("[].name"). A location through a combinator or a
// reference stops the name where it can no longer say which value it is.
func nestedName(loc string) string {
	var b strings.Builder
	segs := strings.Split(strings.TrimPrefix(loc, "/"), "/")
	for i := 0; i < len(segs); i++ {
		switch segs[i] {
		case "":
		case "properties":
			if i+1 < len(segs) {
				b.WriteString("." + segs[i+1])
				i++
			}
		case "items", "additionalItems":
			b.WriteString("[]")
		case "prefixItems":
			if i+1 < len(segs) {
				b.WriteString("[" + segs[i+1] + "]")
				i++
			}
		default:
			return b.String()
		}
	}
	return b.String()
}
