package tool

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// InputError is input that does not fit a tool's schema. It lists every problem, so the model
// can fix them all in one retry.
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

// jsonType names the JSON type of a value decoded by encoding/json into any.
func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if x == math.Trunc(x) && !math.IsInf(x, 0) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func typeAllowed(want []string, got string) bool {
	for _, w := range want {
		if w == got || (w == "number" && got == "integer") {
			return true
		}
	}
	return false
}

func isFalseSchema(s *jsonschema.Schema) bool {
	return s != nil && s.Not != nil && s.Not.Type == "" && len(s.Not.Types) == 0 && s.Not.Properties == nil && s.Not.Not == nil
}

func child(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// validate checks v against the subset of JSON Schema that tool inputs use — type, required,
// properties, additionalProperties, items, enum, bounds — and returns every problem found.
func validate(s *jsonschema.Schema, v any, path string) []string {
	if s == nil {
		return nil
	}
	var issues []string
	want := s.Types
	if s.Type != "" {
		want = []string{s.Type}
	}
	got := jsonType(v)
	if len(want) > 0 && !typeAllowed(want, got) {
		name := path
		if name == "" {
			name = "input"
		}
		return []string{fmt.Sprintf("The parameter `%s` type is expected as `%s` but provided as `%s`", name, strings.Join(want, " | "), got)}
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { return fmt.Sprint(e) == fmt.Sprint(v) && jsonType(e) == got }) {
		opts := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			opts[i] = fmt.Sprintf("%v", e)
		}
		issues = append(issues, fmt.Sprintf("The parameter `%s` must be one of: %s (got %v)", path, strings.Join(opts, ", "), v))
	}
	switch x := v.(type) {
	case map[string]any:
		for _, r := range s.Required {
			if _, ok := x[r]; !ok {
				issues = append(issues, fmt.Sprintf("The required parameter `%s` is missing", child(path, r)))
			}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ps, ok := s.Properties[k]
			if !ok {
				if isFalseSchema(s.AdditionalProperties) {
					issues = append(issues, fmt.Sprintf("An unexpected parameter `%s` was provided", child(path, k)))
					continue
				}
				ps = s.AdditionalProperties
			}
			issues = append(issues, validate(ps, x[k], child(path, k))...)
		}
	case []any:
		if s.MinItems != nil && len(x) < *s.MinItems {
			issues = append(issues, fmt.Sprintf("The parameter `%s` needs at least %d item%s", path, *s.MinItems, plural(*s.MinItems)))
		}
		if s.MaxItems != nil && len(x) > *s.MaxItems {
			issues = append(issues, fmt.Sprintf("The parameter `%s` allows at most %d item%s", path, *s.MaxItems, plural(*s.MaxItems)))
		}
		for i, e := range x {
			issues = append(issues, validate(s.Items, e, fmt.Sprintf("%s[%d]", path, i))...)
		}
	case string:
		if s.MinLength != nil && len([]rune(x)) < *s.MinLength {
			issues = append(issues, fmt.Sprintf("The parameter `%s` must be at least %d character%s long", path, *s.MinLength, plural(*s.MinLength)))
		}
		if s.MaxLength != nil && len([]rune(x)) > *s.MaxLength {
			issues = append(issues, fmt.Sprintf("The parameter `%s` must be at most %d character%s long", path, *s.MaxLength, plural(*s.MaxLength)))
		}
	case float64:
		if s.Minimum != nil && x < *s.Minimum {
			issues = append(issues, fmt.Sprintf("The parameter `%s` must be at least %v", path, *s.Minimum))
		}
		if s.Maximum != nil && x > *s.Maximum {
			issues = append(issues, fmt.Sprintf("The parameter `%s` must be at most %v", path, *s.Maximum))
		}
		if s.ExclusiveMinimum != nil && x <= *s.ExclusiveMinimum {
			issues = append(issues, fmt.Sprintf("The parameter `%s` must be greater than %v", path, *s.ExclusiveMinimum))
		}
	}
	return issues
}
