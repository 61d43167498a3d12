package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

func rawTool(raw string) (Tool, error) {
	return New(Def[map[string]any]{Name: "T", RawSchema: json.RawMessage(raw),
		Call: func(context.Context, map[string]any, *Env) (Result, error) { return Result{}, nil }})
}

// nested is a schema whose property "a" holds n levels of {"properties":{"a":…}}.
func nested(n int) string {
	return strings.Repeat(`{"type":"object","properties":{"a":`, n) + `{"type":"string"}` + strings.Repeat(`}}`, n)
}

// fanOut is a schema whose every level checks the level below twice through allOf: one
// value costs about 2^levels checks, with no loop.
func fanOut(levels int) string {
	defs := `"l0":{"type":"object"}`
	for i := 1; i <= levels; i++ {
		defs += fmt.Sprintf(`,"l%d":{"allOf":[{"$ref":"#/$defs/l%d"},{"$ref":"#/$defs/l%d"}]}`, i, i-1, i-1)
	}
	return fmt.Sprintf(`{"type":"object","$ref":"#/$defs/l%d","$defs":{%s}}`, levels, defs)
}

// TestSchemaShape: a schema whose references loop back without consuming any of the value,
// nests too deeply, or makes one value cost too many checks is refused when the tool is built
// (before, Decode overflowed the stack and the process died); recursion through properties and
// items, anchors, $id resources and dynamic references still build and validate.
func TestSchemaShape(t *testing.T) {
	refused := []struct {
		name, schema, want string
	}{
		{"self ref at the root", `{"type":"object","$ref":"#"}`, "# → #"},
		{"two defs referring to each other", `{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"$ref":"#/$defs/y"},"y":{"$ref":"#/$defs/x"}}}`, "#/$defs/x → #/$defs/y → #/$defs/x"},
		{"through anyOf", `{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"anyOf":[{"type":"string"},{"$ref":"#/$defs/x"}]}}}`, "#/$defs/x/anyOf/1 → #/$defs/x"},
		{"through allOf and not", `{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"allOf":[{"$ref":"#/$defs/y"}]},"y":{"not":{"$ref":"#/$defs/x"}}}}`, "#/$defs/y/not → #/$defs/x"},
		{"through if/then/else", `{"type":"object","if":{"$ref":"#"}}`, "#/if → #"},
		{"through dependentSchemas", `{"type":"object","dependentSchemas":{"a":{"$ref":"#"}}}`, "#/dependentSchemas/a → #"},
		{"through an anchor", `{"type":"object","properties":{"a":{"$ref":"#x"}},"$defs":{"x":{"$anchor":"x","oneOf":[{"$ref":"#x"}]}}}`, "#/$defs/x/oneOf/0 → #/$defs/x"},
		{"through an $id resource", `{"$id":"https://example.com/root","type":"object","properties":{"a":{"$ref":"other"}},"$defs":{"o":{"$id":"other","allOf":[{"$ref":"https://example.com/other"}]}}}`, "#/$defs/o/allOf/0 → #/$defs/o"},
		{"draft-07 definitions", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"$ref":"#/definitions/x"}},"definitions":{"x":{"$ref":"#/definitions/x"}}}`, "#/definitions/x → #/definitions/x"},
		{"a looping default", `{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"$ref":"#/$defs/x","default":1}}}`, "#/$defs/x → #/$defs/x"},
		{"too deep", nested(MaxSchemaDepth + 1), "nests deeper than 64 levels"},
		// Refused by the scan of the text, before jsonschema-go parses it (its parser is
		// quadratic in the depth: this one took 17 s).
		{"as deep as encoding/json reads", nested(4990), "its JSON is 256 deep at byte"},
		{"exponential checks", fanOut(14), "more than 10000 subschemas"},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			_, err := rawTool(c.schema)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("New = %v, want an error containing %q", err, c.want)
			}
		})
	}

	accepted := []struct {
		name, schema, good, bad string
	}{
		{"a tree through items", `{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#"}}},"required":["name"]}`,
			`{"name":"a","children":[{"name":"b","children":[{"name":"c"}]}]}`, `{"name":"a","children":[{"name":"b","children":[{}]}]}`},
		{"a list through a def's property", `{"type":"object","properties":{"head":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","properties":{"v":{"type":"integer"},"next":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/node"}]}}}}}`,
			`{"head":{"v":1,"next":{"v":2,"next":null}}}`, `{"head":{"v":1,"next":{"v":"x"}}}`},
		{"recursion through additionalProperties", `{"type":"object","additionalProperties":{"$ref":"#"}}`, `{"a":{"b":{}}}`, `{"a":{"b":1}}`},
		{"a dynamic reference", `{"$id":"https://example.com/tree","$dynamicAnchor":"node","type":"object","properties":{"kids":{"type":"array","items":{"$dynamicRef":"#node"}}}}`,
			`{"kids":[{"kids":[]}]}`, `{"kids":[1]}`},
		{"a shared def used twice", `{"type":"object","properties":{"a":{"$ref":"#/$defs/s"},"b":{"allOf":[{"$ref":"#/$defs/s"},{"$ref":"#/$defs/s"}]}},"$defs":{"s":{"type":"string"}}}`,
			`{"a":"x","b":"y"}`, `{"b":1}`},
		{"deep but within the limit", nested(MaxSchemaDepth), `{}`, `{"a":1}`},
		{"many checks but within the limit", fanOut(10), `{}`, `1`},
	}
	for _, c := range accepted {
		t.Run(c.name, func(t *testing.T) {
			tl, err := rawTool(c.schema)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tl.Decode(json.RawMessage(c.good)); err != nil {
				t.Errorf("valid input refused: %v", err)
			}
			if _, err := tl.Decode(json.RawMessage(c.bad)); err == nil {
				t.Errorf("invalid input %s accepted", c.bad)
			}
		})
	}
}

