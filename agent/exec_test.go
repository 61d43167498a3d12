package agent

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/toolcall"
)

type sleepIn struct {
	ID   string `json:"id"`
	Fail bool   `json:"fail,omitempty"`
}

// tracker records when calls start and end and how many run at once.
type tracker struct {
	mu      sync.Mutex
	events  []string // "start id" / "end id"
	running int
	peak    int
}

func (tr *tracker) begin(id string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.events = append(tr.events, "start "+id)
	tr.running++
	tr.peak = max(tr.peak, tr.running)
}

func (tr *tracker) end(id string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.events = append(tr.events, "end "+id)
	tr.running--
}

// sleeper is a fake tool that sleeps d (or until cancelled); safe says whether it is
// concurrency-safe.
func sleeper(name string, safe bool, d time.Duration, tr *tracker) tool.Tool {
	return tool.Build(tool.Def[sleepIn]{Name: name,
		CheckPermissions: allowAny[sleepIn],
		ConcurrencySafe:  func(sleepIn) bool { return safe },
		Call: func(ctx context.Context, in sleepIn, _ *tool.Env) (tool.Result, error) {
			tr.begin(in.ID)
			defer tr.end(in.ID)
			if in.Fail {
				return tool.ErrorResult("Exit code 1"), nil
			}
			select {
			case <-time.After(d):
				return tool.TextResult("slept " + in.ID), nil
			case <-ctx.Done():
				return tool.Result{}, ctx.Err()
			}
		}})
}

func allowAny[In any](context.Context, *permission.Context, In) permission.Decision {
	return permission.Decision{Behavior: permission.Allow}
}

func runCalls(t *testing.T, tools []tool.Tool, maxConc int, calls ...string) ([]llm.Block, time.Duration) {
	t.Helper()
	p := llmtest.NewScript(use(calls...), say("done"))
	a := &Agent{Provider: p, Model: "m", Tools: tools, Permissions: newPerms(t), MaxConcurrency: maxConc}
	start := time.Now()
	if _, err := a.Run(context.Background(), nil, llm.UserText("go")); err != nil {
		t.Fatal(err)
	}
	return lastResults(t, p), time.Since(start)
}

func TestParallelSafeCalls(t *testing.T) {
	const one = 200 * time.Millisecond
	tr := &tracker{}
	var calls []string
	for i := range 10 {
		calls = append(calls, "Slow", fmt.Sprintf(`{"id":"%d"}`, i))
	}
	// All ten ran at once: the peak, not the wall time, says so (wall time depends on load).
	rs, _ := runCalls(t, []tool.Tool{sleeper("Slow", true, one, tr)}, 0, calls...)
	if tr.peak != 10 {
		t.Errorf("peak concurrency %d, want 10", tr.peak)
	}
	for i, r := range rs {
		if want := fmt.Sprintf("slept %d", i); resultText(r) != want || r.IsError {
			t.Errorf("result %d = %q (error %v), want %q", i, resultText(r), r.IsError, want)
		}
	}
}

func TestConcurrencyCap(t *testing.T) {
	tr := &tracker{}
	var calls []string
	for i := range 12 {
		calls = append(calls, "Slow", fmt.Sprintf(`{"id":"%d"}`, i))
	}
	runCalls(t, []tool.Tool{sleeper("Slow", true, 30*time.Millisecond, tr)}, 3, calls...)
	if tr.peak != 3 {
		t.Errorf("peak concurrency %d with a cap of 3", tr.peak)
	}
}

