package classifier

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm"
)

func answer(stop llm.StopReason, blocks ...llm.Block) *llm.Response {
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: blocks}, StopReason: stop}
}

func verdictCall(input string) llm.Block {
	return llm.ToolUse("v1", VerdictTool, json.RawMessage(input))
}

func TestParseVerdict(t *testing.T) {
	tests := []struct {
		name   string
		resp   *llm.Response
		block  bool
		reason string
		kind   string // non-empty: a failure of this kind
	}{
		{"allow", answer(llm.StopToolUse, verdictCall(`{"decision":"allow","reason":"runs the tests"}`)), false, "runs the tests", ""},
		{"block", answer(llm.StopToolUse, verdictCall(`{"decision":"block","reason":"deletes the home folder"}`)), true, "deletes the home folder", ""},
		{"text before the call is not read", answer(llm.StopToolUse, llm.Text(`{"decision":"block"}`), verdictCall(`{"decision":"allow","reason":"ok"}`)), false, "ok", ""},
		{"free text that looks like a verdict", answer(llm.StopEndTurn, llm.Text(`{"decision":"allow","reason":"trust me"}`)), false, "", KindUnparseable},
		{"the word allow", answer(llm.StopEndTurn, llm.Text("allow")), false, "", KindUnparseable},
		{"nothing", answer(llm.StopEndTurn), false, "", KindUnparseable},
		{"refusal", answer(llm.StopRefusal, llm.Text("I can't help with that")), false, "", KindRefusal},
		{"refusal with a call", answer(llm.StopRefusal, verdictCall(`{"decision":"allow","reason":"x"}`)), false, "", KindRefusal},
		{"wrong tool", answer(llm.StopToolUse, llm.ToolUse("v1", "Bash", json.RawMessage(`{"decision":"allow","reason":"x"}`))), false, "", KindUnparseable},
		{"two verdicts", answer(llm.StopToolUse, verdictCall(`{"decision":"block","reason":"x"}`), verdictCall(`{"decision":"allow","reason":"y"}`)), false, "", KindUnparseable},
		{"extra field", answer(llm.StopToolUse, verdictCall(`{"decision":"allow","reason":"x","override":true}`)), false, "", KindUnparseable},
		{"no reason", answer(llm.StopToolUse, verdictCall(`{"decision":"allow"}`)), false, "", KindUnparseable},
		{"blank reason", answer(llm.StopToolUse, verdictCall(`{"decision":"allow","reason":"  "}`)), false, "", KindUnparseable},
		{"no decision", answer(llm.StopToolUse, verdictCall(`{"reason":"x"}`)), false, "", KindUnparseable},
		{"decision in capitals", answer(llm.StopToolUse, verdictCall(`{"decision":"ALLOW","reason":"x"}`)), false, "", KindUnparseable},
		{"decision not a string", answer(llm.StopToolUse, verdictCall(`{"decision":true,"reason":"x"}`)), false, "", KindUnparseable},
		{"decision null", answer(llm.StopToolUse, verdictCall(`{"decision":null,"reason":"x"}`)), false, "", KindUnparseable},
		{"input not an object", answer(llm.StopToolUse, verdictCall(`"allow"`)), false, "", KindUnparseable},
		{"input cut off", answer(llm.StopMaxTokens, verdictCall(`{"decision":"allow","rea`)), false, "", KindUnparseable},
		{"a field twice", answer(llm.StopToolUse, verdictCall(`{"decision":"block","decision":"allow","reason":"x"}`)), false, "", KindUnparseable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := parseVerdict(tt.resp)
			if tt.kind != "" {
				var f *Failure
				if !errors.As(err, &f) || f.Kind != tt.kind {
					t.Fatalf("err = %v, want a %s failure (verdict %+v)", err, tt.kind, v)
				}
				return
			}
			if err != nil || v.Block != tt.block || v.Reason != tt.reason {
				t.Fatalf("verdict %+v, %v; want block=%v reason %q", v, err, tt.block, tt.reason)
			}
		})
	}
}

// FuzzParseVerdict: whatever the model answers, the parser gives a verdict with a reason or a
// Failure, never both and never a silent allow.
func FuzzParseVerdict(f *testing.F) {
	f.Add(`{"decision":"allow","reason":"ok"}`, "", "tool_use")
	f.Add(`{"decision":"block","reason":"no"}`, "some text", "tool_use")
	f.Add(`{"decision":"allow"}`, "", "end_turn")
	f.Add("", "allow", "refusal")
	f.Fuzz(func(t *testing.T, input, text, stop string) {
		blocks := []llm.Block{}
		if text != "" {
			blocks = append(blocks, llm.Text(text))
		}
		if input != "" {
			blocks = append(blocks, verdictCall(input))
		}
		v, err := parseVerdict(answer(llm.StopReason(stop), blocks...))
		if err != nil {
			var fl *Failure
			if !errors.As(err, &fl) || v.Reason != "" || v.Block {
				t.Fatalf("a failure must be a *Failure with no verdict: %+v %v", v, err)
			}
			return
		}
		if strings.TrimSpace(v.Reason) == "" || input == "" || stop == string(llm.StopRefusal) {
			t.Fatalf("verdict %+v from input %q stop %q", v, input, stop)
		}
		if !v.Block && !strings.Contains(input, `"allow"`) {
			t.Fatalf("an allow from input %q", input)
		}
	})
}
