package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/reinsdev/reins/permission"
)

// PrepareSubstitute returns what [permission.Call] needs to prepare an input that an answer
// substituted for a call of t: the substitute is decoded against t's schema and checked by
// t.ValidateInput with env, exactly as the model's input is, before the engine decides it. A
// panicking check refuses the substitute.
func PrepareSubstitute(t Tool, env *Env) func(context.Context, any) (any, error) {
	return func(ctx context.Context, updated any) (in any, err error) {
		raw, err := permission.RawInput(updated)
		if err != nil {
			return nil, err
		}
		if in, err = t.Decode(raw); err != nil {
			return nil, err
		}
		defer func() {
			if v := recover(); v != nil {
				in, err = nil, fmt.Errorf("checking the input of %s failed: %v", t.Name(), v)
			}
		}()
		if f := t.ValidateInput(ctx, in, env); f != nil {
			return nil, errors.New(f.Message)
		}
		return in, nil
	}
}

// DecidedInput is the input a decision's UpdatedInput carries, as t's input type: a substitute
// the engine prepared already is, and a tool's own check may rewrite its input as JSON.
func DecidedInput(t Tool, updated any) (any, error) {
	switch updated.(type) {
	case json.RawMessage, []byte, map[string]any:
		raw, err := permission.RawInput(updated)
		if err != nil {
			return nil, err
		}
		return t.Decode(raw)
	}
	return updated, nil
}
