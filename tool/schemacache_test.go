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
	if a.schema != b.schema {
		t.Error("equal schemas were resolved twice")
	}
	if a.schema == c.schema {
		t.Fatal("different schemas share a resolution")
	}
	if _, err := a.Decode(json.RawMessage(`{"n":4}`)); err == nil {
		t.Error("maximum 3 accepted 4")
	}
	if _, err := c.Decode(json.RawMessage(`{"n":4}`)); err != nil {
		t.Errorf("maximum 5 refused 4: %v", err)
	}
}
