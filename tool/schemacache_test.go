package tool

import (
	"context"
	"encoding/json"
	"testing"
)

// Tools built again with the same schema share its resolution; a different schema never
// gets another's.
func TestResolvedSchemasAreSharedOnlyBetweenEqualSchemas(t *testing.T) {
	build := func(raw string) *built[map[string]any] {
		tl, err := New(Def[map[string]any]{Name: "T", RawSchema: json.RawMessage(raw),
			Call: func(context.Context, map[string]any, *Env) (Result, error) { return Result{}, nil }})
		if err != nil {
			t.Fatal(err)
		}
		return tl.(*built[map[string]any])
	}
	a := build(`{"type":"object","properties":{"n":{"type":"integer","maximum":3}},"required":["n"]}`)
	b := build(`{"type":"object","properties":{"n":{"type":"integer","maximum":3}},"required":["n"]}`)
	c := build(`{"type":"object","properties":{"n":{"type":"integer","maximum":5}},"required":["n"]}`)
	if a.schema() != b.schema() {
		t.Error("equal schemas were resolved twice")
	}
	if a.schema() == c.schema() {
		t.Fatal("different schemas share a resolution")
	}
	if _, err := a.Decode(json.RawMessage(`{"n":4}`)); err == nil {
		t.Error("maximum 3 accepted 4")
	}
	if _, err := c.Decode(json.RawMessage(`{"n":4}`)); err != nil {
		t.Errorf("maximum 5 refused 4: %v", err)
	}
}

type lazyIn struct {
	OnlyInThisTest int `json:"only_in_this_test" jsonschema:"a field no other schema has"`
}

// TestBuildResolvesInferredSchemaOnFirstUse: a tool whose schema the program wrote is resolved
// when its first input is decoded, not when it is built; a raw schema from outside is resolved
// (and refused when broken) at once.
func TestBuildResolvesInferredSchemaOnFirstUse(t *testing.T) {
	tl := Build(Def[lazyIn]{Name: "Lazy", Call: func(context.Context, lazyIn, *Env) (Result, error) { return Result{}, nil }})
	key := string(tl.Spec().InputSchema)
	cached := func() bool {
		resolvedSchemas.Lock()
		defer resolvedSchemas.Unlock()
		return resolvedSchemas.m[key] != nil
	}
	if cached() {
		t.Fatal("the schema was resolved when the tool was built")
	}
	if _, err := tl.Decode(json.RawMessage(`{"only_in_this_test":"x"}`)); err == nil {
		t.Error("a string was accepted for an integer")
	}
	if !cached() {
		t.Error("decoding did not resolve the schema")
	}
	defer func() {
		if recover() == nil {
			t.Error("Build accepted a raw schema with a $ref to nothing")
		}
	}()
	Build(Def[map[string]any]{Name: "Raw", RawSchema: json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"#/$defs/none"}}}`),
		Call: func(context.Context, map[string]any, *Env) (Result, error) { return Result{}, nil }})
}
