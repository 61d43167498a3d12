package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// DefaultMaxTokens bounds each reply when [Agent.MaxTokens] is zero.
const DefaultMaxTokens = 8192

// Result subtypes, as in Claude Code's result message.
const (
	SubtypeSuccess        = "success"
	SubtypeMaxTurns       = "error_max_turns"
	SubtypeExecutionError = "error_during_execution"
)

// Recorder keeps a conversation as it happens. Each method returns once the entry is stored
// durably; an error ends the run.
type Recorder interface {
	// AppendMessage stores a message that joined the conversation.
	AppendMessage(m llm.Message) error
	// AppendPermissions stores the session's permission state after it changed.
	AppendPermissions(st SessionState) error
}

// Agent runs conversations. Provider, Model, Tools and Permissions are required; everything
// else has a default. An Agent may run one conversation at a time.
type Agent struct {
	Provider llm.Provider
	Model    string
	System   []llm.SystemBlock
	Tools    []tool.Tool
	// MaxTokens bounds each reply; zero means DefaultMaxTokens.
	MaxTokens int
	// MaxTurns ends the run after this many model replies; zero means no limit.
	MaxTurns int
	// MaxConcurrency caps the concurrency-safe calls run at once; zero means
	// DefaultMaxConcurrency.
	MaxConcurrency int

	// Engine decides every call; nil means a zero Engine.
	Engine *permission.Engine
	// Asker answers asks. Nil is headless: an ask becomes a deny whose message goes back to
	// the model. A permission-prompt tool plugs in here.
	Asker       permission.Asker
	Permissions *Permissions
	// Env is the environment every call shares (file state, tool state). The agent sets its
	// Permissions, UpdatePermissions and Progress fields per call, and creates it, and its
	// Values map, when nil.
	Env *tool.Env
	// Cwd, if set, returns the current directory (the shell's, which `cd` moves); the
	// permission context tools see resolves relative paths against it.
	Cwd func() string

	Recorder Recorder
	Bus      *Bus
}

// Result is the outcome of a run.
type Result struct {
	Subtype string
	IsError bool
	// Text is the text of the last assistant message.
	Text     string
	NumTurns int
	// Duration is the run's wall time; APIDuration the part spent waiting for the model.
	Duration    time.Duration
	APIDuration time.Duration
	Usage       llm.Usage
	// CostUSD is the estimated cost; CostKnown is false when the model's prices are unknown.
	CostUSD           float64
	CostKnown         bool
	PermissionDenials []Denial
	// Messages is the whole conversation, history included.
	Messages []llm.Message
	// Err is why the run failed, for SubtypeExecutionError.
	Err error
}

