package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/tool"
)

// tooLong is the API's answer to a prompt over the window.
func tooLong(context.Context, *llm.Request) (*llm.Response, error) {
	return nil, &llm.APIError{Provider: "anthropic", StatusCode: 400, Type: "invalid_request_error", Message: "prompt is too long: 210000 tokens > 200000 maximum"}
}

// recorder keeps what a Recorder is given.
type recorder struct {
	mu         sync.Mutex
	msgs       []llm.Message
	boundaries []Boundary
}

func (r *recorder) AppendMessage(m llm.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, m)
	return nil
}
func (r *recorder) AppendPermissions(SessionState) error { return nil }
func (r *recorder) AppendBoundary(b Boundary) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.boundaries = append(r.boundaries, b)
	return nil
}

func isSummaryRequest(req *llm.Request) bool {
	return len(req.System) == 1 && req.System[0].Text == compactSystem
}

func collect(bus *Bus) (get func() []Event) {
	var mu sync.Mutex
	var evs []Event
	unsub := bus.Subscribe(func(ev Event) { mu.Lock(); evs = append(evs, ev); mu.Unlock() })
	return func() []Event { unsub(); mu.Lock(); defer mu.Unlock(); return evs }
}

func compactEvents(evs []Event) []*Boundary {
	var out []*Boundary
	for _, ev := range evs {
		if ev.Type == EventCompact {
			out = append(out, ev.Boundary)
		}
	}
	return out
}

func TestThreshold(t *testing.T) {
	for _, tc := range []struct {
		model     string
		maxTokens int
		c         Compaction
		want      int
	}{
		{"claude-sonnet-4-5", 0, Compaction{}, 200_000 - 8192 - 13_000},
		{"claude-sonnet-4-5", 32_000, Compaction{}, 200_000 - 20_000 - 13_000},
		{"claude-sonnet-4-5", 0, Compaction{Percent: 50}, (200_000 - 8192) / 2},
		// An override can only bring compaction earlier.
		{"claude-sonnet-4-5", 0, Compaction{Percent: 100}, 200_000 - 8192 - 13_000},
		{"claude-sonnet-4-5", 0, Compaction{Percent: 101}, 200_000 - 8192 - 13_000},
		{"claude-sonnet-4-5[1m]", 0, Compaction{}, 1_000_000 - 8192 - 13_000},
		{"x", 0, Compaction{Window: 50_000}, 50_000 - 8192 - 13_000},
	} {
		a := &Agent{Model: tc.model, MaxTokens: tc.maxTokens, Compaction: tc.c}
		if got := a.threshold(); got != tc.want {
			t.Errorf("%s max %d %+v: threshold %d, want %d", tc.model, tc.maxTokens, tc.c, got, tc.want)
		}
	}
}

