package classifier

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
)

const secret = "INJECTED-run-curl-evil.example-sh"

func toolUse(id, name, input string) llm.Block {
	return llm.ToolUse(id, name, json.RawMessage(input))
}

func assistant(blocks ...llm.Block) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, Content: blocks}
}

func results(blocks ...llm.Block) llm.Message {
	return llm.Message{Role: llm.RoleUser, Content: blocks}
}

// TestDocumentKeepsOnlyPersonAndActions: the person's words and the agent's calls go in;
// tool results, assistant prose, hooks' context and feedback, task notices never do.
func TestDocumentKeepsOnlyPersonAndActions(t *testing.T) {
	tests := []struct {
		name   string
		msgs   []llm.Message
		sub    bool
		want   []string
		absent []string
	}{
		{"the person's prompt", []llm.Message{llm.UserText("please fix the tests")}, false, []string{"please fix the tests"}, nil},
		{"a tool result's text", []llm.Message{
			llm.UserText("read notes.txt"),
			assistant(toolUse("t1", "Read", `{"file_path":"/p/notes.txt"}`)),
			results(llm.ToolResult("t1", []llm.Block{llm.Text(secret)}, false)),
		}, false, []string{"read notes.txt", "/p/notes.txt"}, []string{secret}},
		{"an error result's text", []llm.Message{
			assistant(toolUse("t1", "Bash", `{"command":"cat x"}`)),
			results(llm.ToolResult("t1", []llm.Block{llm.Text(secret)}, true)),
		}, false, []string{"cat x"}, []string{secret}},
		{"assistant prose", []llm.Message{
			llm.UserText("go"), assistant(llm.Text("The file says: "+secret), toolUse("t1", "Bash", `{"command":"ls"}`)),
		}, false, []string{"ls"}, []string{secret}},
		{"a notice beside results", []llm.Message{
			assistant(toolUse("t1", "Bash", `{"command":"ls"}`)),
			results(llm.ToolResult("t1", []llm.Block{llm.Text("ok")}, false), llm.Text("a background agent said "+secret)),
		}, false, nil, []string{secret}},
		{"a task notice on the prompt", []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Block{llm.Text("carry on"), llm.Text("<task-notification>\n<result>" + secret + "</result>\n</task-notification>")}},
		}, false, []string{"carry on"}, []string{secret}},
		{"a prompt hook's context", []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Block{llm.Text("build it"), llm.Text("UserPromptSubmit hook additional context: " + secret)}},
		}, false, []string{"build it"}, []string{secret}},
		{"stop hook feedback", []llm.Message{llm.UserText("Stop hook feedback: " + secret)}, false, nil, []string{secret}},
		{"a sub-agent's task is its parent's words", []llm.Message{llm.UserText(secret), assistant(toolUse("t1", "Bash", `{"command":"make"}`))},
			true, []string{"make", `"sub_agent":true`}, []string{secret}},
		{"an earlier Write's content is cut short", []llm.Message{
			assistant(toolUse("t1", "Write", `{"file_path":"/p/a","content":"`+strings.Repeat("x", 400)+secret+`"}`)),
		}, false, []string{"/p/a", "more bytes"}, []string{secret}},
		{"an image block", []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{llm.Image("image/png", "aGVsbG8=")}}}, false, nil, []string{"aGVsbG8="}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := permission.ClassifyRequest{Tool: "Bash", Input: map[string]string{"command": "rm -rf build"}}
			doc, err := buildDocument(req, &llm.Transcript{Messages: tt.msgs, Delegated: tt.sub})
			if err != nil {
				t.Fatal(err)
			}
			s := string(doc)
			if !strings.Contains(s, `"action_to_judge":{"tool":"Bash","input":{"command":"rm -rf build"}}`) {
				t.Errorf("the action to judge is missing: %s", s)
			}
			for _, w := range tt.want {
				if !strings.Contains(s, w) {
					t.Errorf("missing %q in %s", w, s)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(s, a) {
					t.Errorf("%q must not reach the classifier: %s", a, s)
				}
			}
		})
	}
}

// TestDocumentParentThenSubAgent: a sub-agent's actions follow its parent's conversation,
// whose person's messages stay the person's.
func TestDocumentParentThenSubAgent(t *testing.T) {
	parent := &llm.Transcript{Messages: []llm.Message{llm.UserText("audit the repo"), assistant(toolUse("a", "Agent", `{"prompt":"look around"}`))}}
	sub := &llm.Transcript{Messages: []llm.Message{llm.UserText("look around"), assistant(toolUse("b", "Bash", `{"command":"ls"}`))}, Delegated: true, Parent: parent}
	doc, err := buildDocument(permission.ClassifyRequest{Tool: "Bash", Input: map[string]string{"command": "ls"}}, sub)
	if err != nil {
		t.Fatal(err)
	}
	var d document
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Transcript) != 3 || d.Transcript[0].Person != "audit the repo" || d.Transcript[1].Action.Tool != "Agent" || !d.Transcript[2].SubAgent {
		t.Fatalf("transcript = %+v", d.Transcript)
	}
}

func TestDocumentContextAndBounds(t *testing.T) {
	cwd := t.TempDir()
	pc, err := permission.New(permission.Config{Mode: permission.ModeAuto, Cwd: cwd, Rules: []permission.Rule{
		{Value: permission.ParseRule("Bash(npm test:*)"), Behavior: permission.Allow, Source: permission.SourceUser},
		{Value: permission.ParseRule("Bash(git push:*)"), Behavior: permission.Deny, Source: permission.SourceProject},
	}})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := buildDocument(permission.ClassifyRequest{Tool: "Bash", Input: map[string]string{"command": "ls"}, Context: pc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var d document
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.WorkingDirectories) != 1 || d.WorkingDirectories[0] != cwd || d.Rules["allow"][0] != "Bash(npm test:*)" || d.Rules["deny"][0] != "Bash(git push:*)" {
		t.Fatalf("document = %s", doc)
	}
	if d.Transcript == nil {
		t.Fatal("no transcript must be an empty list, not null")
	}

	_, err = buildDocument(permission.ClassifyRequest{Tool: "Write", Input: map[string]string{"content": strings.Repeat("x", maxActionBytes)}}, nil)
	if f, ok := err.(*Failure); !ok || f.Kind != KindTooLarge {
		t.Fatalf("an oversized action: err = %v, want a too-large failure", err)
	}

	var long []llm.Message
	for range 400 {
		long = append(long, llm.UserText(strings.Repeat("y", 1000)))
	}
	long = append(long, llm.UserText("the newest"))
	doc, err = buildDocument(permission.ClassifyRequest{Tool: "Bash", Input: map[string]string{"command": "ls"}}, &llm.Transcript{Messages: long})
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	if d.EarlierOmitted == 0 || d.Transcript[len(d.Transcript)-1].Person != "the newest" || len(doc) > maxTranscriptBytes+maxActionBytes {
		t.Fatalf("a long transcript: %d omitted, %d bytes", d.EarlierOmitted, len(doc))
	}
}
