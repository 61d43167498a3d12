package llm

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMessageJSONRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		msg  Message
		want string // the JSON form, which is part of the session file format
	}{
		{
			name: "user text",
			msg:  UserText("hello"),
			want: `{"role":"user","content":[{"type":"text","text":"hello"}]}`,
		},
		{
			name: "assistant text and tool use",
			msg: Message{Role: RoleAssistant, Content: []Block{
				Text("Let me look."),
				ToolUse("toolu_1", "Read", json.RawMessage(`{"file_path":"/tmp/a"}`)),
			}},
			want: `{"role":"assistant","content":[{"type":"text","text":"Let me look."},` +
				`{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/tmp/a"}}]}`,
		},
		{
			name: "tool result with image and error flag",
			msg: Message{Role: RoleUser, Content: []Block{
				ToolResult("toolu_1", []Block{Text("no such file"), Image("image/png", "iVBORw0KGgo=")}, true),
			}},
			want: `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[` +
				`{"type":"text","text":"no such file"},{"type":"image","media_type":"image/png","data":"iVBORw0KGgo="}],"is_error":true}]}`,
		},
		{
			name: "tool result without content",
			msg:  Message{Role: RoleUser, Content: []Block{ToolResult("toolu_2", nil, false)}},
			want: `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2"}]}`,
		},
		{
			name: "tool use with empty input",
			msg:  Message{Role: RoleAssistant, Content: []Block{ToolUse("toolu_3", "Noop", nil)}},
			want: `{"role":"assistant","content":[{"type":"tool_use","id":"toolu_3","name":"Noop","input":{}}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := json.Marshal(tt.msg)
			if err != nil {
				t.Fatal(err)
			}
			if string(data) != tt.want {
				t.Errorf("Marshal =\n%s\nwant\n%s", data, tt.want)
			}
			var got Message
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.msg, got); diff != "" {
				t.Errorf("round trip mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMessageHelpers(t *testing.T) {
	m := Message{Role: RoleAssistant, Content: []Block{
		Text("a"), ToolUse("1", "X", nil), Text("b"), ToolUse("2", "Y", json.RawMessage(`{"k":1}`)),
	}}
	if got := m.Text(); got != "ab" {
		t.Errorf("Text() = %q, want %q", got, "ab")
	}
	uses := m.ToolUses()
	if len(uses) != 2 || uses[0].ID != "1" || uses[1].ID != "2" {
		t.Errorf("ToolUses() = %+v", uses)
	}
	if got := SystemText(""); got != nil {
		t.Errorf("SystemText(\"\") = %v, want nil", got)
	}
	sum := Usage{1, 2, 3, 4}.Add(Usage{10, 20, 30, 40})
	if sum != (Usage{11, 22, 33, 44}) {
		t.Errorf("Usage.Add = %+v", sum)
	}
}

func TestBlockValidate(t *testing.T) {
	tests := []struct {
		name    string
		block   Block
		wantErr string
	}{
		{"text", Text("x"), ""},
		{"tool use", ToolUse("id", "n", json.RawMessage(` {"a":1} `)), ""},
		{"tool use no id", ToolUse("", "n", nil), "needs id"},
		{"tool use array input", ToolUse("id", "n", json.RawMessage(`[1]`)), "not a JSON object"},
		{"tool use bad input", Block{Type: BlockToolUse, ID: "i", Name: "n", Input: json.RawMessage(`{`)}, "not a JSON object"},
		{"tool result", ToolResult("id", []Block{Text("ok"), Image("image/png", "AA==")}, false), ""},
		{"tool result no id", ToolResult("", nil, false), "needs tool_use_id"},
		{"tool result nested tool use", ToolResult("id", []Block{ToolUse("a", "b", nil)}, false), `content of type "tool_use"`},
		{"tool result bad image", ToolResult("id", []Block{Image("", "")}, false), "needs media_type"},
		{"image", Image("image/jpeg", "AA=="), ""},
		{"unknown", Block{Type: "server_tool_use"}, `unknown block type "server_tool_use"`},
		{"thinking unsigned", Thinking("t", ""), ""},
		{"redacted without data", RedactedThinking(""), "redacted_thinking block needs data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.block.Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Validate() = %v, want error containing %q", err, tt.wantErr)
			}
		})
	}
}

// FuzzMessageJSON checks that whatever a session file holds, a message that
// decodes re-encodes to a fixed point: decode(encode(m)) encodes the same.
func FuzzMessageJSON(f *testing.F) {
	f.Add([]byte(`{"role":"user","content":[{"type":"text","text":"hi"}]}`))
	f.Add([]byte(`{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"n","input":{"a":[1,2]}}]}`))
	f.Add([]byte(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"image","media_type":"image/png","data":"AA=="}],"is_error":true}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var m Message
		if json.Unmarshal(data, &m) != nil {
			return
		}
		first, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("Marshal of decoded message: %v", err)
		}
		var again Message
		if err := json.Unmarshal(first, &again); err != nil {
			t.Fatalf("Unmarshal of own output %s: %v", first, err)
		}
		second, err := json.Marshal(again)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, second) {
			t.Errorf("not a fixed point:\n%s\n%s", first, second)
		}
	})
}