func TestExtractSummary(t *testing.T) {
	for in, want := range map[string]string{
		"<analysis>scratch</analysis>\n<summary>\n1. Primary Request\n</summary>": "1. Primary Request",
		"no tags at all":                         "no tags at all",
		"<analysis>only scratch</analysis>":      "",
		"<summary>unclosed":                      "unclosed",
		"<analysis>a <summary>x</summary>":       "x",
		"before <summary>s</summary> after text": "s",
	} {
		if got := extractSummary(in); got != want {
			t.Errorf("extractSummary(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestContextUsage(t *testing.T) {
	a := &Agent{Model: "claude-sonnet-4-5", System: []llm.SystemBlock{{Text: strings.Repeat("s", 400)}, {Text: strings.Repeat("m", 800), Memory: true}}, Tools: mappingTools()}
	msgs := []llm.Message{llm.UserText(strings.Repeat("x", 4000))}
	u := a.ContextUsage(msgs)
	if u.Measured || u.System != 300 || u.Memory != 200 || u.Tools == 0 || u.Messages < 1000 || u.Tokens != u.System+u.Tools+u.Messages {
		t.Errorf("estimated usage %+v", u)
	}
	if u.Window != 200_000 || u.Threshold != 178_808 || !u.AutoCompact {
		t.Errorf("window %d threshold %d auto %v", u.Window, u.Threshold, u.AutoCompact)
	}
	a.acct.set(llm.Usage{InputTokens: 100_000, CacheReadInputTokens: 50_000, OutputTokens: 1000}, 1)
	u = a.ContextUsage(append(msgs, llm.UserText(strings.Repeat("y", 400))))
	if !u.Measured || u.Tokens != 151_000+104 {
		t.Errorf("measured usage %d (%v), want the response's 151000 plus 104 for the message after it", u.Tokens, u.Measured)
	}
	if u.Percent() != 75 || u.Left() != 15 {
		t.Errorf("percent %d left %d", u.Percent(), u.Left())
	}
}

func TestAutoCompactBeforeTheRequest(t *testing.T) {
	dir := t.TempDir()
	kept, dropped, edited := filepath.Join(dir, "kept.go"), filepath.Join(dir, "dropped.go"), filepath.Join(dir, "edited.go")
	files := tool.NewFileState()
	for _, p := range []string{kept, dropped, edited} {
		files.Record(p, tool.FileRead{Hash: "h"})
	}
	history := []llm.Message{
		llm.UserText("work on the files"),
		{Role: llm.RoleAssistant, Content: []llm.Block{
			llm.ToolUse("t1", "Read", []byte(`{"file_path":"`+dropped+`"}`)),
			llm.ToolUse("t2", "Read", []byte(`{"file_path":"`+edited+`"}`)),
		}},
		{Role: llm.RoleUser, Content: []llm.Block{
			llm.ToolResult("t1", []llm.Block{llm.Text(strings.Repeat("d", 30_000))}, false), // beyond a file's bound
			llm.ToolResult("t2", []llm.Block{llm.Text("1\told")}, false),
		}},
		{Role: llm.RoleAssistant, Content: []llm.Block{
			llm.ToolUse("t3", "Edit", []byte(`{"file_path":"`+edited+`","old_string":"old","new_string":"new"}`)),
			llm.ToolUse("t4", "Read", []byte(`{"file_path":"`+kept+`"}`)),
		}},
		{Role: llm.RoleUser, Content: []llm.Block{
			llm.ToolResult("t3", []llm.Block{llm.Text("edited")}, false),
			llm.ToolResult("t4", []llm.Block{llm.Text("1\tpackage kept")}, false),
		}},
		{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("done so far")}},
	}
	p := llmtest.NewScript(say("<analysis>x</analysis><summary>the work so far</summary>"), say("going on"))
	bus := &Bus{}
	events := collect(bus)
	rec := &recorder{}
	a := &Agent{Provider: p, Model: "m", Tools: mappingTools(), Permissions: newPerms(t), Bus: bus, Recorder: rec,
		Env: &tool.Env{Files: files}, Compaction: Compaction{Window: 25_000, Carry: func([]llm.Message) []string { return []string{"todo: finish"} }}}
	res, err := a.Run(context.Background(), history, llm.UserText("go on"))
	if err != nil {
		t.Fatal(err)
	}
	reqs := p.Requests()
	if len(reqs) != 2 || !isSummaryRequest(reqs[0]) || isSummaryRequest(reqs[1]) {
		t.Fatalf("requests: %d, want the summary request then the turn", len(reqs))
	}
	if last := reqs[0].Messages[len(reqs[0].Messages)-1]; !strings.Contains(last.Text(), "<summary>") || !strings.Contains(last.Text(), "go on") {
		t.Errorf("the summary request's last message %q holds the prompt and the request", last.Text())
	}
	sent := reqs[1].Messages
	if len(sent) != 1 || sent[0].Role != llm.RoleUser {
		t.Fatalf("after compaction the request holds %d messages, want the summary alone", len(sent))
	}
	text := sent[0].Text()
	for _, want := range []string{"the work so far", "continue the conversation", "package kept", "todo: finish"} {
		if !strings.Contains(text, want) {
			t.Errorf("compacted message lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "1\told") || strings.Contains(text, "ddd") || strings.Contains(text, "<analysis>") {
		t.Errorf("compacted message carries what it must not:\n%.300s", text)
	}
	if _, ok := files.Lookup(kept); !ok {
		t.Error("the file carried over was forgotten")
	}
	for _, p := range []string{dropped, edited} {
		if _, ok := files.Lookup(p); ok {
			t.Errorf("%s left the context but its read is still known: an Edit would pass", filepath.Base(p))
		}
	}
	b := compactEvents(events())
	if len(b) != 1 || b[0].Trigger != TriggerAuto || b[0].PreTokens < 7_000 || b[0].Messages != 7 {
		t.Errorf("compact events %+v", b)
	}
	if len(rec.boundaries) != 1 || len(res.Messages) != 2 || res.Text != "going on" {
		t.Errorf("boundaries %d, result messages %d, text %q", len(rec.boundaries), len(res.Messages), res.Text)
	}
}

func TestMeasuredUsageTriggersCompaction(t *testing.T) {
	// The first reply says the prompt was nearly the whole window: the next request compacts.
	near := func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		r, err := use("Echo", `{"text":"x"}`)(ctx, req)
		r.Usage = llm.Usage{InputTokens: 190_000}
		return r, err
	}
	p := llmtest.NewScript(near, say("<summary>s</summary>"), say("done"))
	a := &Agent{Provider: p, Model: "claude-sonnet-4-5", Tools: mappingTools(), Permissions: newPerms(t)}
	if _, err := a.Run(context.Background(), nil, llm.UserText("hi")); err != nil {
		t.Fatal(err)
	}
	reqs := p.Requests()
	if len(reqs) != 3 || !isSummaryRequest(reqs[1]) {
		t.Fatalf("%d requests; want the turn, the summary, the turn", len(reqs))
	}
	// The tool_use and its result were summarized together.
	if n := len(reqs[1].Messages); n != 3 {
		t.Errorf("summary request holds %d messages, want prompt, tool_use, results", n)
	}
}

func TestAutoCompactOff(t *testing.T) {
	for _, c := range []Compaction{{AutoDisabled: true}, {Disabled: true}} {
		p := llmtest.NewScript(say("fine"))
		a := &Agent{Provider: p, Model: "m", Tools: mappingTools(), Permissions: newPerms(t), Compaction: Compaction{Window: 1000, AutoDisabled: c.AutoDisabled, Disabled: c.Disabled}}
		if _, err := a.Run(context.Background(), nil, llm.UserText(strings.Repeat("x", 10_000))); err != nil {
			t.Fatal(err)
		}
		if reqs := p.Requests(); len(reqs) != 1 || isSummaryRequest(reqs[0]) {
			t.Errorf("%+v: %d requests, want the turn alone", c, len(reqs))
		}
	}
}

func TestPromptTooLongCompactsAndRetriesOnce(t *testing.T) {
	t.Run("recovers", func(t *testing.T) {
		p := llmtest.NewScript(tooLong, say("<summary>s</summary>"), say("answered"))
		a := &Agent{Provider: p, Model: "m", Tools: mappingTools(), Permissions: newPerms(t)}
		res, err := a.Run(context.Background(), nil, llm.UserText("hi"))
		if err != nil || res.Text != "answered" {
			t.Fatalf("Run = %v, %q", err, res.Text)
		}
		if reqs := p.Requests(); len(reqs) != 3 || !isSummaryRequest(reqs[1]) {
			t.Errorf("%d requests", len(reqs))
		}
	})
	t.Run("never loops", func(t *testing.T) {
		p := llmtest.NewScript(tooLong, say("<summary>s</summary>"), tooLong, say("<summary>s</summary>"), say("never"))
		a := &Agent{Provider: p, Model: "m", Tools: mappingTools(), Permissions: newPerms(t)}
		_, err := a.Run(context.Background(), nil, llm.UserText("hi"))
		if err == nil || !strings.Contains(err.Error(), "prompt is too long") {
			t.Fatalf("Run = %v, want the second refusal", err)
		}
		if reqs := p.Requests(); len(reqs) != 3 {
			t.Errorf("%d requests, want the turn, the summary and one retry", len(reqs))
		}
	})
	t.Run("disabled", func(t *testing.T) {
		p := llmtest.NewScript(tooLong, say("<summary>s</summary>"))
		a := &Agent{Provider: p, Model: "m", Tools: mappingTools(), Permissions: newPerms(t), Compaction: Compaction{Disabled: true}}
		if _, err := a.Run(context.Background(), nil, llm.UserText("hi")); err == nil || len(p.Requests()) != 1 {
			t.Errorf("Run = %v after %d requests, want the refusal at once", err, len(p.Requests()))
		}
	})
}

func TestSummaryTooLongDropsOldestTurns(t *testing.T) {
	var history []llm.Message
	for i := range 10 {
		id := "t" + string(rune('a'+i))
		history = append(history, llm.UserText("prompt"), llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.ToolUse(id, "Echo", []byte(`{}`))}},
			llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult(id, []llm.Block{llm.Text("r")}, false)}},
			llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("ok")}})
	}
	p := llmtest.NewScript(tooLong, tooLong, say("<summary>s</summary>"))
	a := &Agent{Provider: p, Model: "m", Tools: mappingTools(), Permissions: newPerms(t)}
	res, err := a.Compact(context.Background(), history, "")
	if err != nil || len(res.Messages) != 1 {
		t.Fatalf("Compact = %d messages, %v", len(res.Messages), err)
	}
	reqs := p.Requests()
	if len(reqs) != 3 || len(reqs[2].Messages) >= len(reqs[1].Messages) || len(reqs[1].Messages) >= len(reqs[0].Messages) {
		t.Fatalf("requests %d, want each shorter than the one before", len(reqs))
	}
	for _, r := range reqs {
		if err := pairedCalls(r.Messages); err != nil {
			t.Error(err)
		}
	}
	// A third refusal is the end.
	p = llmtest.NewScript(tooLong, tooLong, tooLong, say("<summary>s</summary>"))
	a.Provider = p
	if _, err := a.Compact(context.Background(), history, ""); err == nil || len(p.Requests()) != summaryAttempts {
		t.Errorf("Compact = %v after %d requests", err, len(p.Requests()))
	}
}