// Run continues the conversation history with prompt, a user message, and runs until the model
// ends its turn, the turn limit is reached, the context is cancelled or something fails. It
// always returns a Result (published as the last event); the error is non-nil when the run
// failed or was aborted, and wraps the context's error on abort.
func (a *Agent) Run(ctx context.Context, history []llm.Message, prompt llm.Message) (*Result, error) {
	start := time.Now()
	res := &Result{Subtype: SubtypeSuccess, CostKnown: true}
	finish := func(err error) (*Result, error) {
		if err != nil {
			res.Subtype, res.IsError, res.Err = SubtypeExecutionError, true, err
		}
		res.Duration = time.Since(start)
		a.Bus.Publish(Event{Type: EventResult, Result: res})
		return res, err
	}
	if a.Provider == nil || a.Permissions == nil {
		return finish(errors.New("agent: Provider and Permissions are required"))
	}

	if a.Env == nil {
		a.Env = &tool.Env{}
	}
	if a.Env.Values == nil {
		// Tools keep session state here; every call's Env shares this map.
		a.Env.Values = map[any]any{}
	}
	engine := a.Engine
	if engine == nil {
		engine = &permission.Engine{}
	}
	x := &executor{
		tools:       map[string]tool.Tool{},
		engine:      engine,
		asker:       a.Asker,
		perms:       a.Permissions,
		cwd:         a.Cwd,
		env:         a.Env,
		bus:         a.Bus,
		concurrency: cmp.Or(a.MaxConcurrency, DefaultMaxConcurrency),
	}
	specs := make([]llm.ToolSpec, 0, len(a.Tools))
	for _, t := range a.Tools {
		x.tools[t.Name()] = t
		for _, alias := range t.Aliases() {
			if _, ok := x.tools[alias]; !ok {
				x.tools[alias] = t
			}
		}
		specs = append(specs, llm.ToolSpec{Name: t.Name(), Description: t.Description(), InputSchema: t.InputSchema()})
	}
	if a.Recorder != nil {
		a.Permissions.setOnChange(a.Recorder.AppendPermissions)
		defer a.Permissions.setOnChange(nil)
	}

	msgs := slices.Clone(history)
	if n := len(msgs); n > 0 && msgs[n-1].Role == llm.RoleUser && prompt.Role == llm.RoleUser {
		// The previous run ended before the model answered; one user turn holds both.
		merged := llm.Message{Role: llm.RoleUser, Content: append(slices.Clone(msgs[n-1].Content), prompt.Content...)}
		msgs[n-1] = merged
	} else {
		msgs = append(msgs, prompt)
	}
	res.Messages = msgs
	if err := a.record(prompt); err != nil {
		return finish(err)
	}

	for {
		if err := ctx.Err(); err != nil {
			return finish(fmt.Errorf("run aborted: %w", err))
		}
		req := &llm.Request{
			Model:     a.Model,
			System:    a.System,
			Messages:  msgs,
			Tools:     specs,
			MaxTokens: cmp.Or(a.MaxTokens, DefaultMaxTokens),
		}
		apiStart := time.Now()
		resp, err := a.Provider.Stream(ctx, req, func(ev llm.Event) {
			if ev.Type == llm.EventTextDelta {
				a.Bus.Publish(Event{Type: EventTextDelta, Index: ev.Index, Text: ev.Text})
			}
		})
		res.APIDuration += time.Since(apiStart)
		if err != nil {
			if ctx.Err() != nil {
				return finish(fmt.Errorf("run aborted: %w", err))
			}
			return finish(fmt.Errorf("calling %s: %w", a.Provider.Name(), err))
		}
		res.NumTurns++
		res.Usage = res.Usage.Add(resp.Usage)
		model := cmp.Or(resp.Model, a.Model)
		if c, ok := EstimateCost(model, resp.Usage); ok {
			res.CostUSD += c
		} else {
			res.CostKnown = false
		}
		a.Bus.Publish(Event{Type: EventAssistant, Response: resp})
		if len(resp.Message.Content) == 0 {
			// Nothing to keep: an empty assistant message would make the history invalid.
			return finish(nil)
		}
		msgs = append(msgs, resp.Message)
		res.Messages = msgs
		res.Text = resp.Message.Text()
		if err := a.record(resp.Message); err != nil {
			return finish(err)
		}

		uses := resp.Message.ToolUses()
		if len(uses) == 0 {
			return finish(nil)
		}
		out := x.execute(ctx, uses)
		res.PermissionDenials = append(res.PermissionDenials, out.denials...)
		results := llm.Message{Role: llm.RoleUser, Content: out.results}
		msgs = append(msgs, results)
		res.Messages = msgs
		a.Bus.Publish(Event{Type: EventToolResults, Message: &results})
		if err := a.record(results); err != nil {
			return finish(err)
		}
		switch {
		case out.fatal != nil:
			return finish(out.fatal)
		case ctx.Err() != nil:
			return finish(fmt.Errorf("run aborted: %w", ctx.Err()))
		case a.MaxTurns > 0 && res.NumTurns >= a.MaxTurns:
			res.Subtype, res.IsError = SubtypeMaxTurns, true
			return finish(nil)
		}
	}
}

func (a *Agent) record(m llm.Message) error {
	if a.Recorder == nil {
		return nil
	}
	if err := a.Recorder.AppendMessage(m); err != nil {
		return fmt.Errorf("recording the session: %w", err)
	}
	return nil
}
