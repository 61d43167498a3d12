package toolcall

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

type in struct {
	What string `json:"what"`
}

// stageTool behaves as its input says: it panics or fails in its check or its call.
var stageTool = tool.Build(tool.Def[in]{Name: "Stage", Description: "does what it is told",
	Validate: func(_ context.Context, i in, _ *tool.Env) *tool.Failure {
		switch i.What {
		case "invalid":
			return tool.Fail("not like that")
		case "check panics":
			panic("check boom")
		}
		return nil
	},
	CheckPermissions: func(context.Context, *permission.Context, in) permission.Decision {
		return permission.Decision{Behavior: permission.Passthrough}
	},
	Call: func(_ context.Context, i in, _ *tool.Env) (tool.Result, error) {
		switch i.What {
		case "call panics":
			panic("call boom")
		case "call fails":
			return tool.Result{}, errors.New("disk full")
		}
		return tool.TextResult("did " + i.What), nil
	}})

func TestStages(t *testing.T) {
	allow := permission.Rule{Value: permission.ParseRule("Stage"), Behavior: permission.Allow, Source: permission.SourceSession}
	tests := []struct {
		name    string
		what    string
		rules   []permission.Rule
		cancel  bool
		want    Stage
		failure string
	}{
		{"done", "work", []permission.Rule{allow}, false, Done, ""},
		{"invalid", "invalid", []permission.Rule{allow}, false, Invalid, "<tool_use_error>not like that</tool_use_error>"},
		{"check panics", "check panics", []permission.Rule{allow}, false, Invalid, "Error calling tool (Stage): check boom"},
		{"headless ask is a deny", "work", nil, false, Denied, "haven't granted it yet"},
		{"call panics", "call panics", []permission.Rule{allow}, false, Failed, "Error calling tool (Stage): call boom"},
		{"call fails", "call fails", []permission.Rule{allow}, false, Failed, "disk full"},
		{"cancelled", "work", []permission.Rule{allow}, true, Cancelled, CancelMessage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pc, err := permission.New(permission.Config{Cwd: t.TempDir(), Rules: tt.rules})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel {
				cancel()
			}
			raw, _ := json.Marshal(in{What: tt.what})
			input, err := Decode(stageTool, raw)
			if err != nil {
				t.Fatal(err)
			}
			var p Pipeline
			out := p.Run(ctx, Call{Tool: stageTool, Input: input, Raw: raw, Permissions: pc, Env: &tool.Env{}})
			if out.Stage != tt.want || !strings.Contains(out.Failure, tt.failure) {
				t.Errorf("stage %d, failure %q; want stage %d with %q", out.Stage, out.Failure, tt.want, tt.failure)
			}
			if tt.want == Done && out.Result.TextOf() != "did work" {
				t.Errorf("result %q", out.Result.TextOf())
			}
		})
	}
}

// A decoder that panics is the call's failure, not the program's.
func TestDecodePanicIsACrashError(t *testing.T) {
	bad := tool.Build(tool.Def[json.RawMessage]{Name: "Bad", RawSchema: json.RawMessage(`{"type":"object"}`),
		Call: func(context.Context, json.RawMessage, *tool.Env) (tool.Result, error) { return tool.Result{}, nil }})
	bad = panickingDecoder{bad}
	_, err := Decode(bad, json.RawMessage(`{}`))
	if got := UseErrorText(err); got != CrashMessage("Bad", "decoder bug") {
		t.Errorf("UseErrorText = %q", got)
	}
	if got := UseErrorText(errors.New("missing field")); got != "<tool_use_error>missing field</tool_use_error>" {
		t.Errorf("UseErrorText = %q", got)
	}
}

type panickingDecoder struct{ tool.Tool }

func (panickingDecoder) Decode(json.RawMessage) (any, error) { panic("decoder bug") }

// Granted's error is the run's failure; the call, allowed, still runs.
func TestGrantedErrorIsTheRunsAndTheCallRuns(t *testing.T) {
	pc, _ := permission.New(permission.Config{Cwd: t.TempDir(), Rules: []permission.Rule{{Value: permission.ParseRule("Stage"), Behavior: permission.Allow, Source: permission.SourceSession}}})
	boom := errors.New("could not use up the approval")
	p := Pipeline{Granted: func(permission.Decision) error { return boom }}
	raw := json.RawMessage(`{"what":"work"}`)
	input, _ := Decode(stageTool, raw)
	out := p.Run(context.Background(), Call{Tool: stageTool, Input: input, Raw: raw, Permissions: pc, Env: &tool.Env{}})
	if out.Stage != Done || !errors.Is(out.Err, boom) {
		t.Errorf("stage %d, err %v", out.Stage, out.Err)
	}
}

// A tool that blocks interrupts still stops on any cancellation but a person's new message
// (the other half, ErrInterrupt leaving it running, is agent's TestInterrupt).
func TestAbortContract(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	callCtx, stop := callContext(ctx, tool.Block)
	defer stop()
	cancel(errors.New("quit"))
	select {
	case <-callCtx.Done():
	case <-time.After(time.Minute): // a failure guard, not a timing assertion
		t.Fatal("a blocking tool's call kept running after the run was cancelled")
	}
}
