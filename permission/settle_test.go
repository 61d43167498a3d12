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
	// approvedAsShown holds the inputs it allowed without substituting anything, substituted
	// the inputs it wrote itself (decoded), again why it was asked again about one.
	approvedAsShown []any
	substituted     []any
	again           []string
}

func (a *scriptedAsker) Ask(_ context.Context, req AskRequest) (Decision, error) {
	a.shown = append(a.shown, req.Input)
	if len(a.answers) == 0 {
		return Decision{Behavior: Deny, Message: "no"}, nil
	}
	if req.Again != "" {
		a.again = append(a.again, req.Again)
	}
	ans := a.answers[0]
	a.answers = a.answers[1:]
	if ans.Behavior == Allow && sameInput(ans.UpdatedInput, req.Input) {
		a.approvedAsShown = append(a.approvedAsShown, req.Input)
	} else if raw, ok := ans.UpdatedInput.(json.RawMessage); ok && ans.Behavior == Allow {
		if in, err := (jsonFileTool{}).Decode(raw); err == nil {
			a.substituted = append(a.substituted, in)
		}
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
// that exact input, one the answerer was shown and allowed as it was, or one the answerer
// wrote itself that the pipeline asks about only because no rule allows it (no ask rule,
// safety check or classifier). Every second ask says why.
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
		for _, why := range asker.again {
			if !strings.HasPrefix(why, "the substituted input meets ") {
				t.Fatalf("asked again with %q", why)
			}
		}
		fresh := Engine{Classifier: classifier}
		if fd, err := fresh.Decide(context.Background(), pc, tool, ran); err != nil || fd.Behavior != Allow {
			if ran == any(input) && hook != nil && hook.Behavior == Allow {
				return // a PreToolUse hook allowed the call it was shown
			}
			if err == nil && fd.Behavior == Ask && AgainReason(fd) == "" && slices.Contains(asker.substituted, ran) {
				return // the answerer's own input, which only the absence of an allow rule asks about
			}
			t.Fatalf("ran %+v, which no answer allowed as shown (shown %v) and the pipeline decides %s (%v)", ran, asker.shown, fd.Behavior, fd.Reason)
		}
	})
}

// TestOwnSubstituteAskedAgainOnlyWithReason: an answerer that substitutes an input of its own
// is not asked about it again when nothing but the absence of an allow rule asks; an ask rule
// or a safety check sends it back to the answerer, with why.
func TestOwnSubstituteAskedAgainOnlyWithReason(t *testing.T) {
	proj := propProject(t)
	tool := jsonFileTool{"Edit"}
	askRule := ParseRule("Edit(src/**)")
	tests := []struct {
		name  string
		path  string
		rules []Rule
		asked int
		again string // fragment of the second ask's reason; "" when not asked again
	}{
		{name: "no rule allows it", path: "new.txt", asked: 1},
		{name: "an ask rule", path: "src/new.go", rules: []Rule{{Behavior: Ask, Source: SourceUser, Value: askRule}}, asked: 2, again: "rule"},
		{name: "a safety check", path: ".git/config", asked: 2, again: "safetyCheck"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pc, err := New(Config{Cwd: proj, Home: proj, Rules: tt.rules})
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := json.Marshal(fileInput{Path: tt.path, Write: true})
			asker := &scriptedAsker{answers: []Decision{{Behavior: Allow, UpdatedInput: json.RawMessage(raw)}, {Behavior: Allow}}}
			var e Engine
			d, err := e.AuthorizeCall(context.Background(), pc, Call{Tool: tool, Input: fileInput{Path: "a.txt", Write: true}, Asker: asker})
			if err != nil {
				t.Fatal(err)
			}
			if d.Behavior != Allow || d.UpdatedInput != (fileInput{Path: tt.path, Write: true}) {
				t.Fatalf("decision %s with %v, want allow with the substitute", d.Behavior, d.UpdatedInput)
			}
			if len(asker.shown) != tt.asked {
				t.Errorf("asked %d times (%v), want %d", len(asker.shown), asker.shown, tt.asked)
			}
			if tt.again == "" && len(asker.again) > 0 || tt.again != "" && (len(asker.again) != 1 || !strings.Contains(asker.again[0], tt.again)) {
				t.Errorf("asked again with %q, want a reason with %q", asker.again, tt.again)
			}
		})
	}
}
