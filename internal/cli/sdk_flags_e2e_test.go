package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/session"
)

// lines decodes the JSON lines of stdout.
func (e *e2e) lines() []map[string]any {
	e.t.Helper()
	var out []map[string]any
	for l := range strings.SplitSeq(strings.TrimSpace(e.stdout), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			e.t.Fatalf("not a JSON line: %s", l)
		}
		out = append(out, m)
	}
	return out
}

func (e *e2e) sessionFiles() []string {
	files, _ := filepath.Glob(filepath.Join(e.home, ".reins", "projects", "*", "*.jsonl"))
	return files
}

// onlySession reads back the one session the runs of e wrote.
func (e *e2e) onlySession(t *testing.T) *session.Transcript {
	t.Helper()
	files := e.sessionFiles()
	if len(files) != 1 {
		t.Fatalf("session files: %v", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return session.Parse(data)
}

// waitForProc waits until a process whose command line holds words runs, failing with
// what() when none has started by the deadline.
func waitForProc(t *testing.T, timeout time.Duration, what func() string, words ...string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for len(findProcs(words...)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the command never started:\n%s", what())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestSDKFlagsRefused(t *testing.T) {
	bin := reinsBinary(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-p", "--json-schema", `[1]`, "hi"}, "--json-schema: not a JSON object"},
		{[]string{"--input-format", "xml"}, `invalid --input-format "xml"`},
		{[]string{"--input-format", "stream-json"}, "requires --output-format stream-json"},
		{[]string{"--input-format", "stream-json", "--output-format", "stream-json", "hi"}, "takes its prompts on standard input"},
		{[]string{"-p", "--permission-prompt-tool", "stdio", "hi"}, "--permission-prompt-tool stdio requires --input-format stream-json"},
		{[]string{"-p", "--permission-prompt-tool", "approve", "hi"}, `invalid --permission-prompt-tool "approve"`},
		{[]string{"-p", "--session-id", "nope", "hi"}, `invalid --session-id "nope"`},
		{[]string{"-p", "--fork-session", "hi"}, "--fork-session requires --continue or --resume"},
		{[]string{"-p", "--continue", "--session-id", session.NewID(), "hi"}, "--session-id can only be used with --continue or --resume together with --fork-session"},
		{[]string{"-p", "--include-partial-messages", "hi"}, "--include-partial-messages requires --output-format stream-json"},
		{[]string{"-p", "--max-budget-usd", "-1", "hi"}, "--max-budget-usd must not be negative"},
		{[]string{"-p", "--model", "a", "--fallback-model", "a", "hi"}, "--fallback-model cannot be the same as --model"},
		{[]string{"-p", "--tools", "Read,Teleport", "hi"}, `--tools: unknown tool "Teleport"`},
		{[]string{"-p", "--permission-prompt-tool", "mcp__perm__approve", "hi"}, `no tool "mcp__perm__approve" in the tool pool`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			e := newE2E(t, bin)
			srv := llmtest.NewAnthropicServer(t)
			e.anthropic(srv).run(tt.args...)
			e.wantCode(exitUsage)
			if !strings.Contains(e.stderr, tt.want) {
				t.Errorf("stderr %q, want %q", e.stderr, tt.want)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%d model requests", n)
			}
		})
	}
}

func TestSDKFlags(t *testing.T) {
	bin := reinsBinary(t)

	t.Run("tools", func(t *testing.T) {
		for _, tc := range []struct{ value, want string }{{"Read,Grep", "Grep,Read"}, {"", ""}, {"default", "all"}} {
			e := newE2E(t, bin)
			srv := llmtest.NewAnthropicServer(t, llmtest.Say("ok"))
			e.anthropic(srv).run("-p", "--tools="+tc.value, "hi").wantCode(0)
			var body struct {
				Tools []struct{ Name string } `json:"tools"`
			}
			srv.Requests()[0].Decode(&body)
			var names []string
			for _, tl := range body.Tools {
				names = append(names, tl.Name)
			}
			got := strings.Join(names, ",")
			if tc.want == "all" {
				if len(names) < 5 {
					t.Errorf("--tools=default: %s", got)
				}
			} else if got != tc.want {
				t.Errorf("--tools=%s: tools %q, want %q", tc.value, got, tc.want)
			}
		}
	})

	t.Run("system prompt", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t, llmtest.Say("ok"))
		e.anthropic(srv).run("-p", "--system-prompt", "You are terse.", "--append-system-prompt", "Answer in French.", "hi").wantCode(0)
		var body struct {
			System []struct{ Text string } `json:"system"`
		}
		srv.Requests()[0].Decode(&body)
		if len(body.System) != 2 || body.System[0].Text != "You are terse." || body.System[1].Text != "Answer in French." {
			t.Errorf("system %+v", body.System)
		}
	})

	t.Run("session id and persistence", func(t *testing.T) {
		e := newE2E(t, bin)
		id := session.NewID()
		srv := llmtest.NewAnthropicServer(t, llmtest.Say("one"), llmtest.Say("two"), llmtest.Say("three"))
		e.anthropic(srv).run("-p", "--output-format", "json", "--session-id", id, "hi").wantCode(0)
		if files := e.sessionFiles(); len(files) != 1 || filepath.Base(files[0]) != id+".jsonl" {
			t.Fatalf("session files %v, want %s.jsonl", files, id)
		}
		if !strings.Contains(e.stdout, `"session_id":"`+id+`"`) {
			t.Errorf("stdout %s", e.stdout)
		}
		before, _ := os.ReadFile(e.sessionFiles()[0])

		// A fork continues the conversation in a new file and leaves the old one alone.
		e.run("-p", "--output-format", "json", "--resume", id, "--fork-session", "again").wantCode(0)
		if files := e.sessionFiles(); len(files) != 2 {
			t.Fatalf("session files %v after a fork", files)
		}
		if after, _ := os.ReadFile(filepath.Join(filepath.Dir(e.sessionFiles()[0]), id+".jsonl")); string(after) != string(before) {
			t.Error("the forked session's file changed")
		}
		var body struct {
			Messages []any `json:"messages"`
		}
		srv.Requests()[1].Decode(&body)
		if len(body.Messages) != 3 {
			t.Errorf("the fork sent %d messages, want the old two and the new one", len(body.Messages))
		}

		e.run("-p", "--no-session-persistence", "not saved").wantCode(0)
		if files := e.sessionFiles(); len(files) != 2 {
			t.Errorf("--no-session-persistence wrote a session: %v", files)
		}
	})

	t.Run("max budget", func(t *testing.T) {
		e := newE2E(t, bin)
		file := e.write("a.txt", "a\n")
		read := llmtest.UseTools(llmtest.Call("Read", `{"file_path":"`+file+`"}`))
		srv := llmtest.NewAnthropicServer(t, read, read)
		e.anthropic(srv).run("-p", "--output-format", "json", "--max-budget-usd", "0.00001", "read twice").wantCode(exitError)
		var res map[string]any
		json.Unmarshal([]byte(e.stdout), &res)
		if res["subtype"] != "error_max_budget_usd" || len(srv.Requests()) != 1 {
			t.Errorf("result %v after %d requests", res, len(srv.Requests()))
		}
		if errs, _ := res["errors"].([]any); len(errs) == 0 {
			t.Errorf("no errors in %v", res)
		}
	})

	t.Run("json schema", func(t *testing.T) {
		e := newE2E(t, bin)
		schema := `{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]}`
		srv := llmtest.NewAnthropicServer(t,
			llmtest.Say("The answer is 42."),                                    // no tool call: reminded
			llmtest.UseTools(llmtest.Call("StructuredOutput", `{"answer":42}`)), // wrong type: an input error
			llmtest.UseTools(llmtest.Call("StructuredOutput", `{"answer":"42"}`)),
			llmtest.Say("Not asked: the valid answer ends the turn."))
		e.anthropic(srv).run("-p", "--output-format", "json", "--json-schema", schema, "what is the answer?").wantCode(0)
		var res map[string]any
		json.Unmarshal([]byte(e.stdout), &res)
		if so, _ := res["structured_output"].(map[string]any); res["subtype"] != "success" || so["answer"] != "42" || res["result"] != `{"answer":"42"}` {
			t.Errorf("result %v", res)
		}
		if n := srv.Served(); n != 3 {
			t.Errorf("%d requests, want 3: the valid StructuredOutput call ends the turn", n)
		}
		if !strings.Contains(string(srv.Requests()[1].Body), "You must call the StructuredOutput tool") {
			t.Error("no reminder after a plain answer")
		}
		results, _ := srv.Requests()[2].ToolResults()
		if len(results) != 1 || !results[0].IsError {
			t.Errorf("input of the wrong type was accepted: %+v", results)
		}

		e2 := newE2E(t, bin)
		lazy := llmtest.NewAnthropicServer(t, llmtest.Say("a"), llmtest.Say("b"), llmtest.Say("c"), llmtest.Say("d"))
		e2.anthropic(lazy).run("-p", "--output-format", "json", "--json-schema", schema, "what is the answer?").wantCode(exitError)
		json.Unmarshal([]byte(e2.stdout), &res)
		if res["subtype"] != "error_max_structured_output_retries" || res["num_turns"] != 4.0 {
			t.Errorf("result %v", res)
		}
	})

	t.Run("json verbose", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t, llmtest.Say("ok"))
		e.anthropic(srv).run("-p", "--output-format", "json", "--verbose", "hi").wantCode(0)
		var all []map[string]any
		if err := json.Unmarshal([]byte(e.stdout), &all); err != nil {
			t.Fatalf("not an array: %v\n%s", err, e.stdout)
		}
		if len(all) != 3 || all[0]["subtype"] != "init" || all[1]["type"] != "assistant" || all[2]["type"] != "result" {
			t.Errorf("messages %v", all)
		}
	})

	t.Run("stream-json input without the SDK", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t, llmtest.Say("first"), llmtest.Say("second"))
		e.stdin = `{"type":"control_request","request_id":"1","request":{"subtype":"initialize"}}` + "\n" +
			`{"type":"user","message":{"role":"user","content":"one"}}` + "\n" +
			`garbage` + "\n" +
			`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"two"}]}}` + "\n"
		e.anthropic(srv).run("--input-format", "stream-json", "--output-format", "stream-json", "--verbose").wantCode(0)
		var kinds, results []string
		for _, m := range e.lines() {
			kinds = append(kinds, m["type"].(string))
			if m["type"] == "result" {
				results = append(results, m["result"].(string))
			}
		}
		if kinds[0] != "control_response" || strings.Join(results, ",") != "first,second" {
			t.Errorf("lines %v, results %v", kinds, results)
		}
		if !strings.Contains(e.stderr, "line 3 skipped") {
			t.Errorf("stderr %s", e.stderr)
		}
	})
}
