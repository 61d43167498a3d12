package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
)

// summarySystem is the system prompt of a summary request.
const summarySystem = "You are a helpful AI assistant tasked with summarizing conversations."

// requestBody is what the tests read of a request to the fake Anthropic API.
type requestBody struct {
	System []struct {
		Text string `json:"text"`
	} `json:"system"`
	Messages []llm.Message `json:"messages"`
}

func decodeRequest(t *testing.T, r llmtest.Request) requestBody {
	t.Helper()
	var b requestBody
	if err := r.Decode(&b); err != nil {
		t.Fatal(err)
	}
	return b
}

func (b requestBody) isSummary() bool { return len(b.System) == 1 && b.System[0].Text == summarySystem }

func (b requestBody) text() string {
	var s strings.Builder
	for _, m := range b.Messages {
		s.WriteString(m.Text())
		for _, c := range m.Content {
			for _, cc := range c.Content {
				s.WriteString(cc.Text)
			}
		}
	}
	return s.String()
}

// streamLines are the JSON lines of a stream-json output with the given type and subtype.
func streamLines(t *testing.T, out, typ, subtype string) []map[string]any {
	t.Helper()
	var found []map[string]any
	for l := range strings.Lines(out) {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["type"] == typ && (subtype == "" || m["subtype"] == subtype) {
			found = append(found, m)
		}
	}
	return found
}

// TestCompactionE2E runs the real binary against the scripted API: usage reported near the
// window compacts before the next request, with the hooks, the stream-json boundary and a
// file state that asks for a new Read; a "prompt is too long" compacts and retries once;
// /compact on a continued session, and --continue from the summary.
func TestCompactionE2E(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the end-to-end tests use a POSIX shell")
	}
	bin := reinsBinary(t)

	t.Run("usage near the window", func(t *testing.T) {
		e := newE2E(t, bin)
		small := e.write("small.go", "package small\n")
		big := e.write("big.txt", strings.Repeat("a line of the big file\n", 2000))
		hookOut := filepath.Join(e.home, "precompact.json")
		e.userSettings(`{"hooks":{"PreCompact":[{"matcher":"auto","hooks":[{"type":"command","command":"cat > ` + hookOut + `"}]}],` +
			`"SessionStart":[{"matcher":"compact","hooks":[{"type":"command","command":"echo compact-context-from-hook"}]}]}}`)
		near := llmtest.UseTools(llmtest.Call("Read", fmt.Sprintf(`{"file_path":%q}`, small)), llmtest.Call("Read", fmt.Sprintf(`{"file_path":%q}`, big)))
		near.Usage = llm.Usage{InputTokens: 185_000, OutputTokens: 100}
		srv := llmtest.NewAnthropicServer(t, near,
			llmtest.Say("<analysis>notes</analysis><summary>We read small.go and big.txt.</summary>"),
			llmtest.UseTools(llmtest.Call("Edit", fmt.Sprintf(`{"file_path":%q,"old_string":"a line","new_string":"one line"}`, big)),
				llmtest.Call("Edit", fmt.Sprintf(`{"file_path":%q,"old_string":"small","new_string":"tiny"}`, small))),
			llmtest.Say("Done."))
		e.anthropic(srv)
		e.run("-p", "--output-format", "stream-json", "--verbose", "--permission-mode", "acceptEdits", "read both and edit them").wantCode(0)
		reqs := srv.Requests()
		if len(reqs) != 4 {
			t.Fatalf("%d requests, want turn, summary, turn, turn\n%s", len(reqs), e.stderr)
		}
		if !decodeRequest(t, reqs[1]).isSummary() {
			t.Fatal("the second request is not the summary request")
		}
		after := decodeRequest(t, reqs[2])
		if after.isSummary() || len(after.Messages) != 1 {
			t.Fatalf("after compaction the request holds %d messages, want the summary alone", len(after.Messages))
		}
		text := after.text()
		for _, want := range []string{"We read small.go and big.txt.", "package small", "compact-context-from-hook", "Current working directory: " + e.dir} {
			if !strings.Contains(text, want) {
				t.Errorf("the compacted conversation lacks %q:\n%.2000s", want, text)
			}
		}
		if strings.Contains(text, "a line of the big file") || strings.Contains(text, "<analysis>") {
			t.Error("the compacted conversation carries the big file or the analysis")
		}
		// The big file's content left the context: its Edit needs a new Read. The small
		// file's came with the summary: its Edit goes through.
		rs := toolResults(t, reqs[3])
		if len(rs) != 2 || !rs[0].IsError || !strings.Contains(blockText(rs[0]), "has not been read yet") {
			t.Errorf("Edit of the file that left the context: %+v", rs)
		}
		if len(rs) == 2 && rs[1].IsError {
			t.Errorf("Edit of the file carried over failed: %s", blockText(rs[1]))
		}
		if b, _ := os.ReadFile(small); string(b) != "package tiny\n" {
			t.Errorf("small.go is %q", b)
		}
		input, err := os.ReadFile(hookOut)
		if err != nil || !strings.Contains(string(input), `"trigger":"auto"`) || !strings.Contains(string(input), `"hook_event_name":"PreCompact"`) {
			t.Errorf("PreCompact input %s (%v)", input, err)
		}
		bs := streamLines(t, e.stdout, "system", "compact_boundary")
		if len(bs) != 1 {
			t.Fatalf("%d compact_boundary lines:\n%s", len(bs), e.stdout)
		}
		md, _ := bs[0]["compact_metadata"].(map[string]any)
		if md["trigger"] != "auto" || md["pre_tokens"].(float64) < 185_000 || bs[0]["session_id"] == "" {
			t.Errorf("compact_boundary %v", bs[0])
		}
	})

	t.Run("/compact on a continued session", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t, llmtest.Say("First answer."),
			llmtest.Say("<summary>The user asked a first question.</summary>"), llmtest.Say("Second answer."))
		e.anthropic(srv)
		e.run("-p", "--output-format", "json", "first question").wantCode(0)
		var first struct {
			SessionID string `json:"session_id"`
		}
		json.Unmarshal([]byte(e.stdout), &first)
		e.run("-p", "--continue", "--output-format", "stream-json", "--verbose", "/compact keep the names").wantCode(0)
		if bs := streamLines(t, e.stdout, "system", "compact_boundary"); len(bs) != 1 || bs[0]["compact_metadata"].(map[string]any)["trigger"] != "manual" {
			t.Errorf("compact_boundary lines %v", bs)
		}
		sum := decodeRequest(t, srv.Requests()[1])
		if !sum.isSummary() || !strings.Contains(sum.text(), "keep the names") || !strings.Contains(sum.text(), "First answer.") {
			t.Errorf("summary request: %.500s", sum.text())
		}
		e.run("-p", "--continue", "second question").wantCode(0)
		third := decodeRequest(t, srv.Requests()[2])
		if len(third.Messages) != 1 || !strings.Contains(third.text(), "The user asked a first question.") || !strings.Contains(third.text(), "second question") ||
			strings.Contains(third.text(), "First answer.") {
			t.Errorf("--continue after /compact sent %d messages: %.800s", len(third.Messages), third.text())
		}
		files, _ := filepath.Glob(filepath.Join(e.home, ".reins", "projects", "*", first.SessionID+".jsonl"))
		if len(files) != 1 {
			t.Fatalf("session files %v", files)
		}
		data, _ := os.ReadFile(files[0])
		for _, want := range []string{"first question", "First answer.", `"type":"compact_boundary"`, `"trigger":"manual"`, "second question"} {
			if !strings.Contains(string(data), want) {
				t.Errorf("the session file lacks %s", want)
			}
		}
		// Without a conversation there is nothing to compact: an error result.
		e2 := newE2E(t, bin)
		e2.anthropic(llmtest.NewAnthropicServer(t))
		e2.run("-p", "/compact")
		if e2.code == 0 || !strings.Contains(e2.stdout+e2.stderr, "not enough messages to compact") {
			t.Errorf("/compact of nothing: exit %d, %q %q", e2.code, e2.stdout, e2.stderr)
		}
	})

}

