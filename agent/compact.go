package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/toolcall"
)

// Compaction triggers, as Claude Code names them in PreCompact hooks and compact_boundary.
const (
	TriggerAuto   = "auto"
	TriggerManual = "manual"
)

// What a compaction carries over of the files read recently, as Claude Code does: the five
// files read last, each whole up to a bound, within a budget for all of them.
const (
	carryFiles        = 5
	carryFileTokens   = 5_000
	carryBudgetTokens = 50_000
	// summaryAttempts bounds the summary requests of one compaction: when the conversation
	// is itself too long to summarize, the oldest turns are dropped and it is tried again.
	summaryAttempts = 3
)

// ErrCompactionDisabled is returned by [Agent.Compact] when compaction is turned off.
var ErrCompactionDisabled = errors.New("compaction is disabled (DISABLE_COMPACT)")

// Boundary is the record of one compaction: the session file keeps it before the summary,
// and stream-json reports it as a compact_boundary message.
type Boundary struct {
	Trigger string `json:"trigger"`
	// PreTokens is the size of the conversation compacted; PostTokens an estimate of the
	// size of what replaced it.
	PreTokens  int `json:"preTokens"`
	PostTokens int `json:"postTokens,omitempty"`
	// Duration is how long the compaction took, the summary request included.
	Duration time.Duration `json:"durationMs,omitempty"`
	// Messages is how many messages the summary replaced.
	Messages int `json:"messages"`
}

// BoundaryRecorder is a [Recorder] that records compactions: AppendBoundary comes before the
// summary message, so that a session read back starts from the last boundary.
type BoundaryRecorder interface {
	AppendBoundary(b Boundary) error
}

// Compact replaces the conversation msgs by a summary the model writes (with the custom
// instructions added to its request), carrying over the files read recently, the texts of
// [Compaction.Carry] and the context of SessionStart hooks (source compact). It is /compact:
// the trigger is manual. It runs the PreCompact hooks, records the boundary, publishes
// [EventCompact] and, as Run does, the Result, whose Messages are the new conversation and
// whose usage is the summary request's. An Agent runs one conversation at a time: Compact
// must not be called while Run is.
func (a *Agent) Compact(ctx context.Context, msgs []llm.Message, instructions string) (*Result, error) {
	r := &run{a: a, start: time.Now(), res: &Result{Subtype: SubtypeSuccess, CostKnown: true}, msgs: slices.Clone(msgs)}
	switch {
	case a.Compaction.Disabled:
		return r.finish(ErrCompactionDisabled)
	case a.Provider == nil || a.Permissions == nil:
		return r.finish(errors.New("agent: Provider and Permissions are required"))
	}
	r.x = a.newExecutor()
	if err := r.compact(ctx, TriggerManual, instructions); err != nil {
		r.msgs = msgs
		return r.finish(err)
	}
	r.res.Text = "Compacted the conversation."
	return r.finish(nil)
}

// compact summarizes the run's conversation and replaces it: the stages are the PreCompact
// hooks, the summary, what is carried over, the file state, and the record.
func (r *run) compact(ctx context.Context, trigger, instructions string) error {
	a := r.a
	if len(r.msgs) == 0 {
		return errors.New("not enough messages to compact")
	}
	start := time.Now()
	pre := a.ContextUsage(r.msgs).Tokens
	common := toolcall.Common(r.x.permissions())
	if a.Hooks.Has(hooks.PreCompact) {
		rep := a.Hooks.PreCompact(ctx, common, trigger, instructions)
		notify(a.Bus, rep.Messages)
	}
	summary, err := r.summarize(ctx, instructions)
	if err != nil {
		return fmt.Errorf("compacting the conversation: %w", err)
	}
	files := carriedFiles(r.msgs, a.cwd(), writtenContent(ctx, r.x.env.Files))
	msg := compactedMessage(summary, trigger, files, a.carried(r.msgs))
	if a.Hooks.Has(hooks.SessionStart) {
		rep, texts := a.Hooks.SessionStart(ctx, common, "compact", a.Model)
		notify(a.Bus, rep.Messages)
		for _, t := range texts {
			msg.Content = append(msg.Content, llm.Text("SessionStart hook additional context: "+t))
		}
	}
	b := Boundary{Trigger: trigger, PreTokens: pre, Messages: len(r.msgs)}
	a.acct.set(llm.Usage{}, 0)
	b.PostTokens = a.ContextUsage([]llm.Message{msg}).Tokens
	b.Duration = time.Since(start)
	// Recorded before anything is replaced: a session that cannot be written keeps the
	// conversation and the file state as they were.
	if br, ok := a.Recorder.(BoundaryRecorder); ok {
		if err := br.AppendBoundary(b); err != nil {
			return fmt.Errorf("recording the session: %w", err)
		}
	}
	if err := a.record(msg); err != nil {
		return err
	}
	if fs := r.x.env.Files; fs != nil {
		keep := map[string]bool{}
		for _, f := range files {
			keep[f.path] = true
		}
		fs.Retain(func(p string) bool { return keep[p] })
	}
	r.msgs = []llm.Message{msg}
	a.Bus.Publish(Event{Type: EventCompact, Boundary: &b, Message: &msg})
	return nil
}

