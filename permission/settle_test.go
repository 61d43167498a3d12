package permission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// fileInput is the input of jsonFileTool.
type fileInput struct {
	Path  string `json:"path"`
	Write bool   `json:"write"`
}

// jsonFileTool is a file tool that decodes JSON input, as every tool.Tool does: substituted
// inputs reach it as JSON.
type jsonFileTool struct{ name string }

func (f jsonFileTool) Name() string { return f.name }

func (f jsonFileTool) CheckPermissions(ctx context.Context, pc *Context, input any) Decision {
	in := input.(fileInput)
	if in.Write {
		return pc.CheckWrite(ctx, in.Path)
	}
	return pc.CheckRead(ctx, in.Path)
}

func (f jsonFileTool) Decode(raw json.RawMessage) (any, error) {
	var in fileInput
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return nil, err
	}
	if in.Path == "" {
		return nil, errors.New("path is required")
	}
	return in, nil
}

// scriptedAsker answers from a script and records what it was shown and how it answered.
type scriptedAsker struct {
	answers []Decision
	shown   []any
	// approvedAsShown holds the inputs it allowed without substituting anything.
	approvedAsShown []any
}

func (a *scriptedAsker) Ask(_ context.Context, req AskRequest) (Decision, error) {
	a.shown = append(a.shown, req.Input)
	if len(a.answers) == 0 {
		return Decision{Behavior: Deny, Message: "no"}, nil
	}
	ans := a.answers[0]
	a.answers = a.answers[1:]
	if ans.Behavior == Allow && sameInput(ans.UpdatedInput, req.Input) {
		a.approvedAsShown = append(a.approvedAsShown, req.Input)
	}
	return ans, nil
}

// sameInput reports whether an answer's substitute is no substitute: none, or the input shown.
func sameInput(updated, shown any) bool {
	if updated == nil {
		return true
	}
	raw, ok := updated.(json.RawMessage)
	if !ok {
		return false
	}
	in, err := jsonFileTool{}.Decode(raw)
	return err == nil && in == shown
}

func drawAnswer(t *rapid.T, label string) Decision {
	switch rapid.IntRange(0, 5).Draw(t, label+"kind") {
	case 0:
		return Decision{Behavior: Deny, Message: "no"}
	case 1:
		return Decision{Behavior: Allow}
	case 2:
		return Decision{Behavior: Allow, UpdatedInput: json.RawMessage(`{"path": 7}`)}
	}
	in := fileInput{Path: rapid.SampledFrom(append(slices.Clone(propPaths), "../outside.txt", "/etc/passwd")).Draw(t, label+"path"),
		Write: rapid.Bool().Draw(t, label+"write")}
	raw, _ := json.Marshal(in)
	return Decision{Behavior: Allow, UpdatedInput: json.RawMessage(raw), UserModified: rapid.Bool().Draw(t, label+"edited")}
}

// TestPropertySubstitutedInputIsDecided: whatever the answers substitute, from whichever
// channel and under whichever hook verdict, the call that runs is one the pipeline allows for
// that exact input, or one the answerer was shown and allowed as it was.
func TestPropertySubstitutedInputIsDecided(t *testing.T) {
	proj := propProject(t)
	tool := jsonFileTool{"Edit"}
	hooks := []*HookVerdict{nil, {Behavior: Passthrough, Hooks: "h"}, {Behavior: Allow, Hooks: "h"}, {Behavior: Ask, Hooks: "h"}}
	rapid.Check(t, func(t *rapid.T) {
		c := drawCase(t)
		c.mode = rapid.SampledFrom(append(slices.Clone(propModes), ModeAuto)).Draw(t, "mode")
		classifier := rapid.SampledFrom([]Classifier{nil, approveAll{}}).Draw(t, "classifier")
		input := fileInput{Path: rapid.SampledFrom(propPaths).Draw(t, "path"), Write: rapid.Bool().Draw(t, "write")}
		asker := &scriptedAsker{}
		for i := range rapid.IntRange(1, 6).Draw(t, "nanswers") {
			asker.answers = append(asker.answers, drawAnswer(t, fmt.Sprintf("answer%d", i)))
		}
		pc, err := New(Config{Mode: c.mode, Cwd: proj, Home: proj, Rules: c.rules, BypassAvailable: c.mode == ModeBypass})
		if err != nil {
			t.Fatal(err)
		}
		e := Engine{Classifier: classifier}
		hook := rapid.SampledFrom(hooks).Draw(t, "hook")
		d, err := e.AuthorizeCall(context.Background(), pc, Call{Tool: tool, Input: input, Asker: asker, Hook: hook})
		if err != nil {
			t.Fatal(err)
		}
		if d.Behavior != Allow {
			return
		}
		ran := any(input)
		if d.UpdatedInput != nil {
			ran = d.UpdatedInput
		}
		if _, ok := ran.(fileInput); !ok {
			t.Fatalf("the input to run is a %T, not the tool's input", ran)
		}
		if slices.Contains(asker.approvedAsShown, ran) {
			return
		}
		fresh := Engine{Classifier: classifier}
		if fd, err := fresh.Decide(context.Background(), pc, tool, ran); err != nil || fd.Behavior != Allow {
			if ran == any(input) && hook != nil && hook.Behavior == Allow {
				return // a PreToolUse hook allowed the call it was shown
			}
			t.Fatalf("ran %+v, which no answer allowed as shown (shown %v) and the pipeline decides %s (%v)", ran, asker.shown, fd.Behavior, fd.Reason)
		}
	})
}
