// Package schemax infers the model-facing JSON Schema of a tool input struct and tidies it
// the way tool schemas are written by hand.
//
// jsonschema.For describes a pointer or slice field as ["null", T]. Tool inputs use pointers
// only to tell "absent" from a zero value, and the model should never send null, so For turns
// every such union back into T. Everything else — required fields from the absence of
// omitempty, descriptions from `jsonschema:"..."` tags, additionalProperties false — is
// jsonschema-go's inference unchanged. Constraints a struct tag cannot express (enums,
// bounds, defaults) are added by the caller's patch function.
package schemax

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// For infers the schema of T, removes "null" from every type union and applies patch.
// It panics if T cannot be described: tool input types are fixed at compile time, so that is
// a programming error found by the first test that builds the tool.
func For[T any](patch func(s *jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("schemax.For: %v", err))
	}
	dropNull(s)
	if patch != nil {
		patch(s)
	}
	return s
}

func dropNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	for _, p := range s.Properties {
		dropNull(p)
	}
	dropNull(s.Items)
	if s.AdditionalProperties != nil {
		dropNull(s.AdditionalProperties)
	}
}

// Enum sets the allowed values of a string property.
func Enum(s *jsonschema.Schema, values ...string) {
	s.Enum = make([]any, len(values))
	for i, v := range values {
		s.Enum[i] = v
	}
}

// Default records a property's default value for the model to read.
func Default(s *jsonschema.Schema, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("schemax.Default: %v", err))
	}
	s.Default = b
}

// Ptr returns a pointer to v, for the bounds fields of a schema.
func Ptr[T any](v T) *T { return &v }