// summarize asks the model for the summary. A conversation too long even for that loses its
// oldest turns, at a point where no tool_use is parted from its tool_result, and is tried
// again, a bounded number of times.
func (r *run) summarize(ctx context.Context, instructions string) (string, error) {
	a := r.a
	msgs := r.msgs
	for attempt := 1; ; attempt++ {
		req := &llm.Request{
			Model:     a.Model,
			System:    llm.SystemText(compactSystem),
			Messages:  summaryMessages(msgs, instructions),
			Tools:     a.specs(),
			MaxTokens: min(summaryReserve, max(a.MaxTokens, DefaultMaxTokens)),
		}
		apiStart := time.Now()
		resp, err := a.Provider.Stream(ctx, req, nil)
		r.res.APIDuration += time.Since(apiStart)
		if err != nil {
			if llm.IsPromptTooLong(err) && attempt < summaryAttempts {
				if shorter, ok := dropOldest(msgs); ok {
					msgs = shorter
					continue
				}
			}
			return "", fmt.Errorf("the summary request failed: %w", err)
		}
		r.usageMu.Lock()
		r.res.Usage = r.res.Usage.Add(resp.Usage)
		if c, ok := EstimateCost(cmp.Or(resp.Model, a.Model), resp.Usage); ok {
			r.res.CostUSD += c
		} else {
			r.res.CostKnown = false
		}
		r.usageMu.Unlock()
		a.Bus.Publish(Event{Type: EventUsage, Response: &llm.Response{Model: resp.Model, Usage: resp.Usage}})
		s := extractSummary(resp.Message.Text())
		if s == "" {
			return "", errors.New("the model answered the summary request without a summary")
		}
		return s, nil
	}
}

// summaryMessages is the conversation with the summary request after it, in the last user
// message when the conversation ends with one (a prompt, or tool results).
func summaryMessages(msgs []llm.Message, instructions string) []llm.Message {
	ask := llm.Text(compactRequest(instructions))
	out := slices.Clone(msgs)
	if n := len(out); n > 0 && out[n-1].Role == llm.RoleUser {
		out[n-1] = llm.Message{Role: llm.RoleUser, Content: append(slices.Clone(out[n-1].Content), ask)}
		return out
	}
	return append(out, llm.Message{Role: llm.RoleUser, Content: []llm.Block{ask}})
}

// dropOldest removes about a fifth of the conversation from its start, up to a user message
// that holds no tool_result (a person's prompt), so that no tool_use loses its result or the
// reverse. It reports false when there is no such point.
func dropOldest(msgs []llm.Message) ([]llm.Message, bool) {
	want := max(1, len(msgs)/5)
	for i := want; i < len(msgs); i++ {
		if isPrompt(msgs[i]) {
			return msgs[i:], true
		}
	}
	return nil, false
}

// isPrompt reports whether m is a user message that answers no tool call.
func isPrompt(m llm.Message) bool {
	if m.Role != llm.RoleUser {
		return false
	}
	for _, b := range m.Content {
		if b.Type == llm.BlockToolResult {
			return false
		}
	}
	return true
}

// carriedFile is a file whose last Read result goes into the compacted conversation.
type carriedFile struct {
	path, input, content string
}

// readToolName is the tool whose results carry a file's content over as they are.
const readToolName = "Read"

