package replay

import (
	"context"
	"fmt"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// Decided is a decision as replay reports it: the behaviour and what produced it.
type Decided struct {
	Behavior permission.Behavior `json:"decision"`
	Reason   string              `json:"reason,omitempty"`
	// Rule, Source and Origin name the deciding rule and where it is written (file:line).
	Rule   string `json:"rule,omitempty"`
	Source string `json:"source,omitempty"`
	Origin string `json:"origin,omitempty"`
}

// Change is a call whose decision the proposed settings change.
type Change struct {
	Call   Call    `json:"call"`
	Before Decided `json:"before"`
	After  Decided `json:"after"`
}

// Result is what a replay found.
type Result struct {
	Calls   int      `json:"calls"`
	Changes []Change `json:"changes"`
	// Skipped counts the calls not decided: their tool is not in the catalog, or their input
	// is not valid for it any more.
	Skipped map[string]int `json:"skipped,omitempty"`
	// SkippedFiles are the session files that could not be read, whose calls are not in the
	// replay (SessionCalls).
	SkippedFiles []SkippedFile `json:"skippedFiles,omitempty"`
}

// Lookup finds a tool by name; nil when there is none.
type Lookup func(name string) tool.Tool

// Run decides every call under before and after (see the package documentation) and reports
// the calls whose behaviour differs. Only a cancelled ctx is an error.
func Run(ctx context.Context, calls []Call, before, after *permission.Context, lookup Lookup) (*Result, error) {
	r := &Result{Calls: len(calls), Changes: []Change{}}
	for _, c := range calls {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t := lookup(c.Tool)
		if t == nil {
			r.skip("tool not available offline: " + c.Tool)
			continue
		}
		input, err := decode(t, c)
		if err != nil {
			r.skip("input no longer valid for " + c.Tool)
			continue
		}
		b, err := decide(ctx, before, t, input)
		if err != nil {
			return nil, err
		}
		a, err := decide(ctx, after, t, input)
		if err != nil {
			return nil, err
		}
		if a.Behavior != b.Behavior {
			r.Changes = append(r.Changes, Change{Call: c, Before: b, After: a})
		}
	}
	return r, nil
}

func (r *Result) skip(why string) {
	if r.Skipped == nil {
		r.Skipped = map[string]int{}
	}
	r.Skipped[why]++
}

// decode validates the input as the tool does now; a panic is an invalid input.
func decode(t tool.Tool, c Call) (in any, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("decoding panicked: %v", v)
		}
	}()
	return t.Decode(c.Input)
}

// decide runs the pipeline with a fresh engine, so no call's decision depends on the calls
// replayed before it (auto mode's denial counts), and without a classifier.
func decide(ctx context.Context, pc *permission.Context, t tool.Tool, input any) (Decided, error) {
	d, err := (&permission.Engine{}).Decide(ctx, pc, t, input)
	if err != nil {
		return Decided{}, err
	}
	out := Decided{Behavior: d.Behavior}
	if d.Behavior == permission.Passthrough {
		out.Behavior = permission.Ask
	}
	if r := d.Reason; r != nil {
		out.Reason = r.String()
		if r.Rule != nil {
			out.Rule, out.Source, out.Origin = r.Rule.Value.String(), r.Rule.Source.String(), r.Rule.Origin.String()
		}
	}
	return out, nil
}