// TestValidateSafelyTurnsAPanicIntoAnError: a validator bug is an error, not a crash.
func TestValidateSafelyTurnsAPanicIntoAnError(t *testing.T) {
	var r *jsonschema.Resolved // Validate on nil panics
	if err := ValidateSafely(r, map[string]any{}); err == nil || !strings.Contains(err.Error(), "validator failed") {
		t.Fatalf("ValidateSafely = %v", err)
	}
}

// FuzzSchemaShape: any schema that resolves and passes CheckSchemaShape can check inputs
// without crashing (a missed loop would overflow the stack and kill the fuzzer).
func FuzzSchemaShape(f *testing.F) {
	f.Add(`{"type":"object","properties":{"a":{"$ref":"#"}}}`, `{"a":{"a":{}}}`)
	f.Add(`{"type":"object","$ref":"#"}`, `{}`)
	f.Add(`{"type":"object","$defs":{"x":{"anyOf":[{"$ref":"#/$defs/y"}]},"y":{"allOf":[{"$ref":"#/$defs/x"}]}},"properties":{"p":{"$ref":"#/$defs/x"}}}`, `{"p":1}`)
	f.Add(`{"$id":"https://e.com/r","$dynamicAnchor":"n","type":"object","properties":{"k":{"items":{"$dynamicRef":"#n"}}}}`, `{"k":[{"k":[]}]}`)
	f.Fuzz(func(t *testing.T, schema, input string) {
		var s jsonschema.Schema
		if json.Unmarshal([]byte(schema), &s) != nil {
			return
		}
		if _, err := s.Resolve(nil); err != nil {
			return
		}
		if CheckSchemaShape(&s) != nil {
			return
		}
		tl, err := rawTool(schema)
		if err != nil {
			return
		}
		_, _ = tl.Decode(json.RawMessage(input))
	})
}

// BenchmarkCheckSchemaShape measures the check on a recursive schema with anchors and an
// allOf fan-out of about 4,000 checks per value.
func BenchmarkCheckSchemaShape(b *testing.B) {
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(fanOut(10)), &s); err != nil {
		b.Fatal(err)
	}
	if _, err := s.Resolve(nil); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := CheckSchemaShape(&s); err != nil {
			b.Fatal(err)
		}
	}
}

// jsonDepth is the nesting depth of valid JSON, found by encoding/json's tokenizer.
func jsonDepth(raw []byte) (int, bool) {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	depth, most := 0, 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return most, err.Error() == "EOF"
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
			most = max(most, depth)
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}

// TestCheckSchemaDepth: brackets in strings (escaped quotes included) do not count; the limit
// is on the text's nesting.
func TestCheckSchemaDepth(t *testing.T) {
	deep := strings.Repeat("[", maxSchemaJSONDepth+1) + strings.Repeat("]", maxSchemaJSONDepth+1)
	for _, c := range []struct {
		raw string
		ok  bool
	}{
		{`{"pattern":"` + strings.Repeat("[{", 1000) + `"}`, true},
		{`{"pattern":"\"` + strings.Repeat("[", 1000) + `"}`, true},
		{`{"pattern":"\\\\"}`, true},
		{`{"enum":[` + strings.Repeat("[", maxSchemaJSONDepth-2) + strings.Repeat("]", maxSchemaJSONDepth-2) + `]}`, true},
		{`{"enum":[` + deep + `]}`, false},
		{`{"pattern":"\\"` + `,"enum":` + deep + `}`, false},
	} {
		if err := CheckSchemaDepth([]byte(c.raw)); (err == nil) != c.ok {
			t.Errorf("CheckSchemaDepth(%.60s…) = %v, want ok %v", c.raw, err, c.ok)
		}
	}
}

// FuzzCheckSchemaDepth: on valid JSON the scan agrees with encoding/json's tokenizer.
func FuzzCheckSchemaDepth(f *testing.F) {
	f.Add(`{"a":"[\"{"}`)
	f.Add(`[[["\\"]]]`)
	f.Add(strings.Repeat("[", 300) + strings.Repeat("]", 300))
	f.Fuzz(func(t *testing.T, raw string) {
		d, ok := jsonDepth([]byte(raw))
		if !ok || !json.Valid([]byte(raw)) {
			return
		}
		if err := CheckSchemaDepth([]byte(raw)); (err == nil) != (d <= maxSchemaJSONDepth) {
			t.Fatalf("depth %d, CheckSchemaDepth = %v", d, err)
		}
	})
}