// carriedFiles picks the files to carry over: those whose last call in the conversation was
// a successful Read whose whole result is text within the bounds, or a successful change that
// written can show as it stands (carrywritten.go), the latest first. A file read in a result
// too large, or changed since it was written, is not carried.
func carriedFiles(msgs []llm.Message, cwd string, written func(p string) (input, content string, ok bool)) []carriedFile {
	results := map[string]llm.Block{}
	for _, m := range msgs {
		for _, b := range m.Content {
			if b.Type == llm.BlockToolResult {
				results[b.ToolUseID] = b
			}
		}
	}
	seen := map[string]bool{}
	var out []carriedFile
	budget := carryBudgetTokens
	for i := len(msgs) - 1; i >= 0 && len(out) < carryFiles; i-- {
		uses := msgs[i].ToolUses()
		for j := len(uses) - 1; j >= 0 && len(out) < carryFiles; j-- {
			u := uses[j]
			p := touchedPath(u, cwd)
			if p == "" || seen[p] {
				continue
			}
			seen[p] = true
			res, ok := results[u.ID]
			if !ok || res.IsError {
				continue
			}
			input, text := string(u.Input), ""
			switch {
			case u.Name == readToolName:
				if text, ok = textOnly(res); !ok || strings.Contains(text, "<persisted-output>") {
					continue
				}
			case writeTools[u.Name] && written != nil:
				if input, text, ok = written(p); !ok {
					continue
				}
			default:
				continue
			}
			n := llm.EstimateTokens(text)
			if n > carryFileTokens || n > budget {
				continue
			}
			budget -= n
			out = append(out, carriedFile{path: p, input: input, content: text})
		}
	}
	return out
}

// touchedPath is the absolute file a call names (file_path or notebook_path), or "".
func touchedPath(u llm.Block, cwd string) string {
	var in struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
	}
	if json.Unmarshal(u.Input, &in) != nil {
		return ""
	}
	p := in.FilePath
	if p == "" {
		p = in.NotebookPath
	}
	if p == "" {
		return ""
	}
	if !filepath.IsAbs(p) {
		if cwd == "" {
			return ""
		}
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// textOnly is a result's text, false when it holds anything else (an image).
func textOnly(res llm.Block) (string, bool) {
	var b strings.Builder
	for _, c := range res.Content {
		if c.Type != llm.BlockText {
			return "", false
		}
		b.WriteString(c.Text)
	}
	return b.String(), true
}

// compactedMessage is the user message that replaces the conversation.
func compactedMessage(summary, trigger string, files []carriedFile, carried []string) llm.Message {
	text := summaryPreamble + summary
	if trigger == TriggerAuto {
		text += continueAuto
	}
	blocks := []llm.Block{llm.Text(text)}
	for _, f := range files {
		blocks = append(blocks, llm.Text(fmt.Sprintf("Called the %s tool with the following input: %s\nResult of calling the %s tool:\n%s",
			readToolName, f.input, readToolName, f.content)))
	}
	for _, c := range carried {
		if strings.TrimSpace(c) != "" {
			blocks = append(blocks, llm.Text(c))
		}
	}
	return llm.Message{Role: llm.RoleUser, Content: blocks}
}

// carried is what Compaction.Carry returns.
func (a *Agent) carried(msgs []llm.Message) []string {
	if a.Compaction.Carry == nil {
		return nil
	}
	return a.Compaction.Carry(msgs)
}

// cwd is the current directory relative file paths resolve against.
func (a *Agent) cwd() string {
	if a.Cwd != nil {
		return a.Cwd()
	}
	return a.Permissions.Context().Cwd()
}

// MaxCompactionsPerRun bounds the automatic compactions of one run (one prompt and the tool
// calls that follow it), whether the threshold or a "prompt is too long" answer asked for
// them. Each one sends nearly the whole window to be summarized; a run that needs a fourth is
// one whose context fills faster than summaries empty it (huge tool results, a summary that
// is itself huge), and going on would pay for a full window again and again. Three leaves a
// long run room for the compactions it needs. The next prompt starts a new count.
const MaxCompactionsPerRun = 3

// ErrCompactionLimit ends a run that would compact past MaxCompactionsPerRun.
var ErrCompactionLimit = errors.New("the conversation would be compacted more often than a turn allows")