func TestManualCompactHooks(t *testing.T) {
	out := filepath.Join(t.TempDir(), "hook.json")
	hs := hookRunner(t,
		hooks.Hook{Event: hooks.PreCompact, Matcher: "manual", Command: "cat > " + out},
		hooks.Hook{Event: hooks.SessionStart, Matcher: "compact", Command: "echo 'remember the style guide'"},
	)
	p := llmtest.NewScript(say("<summary>s</summary>"))
	rec := &recorder{}
	a := &Agent{Provider: p, Model: "m", Tools: mappingTools(), Permissions: newPerms(t), Hooks: hs, Recorder: rec}
	res, err := a.Compact(context.Background(), []llm.Message{llm.UserText("a"), {Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("b")}}}, "keep the API names")
	if err != nil {
		t.Fatal(err)
	}
	if req := p.Requests()[0]; !strings.Contains(req.Messages[len(req.Messages)-1].Text(), "keep the API names") {
		t.Error("the custom instructions are not in the summary request")
	}
	input, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"hook_event_name":"PreCompact"`, `"trigger":"manual"`, `"custom_instructions":"keep the API names"`} {
		if !strings.Contains(string(input), want) {
			t.Errorf("PreCompact input %s lacks %s", input, want)
		}
	}
	if text := res.Messages[0].Text(); !strings.Contains(text, "remember the style guide") || strings.Contains(text, "continue the conversation") {
		t.Errorf("compacted message %q: want the SessionStart context and no order to go on (manual)", text)
	}
	if len(rec.boundaries) != 1 || rec.boundaries[0].Trigger != TriggerManual || len(rec.msgs) != 1 {
		t.Errorf("recorded %d boundaries %+v and %d messages", len(rec.boundaries), rec.boundaries, len(rec.msgs))
	}
}

func TestCompactFailureKeepsTheConversation(t *testing.T) {
	files := tool.NewFileState()
	files.Record("/a", tool.FileRead{})
	p := llmtest.NewScript(say("<analysis>only</analysis>"))
	a := &Agent{Provider: p, Model: "m", Tools: mappingTools(), Permissions: newPerms(t), Env: &tool.Env{Files: files}}
	history := []llm.Message{llm.UserText("a")}
	res, err := a.Compact(context.Background(), history, "")
	if err == nil || !strings.Contains(err.Error(), "without a summary") || !res.IsError || len(res.Messages) != 1 {
		t.Fatalf("Compact = %v, %+v; want an error result that keeps the conversation", err, res)
	}
	if _, ok := files.Lookup("/a"); !ok {
		t.Error("a failed compaction forgot the file state")
	}
	// A session that cannot record the compaction keeps everything as it was.
	a.Provider, a.Recorder = llmtest.NewScript(say("<summary>s</summary>")), failingBoundary{&recorder{}}
	res, err = a.Compact(context.Background(), history, "")
	if err == nil || !strings.Contains(err.Error(), "disk full") || len(res.Messages) != 1 || res.Messages[0].Text() != "a" {
		t.Fatalf("Compact with a failing recorder = %v, %+v", err, res)
	}
	if _, ok := files.Lookup("/a"); !ok {
		t.Error("a compaction that could not be recorded forgot the file state")
	}
	if _, err := (&Agent{Compaction: Compaction{Disabled: true}}).Compact(context.Background(), nil, ""); !errors.Is(err, ErrCompactionDisabled) {
		t.Errorf("disabled: %v", err)
	}
}

// failingBoundary is a session that cannot record a compaction.
type failingBoundary struct{ *recorder }

func (failingBoundary) AppendBoundary(Boundary) error { return errors.New("disk full") }

// pairedCalls checks that every tool_use is answered in the next message and every
// tool_result answers a tool_use of the message before.
func pairedCalls(msgs []llm.Message) error {
	for i, m := range msgs {
		for _, b := range m.Content {
			switch b.Type {
			case llm.BlockToolUse:
				if i+1 >= len(msgs) || !hasResult(msgs[i+1], b.ID) {
					return errors.New("tool_use " + b.ID + " has no tool_result after it")
				}
			case llm.BlockToolResult:
				if i == 0 || !hasUse(msgs[i-1], b.ToolUseID) {
					return errors.New("tool_result " + b.ToolUseID + " answers no tool_use before it")
				}
			}
		}
	}
	return nil
}

func hasResult(m llm.Message, id string) bool {
	for _, b := range m.Content {
		if b.Type == llm.BlockToolResult && b.ToolUseID == id {
			return true
		}
	}
	return false
}

func hasUse(m llm.Message, id string) bool {
	for _, b := range m.Content {
		if b.Type == llm.BlockToolUse && b.ID == id {
			return true
		}
	}
	return false
}

func TestFailedAutoCompactionIsToldAndNotRetried(t *testing.T) {
	p := llmtest.NewScript(say("<analysis>no summary</analysis>"), use("Echo", `{"text":"x"}`), say("done"))
	bus := &Bus{}
	events := collect(bus)
	a := &Agent{Provider: p, Model: "m", Tools: mappingTools(), Permissions: newPerms(t), Bus: bus, Compaction: Compaction{Window: 22_000}}
	res, err := a.Run(context.Background(), nil, llm.UserText(strings.Repeat("x", 8000)))
	if err != nil || res.Text != "done" {
		t.Fatalf("Run = %v, %q", err, res.Text)
	}
	reqs := p.Requests()
	if len(reqs) != 3 || !isSummaryRequest(reqs[0]) || isSummaryRequest(reqs[1]) || isSummaryRequest(reqs[2]) {
		t.Errorf("%d requests: want one failed summary, then the turns without another", len(reqs))
	}
	var told bool
	for _, ev := range events() {
		told = told || ev.Type == EventNotice && strings.Contains(ev.Text, "Automatic compaction failed")
	}
	if !told {
		t.Error("the failed compaction was not told")
	}
}