// TestMixedBatch checks that unsafe calls run alone and in order, and that the safe runs
// between them run in parallel.
func TestMixedBatch(t *testing.T) {
	tr := &tracker{}
	tools := []tool.Tool{sleeper("Safe", true, 40*time.Millisecond, tr), sleeper("Unsafe", false, 20*time.Millisecond, tr)}
	rs, _ := runCalls(t, tools, 0,
		"Safe", `{"id":"s1"}`, "Safe", `{"id":"s2"}`,
		"Unsafe", `{"id":"u1"}`, "Unsafe", `{"id":"u2"}`,
		"Safe", `{"id":"s3"}`, "Safe", `{"id":"s4"}`, "Safe", `{"id":"s5"}`,
		"Unsafe", `{"id":"u3"}`)
	ev := tr.events
	at := func(s string) int {
		for i, e := range ev {
			if e == s {
				return i
			}
		}
		t.Fatalf("no %q in %v", s, ev)
		return -1
	}
	// Each unsafe call starts after everything before it ended and ends before anything
	// after it starts.
	for _, u := range []string{"u1", "u2", "u3"} {
		if at("end "+u) != at("start "+u)+1 {
			t.Errorf("%s overlapped another call: %v", u, ev)
		}
	}
	before := [][2]string{{"end s1", "start u1"}, {"end s2", "start u1"}, {"end u1", "start u2"},
		{"end u2", "start s3"}, {"end u2", "start s4"}, {"end u2", "start s5"},
		{"end s3", "start u3"}, {"end s4", "start u3"}, {"end s5", "start u3"}}
	for _, b := range before {
		if at(b[0]) > at(b[1]) {
			t.Errorf("%q came after %q: %v", b[0], b[1], ev)
		}
	}
	// The safe runs overlapped.
	if at("start s2") > at("end s1") || at("start s5") > at("end s3") {
		t.Errorf("safe calls did not run in parallel: %v", ev)
	}
	want := []string{"s1", "s2", "u1", "u2", "s3", "s4", "s5", "u3"}
	for i, r := range rs {
		if resultText(r) != "slept "+want[i] {
			t.Errorf("result %d = %q, want slept %s", i, resultText(r), want[i])
		}
	}
}

func TestBashErrorCancelsSiblings(t *testing.T) {
	tr := &tracker{}
	bash := tool.Build(tool.Def[bashIn]{Name: "Bash",
		CheckPermissions: allowAny[bashIn],
		ConcurrencySafe:  func(bashIn) bool { return true },
		Call: func(ctx context.Context, in bashIn, _ *tool.Env) (tool.Result, error) {
			if strings.HasPrefix(in.Command, "false") {
				time.Sleep(20 * time.Millisecond)
				return tool.ErrorResult("Exit code 1"), nil
			}
			select {
			case <-time.After(5 * time.Second):
				return tool.TextResult("finished"), nil
			case <-ctx.Done():
				return tool.Result{}, ctx.Err()
			}
		}})
	failing := `false && echo this command is longer than forty characters`
	// A sibling that was not cancelled would answer "finished" or "slept queued".
	rs, _ := runCalls(t, []tool.Tool{bash, sleeper("Slow", true, 5*time.Second, tr)}, 2,
		"Bash", `{"command":"sleep 10"}`,
		"Bash", `{"command":"`+failing+`"}`,
		"Slow", `{"id":"queued"}`)
	cancelled := "<tool_use_error>Cancelled: parallel tool call Bash(false && echo this command is longer tha…) errored</tool_use_error>"
	want := []struct {
		text    string
		isError bool
	}{{cancelled, true}, {"Exit code 1", true}, {cancelled, true}}
	for i, w := range want {
		if resultText(rs[i]) != w.text || rs[i].IsError != w.isError {
			t.Errorf("result %d = %q (error %v), want %q", i, resultText(rs[i]), rs[i].IsError, w.text)
		}
	}
	if len(tr.events) != 0 {
		t.Errorf("the queued call started: %v", tr.events)
	}
}

// A failing non-Bash tool does not cancel its siblings.
func TestOtherErrorsDoNotCancel(t *testing.T) {
	tr := &tracker{}
	rs, _ := runCalls(t, []tool.Tool{sleeper("Slow", true, 30*time.Millisecond, tr)}, 0,
		"Slow", `{"id":"a"}`, "Slow", `{"id":"b","fail":true}`, "Slow", `{"id":"c"}`)
	if resultText(rs[0]) != "slept a" || resultText(rs[2]) != "slept c" || !rs[1].IsError {
		t.Errorf("results %+v", rs)
	}
}

type bashIn struct {
	Command string `json:"command"`
}

