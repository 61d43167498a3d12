package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/anthropic"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/tool"
)

// conversationOf is a conversation of turns Read calls, each result about resultTokens
// tokens of code, after one prompt.
func conversationOf(turns, resultTokens int) ([]llm.Message, *tool.FileState) {
	files := tool.NewFileState()
	msgs := []llm.Message{llm.UserText("refactor the package")}
	line := "\tfmt.Println(strings.Repeat(\"x\", 10)) // a line of code\n"
	content := strings.Repeat(line, resultTokens*4/len(line))
	for i := range turns {
		id, p := fmt.Sprintf("toolu_%d", i), fmt.Sprintf("/w/pkg/file%d.go", i)
		msgs = append(msgs,
			llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("Reading the next file."), llm.ToolUse(id, "Read", []byte(`{"file_path":"`+p+`"}`))}},
			llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult(id, []llm.Block{llm.Text(content)}, false)}})
		files.Record(p, tool.FileRead{Hash: "h"})
	}
	return msgs, files
}

// BenchmarkAutoCompact150k is one automatic compaction of a 150,000-token conversation
// against the fake Anthropic API on loopback: the local part (building the summary request,
// the adapter, the stream, what is carried over, the file state); the fake answers at once.
// It reports the conversation's tokens before and after, and the size of the summary
// request's messages.
func BenchmarkAutoCompact150k(b *testing.B) {
	msgs, _ := conversationOf(250, 600)
	srv := llmtest.NewAnthropicServer(b, llmtest.Say("<analysis>notes</analysis><summary>"+strings.Repeat("The summary of the work. ", 200)+"</summary>"))
	srv.Repeat()
	p := anthropic.New(anthropic.Options{APIKey: "k", BaseURL: srv.URL})
	perms := newPerms(b)
	var pre, post int
	for b.Loop() {
		_, files := conversationOf(250, 600)
		a := &Agent{Provider: p, Model: "claude-sonnet-4-5", Tools: mappingTools(), Permissions: perms, Env: &tool.Env{Files: files}}
		r := &run{a: a, res: &Result{}, msgs: msgs}
		r.x = a.newExecutor()
		pre = a.ContextUsage(r.msgs).Tokens
		if err := r.compact(context.Background(), TriggerAuto, ""); err != nil {
			b.Fatal(err)
		}
		post = a.ContextUsage(r.msgs).Tokens
	}
	// Repeat stops the server recording: the request's size is its messages' JSON.
	body, _ := json.Marshal(summaryMessages(msgs, ""))
	b.ReportMetric(float64(pre), "pre_tokens")
	b.ReportMetric(float64(post), "post_tokens")
	b.ReportMetric(float64(len(body)), "request_bytes")
}

// BenchmarkSession500Turns runs a 500-turn session (each turn a call whose result is about
// 2,000 tokens) and compacts it: the live heap before the session (the test's own), with the
// 500 turns, and after the compaction.
func BenchmarkSession500Turns(b *testing.B) {
	input := strings.Repeat("y", 8000)
	answers := make([]llmtest.Answer, 0, 502)
	for range 500 {
		answers = append(answers, use("Echo", `{"text":"`+input+`"}`))
	}
	answers = append(answers, say("done"), say("<summary>the session so far</summary>"))
	var base, before, after uint64
	for b.Loop() {
		base = liveHeap()
		p := llmtest.NewScript(answers...)
		a := &Agent{Provider: p, Model: "claude-sonnet-4-5", Tools: mappingTools(), Permissions: newPerms(b), Compaction: Compaction{AutoDisabled: true}}
		res, err := a.Run(context.Background(), nil, llm.UserText("go"))
		if err != nil {
			b.Fatal(err)
		}
		// The script keeps a copy of every request: drop it, so the heap is the session's.
		p = nil
		before = liveHeap()
		cres, err := a.Compact(context.Background(), res.Messages, "")
		if err != nil {
			b.Fatal(err)
		}
		res = nil
		after = liveHeap()
		runtime.KeepAlive(cres)
	}
	b.ReportMetric(float64(base)/(1<<20), "heap_base_MB")
	b.ReportMetric(float64(before)/(1<<20), "heap_before_MB")
	b.ReportMetric(float64(after)/(1<<20), "heap_after_MB")
}

func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