// TestCompactInteractiveE2E: in the chat, /compact summarizes the conversation, /context
// shows the window, and the next message goes on from the summary.
func TestCompactInteractiveE2E(t *testing.T) {
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	srv := llmtest.NewAnthropicServer(t, llmtest.Say("First answer."),
		llmtest.Say("<summary>The user said hello.</summary>"), llmtest.Say("Going on."))
	e.anthropic(srv)
	r := startTUI(t, e)
	r.waitFor("default mode")
	r.typeText("hello")
	r.keys("Enter")
	r.waitAnswer("First answer.")
	r.typeText("/compact keep it short")
	r.keys("Enter")
	r.waitFor("Conversation compacted:")
	r.typeText("/context")
	r.keys("Enter")
	r.waitFor("Context:", "Messages", "Autocompact buffer")
	r.typeText("and now")
	r.keys("Enter")
	r.waitFor("Going on.")
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	sum, next := decodeRequest(t, reqs[1]), decodeRequest(t, reqs[2])
	if !sum.isSummary() || !strings.Contains(sum.text(), "keep it short") {
		t.Errorf("summary request: %.300s", sum.text())
	}
	if len(next.Messages) != 1 || !strings.Contains(next.text(), "The user said hello.") || strings.Contains(next.text(), "First answer.") {
		t.Errorf("after /compact the chat sent %d messages: %.500s", len(next.Messages), next.text())
	}
	r.quit()
}

// TestCompactAgentSDK: the real Agent SDK asks get_context_usage between turns and sends a
// prompt that is /compact; the next turn goes on from the summary.
func TestCompactAgentSDK(t *testing.T) {
	node := nodeSDK(t)
	e := newE2E(t, reinsBinary(t))
	srv := llmtest.NewAnthropicServer(t, llmtest.Say("Hello."), llmtest.Say("<summary>The user said hello.</summary>"), llmtest.Say("Going on."))
	e.anthropic(srv).drive(node, "compact")
	reqs := srv.Requests()
	if len(reqs) != 3 || !decodeRequest(t, reqs[1]).isSummary() || !strings.Contains(decodeRequest(t, reqs[1]).text(), "keep the names") {
		t.Fatalf("%d requests; the second is not the summary request with the instructions", len(reqs))
	}
	if next := decodeRequest(t, reqs[2]); len(next.Messages) != 1 || !strings.Contains(next.text(), "The user said hello.") {
		t.Errorf("the turn after /compact sent %d messages: %.300s", len(next.Messages), next.text())
	}
}