// TestInterrupt cancels with ErrInterrupt: a call whose tool blocks interrupts finishes, one
// that cancels stops.
func TestInterrupt(t *testing.T) {
	var running atomic.Int32
	mk := func(name string, b tool.InterruptBehavior) tool.Tool {
		return tool.Build(tool.Def[echoIn]{Name: name, CheckPermissions: allow, Interrupt: b,
			ConcurrencySafe: func(echoIn) bool { return true },
			Call: func(ctx context.Context, _ echoIn, _ *tool.Env) (tool.Result, error) {
				running.Add(1)
				select {
				case <-time.After(300 * time.Millisecond):
					return tool.TextResult(name + " finished"), nil
				case <-ctx.Done():
					return tool.Result{}, ctx.Err()
				}
			}})
	}
	p := llmtest.NewScript(use("Blocker", `{}`, "Canceller", `{}`))
	a := &Agent{Provider: p, Model: "m", Permissions: newPerms(t),
		Tools: []tool.Tool{mk("Blocker", tool.Block), mk("Canceller", tool.Cancel)}}
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		for running.Load() < 2 {
			time.Sleep(time.Millisecond)
		}
		cancel(ErrInterrupt)
	}()
	res, _ := a.Run(ctx, nil, llm.UserText("go"))
	last := res.Messages[len(res.Messages)-1]
	if got := resultText(last.Content[0]); got != "Blocker finished" {
		t.Errorf("blocking call: %q, want it to finish", got)
	}
	if got := resultText(last.Content[1]); got != InterruptedMessage {
		t.Errorf("cancelling call: %q, want %q", got, InterruptedMessage)
	}
}

func TestProgressEvents(t *testing.T) {
	reporter := tool.Build(tool.Def[echoIn]{Name: "Reporter", CheckPermissions: allow,
		ConcurrencySafe: func(echoIn) bool { return true },
		Call: func(_ context.Context, in echoIn, env *tool.Env) (tool.Result, error) {
			for i := range 3 {
				env.Report(tool.Progress{Message: fmt.Sprintf("%s %d", in.Text, i)})
			}
			return tool.TextResult("ok"), nil
		}})
	p := llmtest.NewScript(use("Reporter", `{"text":"a"}`, "Reporter", `{"text":"b"}`), say("done"))
	var bus Bus
	var mu sync.Mutex
	var evs []Event
	unsub := bus.Subscribe(func(e Event) {
		mu.Lock()
		evs = append(evs, e)
		mu.Unlock()
	})
	a := &Agent{Provider: p, Model: "m", Permissions: newPerms(t), Tools: []tool.Tool{reporter}, Bus: &bus}
	if _, err := a.Run(context.Background(), nil, llm.UserText("go")); err != nil {
		t.Fatal(err)
	}
	unsub()
	var types []EventType
	progress := map[string][]string{}
	calls := map[string]*CallRecord{}
	for _, e := range evs {
		if e.Type == EventToolCall {
			// Each call's record comes when it ends, between other calls' progress.
			calls[e.Call.ToolUseID] = e.Call
			continue
		}
		if len(types) == 0 || types[len(types)-1] != e.Type {
			types = append(types, e.Type)
		}
		if e.Type == EventProgress {
			progress[e.ToolUseID] = append(progress[e.ToolUseID], e.Progress.Message)
		}
	}
	wantTypes := []EventType{EventAssistant, EventProgress, EventToolResults, EventTextDelta, EventAssistant, EventResult}
	if fmt.Sprint(types) != fmt.Sprint(wantTypes) {
		t.Errorf("event sequence %v, want %v", types, wantTypes)
	}
	for _, id := range []string{"toolu_1_0", "toolu_1_1"} {
		c := calls[id]
		if c == nil || c.Stage != toolcall.Done || c.Decision.Behavior != permission.Allow || c.ToolName != reporter.Name() {
			t.Errorf("tool_call event of %s = %+v, want a done, allowed call", id, c)
		}
	}
	// Progress may be coalesced, but the latest report of each call always arrives.
	for id, text := range map[string]string{"toolu_1_0": "a 2", "toolu_1_1": "b 2"} {
		got := progress[id]
		if len(got) == 0 || got[len(got)-1] != text {
			t.Errorf("progress of %s = %v, want it to end with %q", id, got, text)
		}
	}
}
