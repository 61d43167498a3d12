package agenttool

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/reinsdev/reins/agentdef"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/toolcall"
	"github.com/reinsdev/reins/tools/bash"
)

// TaskRegistry makes background agents reachable through TaskOutput and TaskStop (the
// session's bash.Shell).
type TaskRegistry interface {
	AddTask(id string, t bash.ForeignTask) error
}

// Manager runs a session's background sub-agents. Close stops them all.
type Manager struct {
	ctx    context.Context
	cancel context.CancelFunc
	tasks  TaskRegistry
	wg     sync.WaitGroup

	mu      sync.Mutex
	closed  bool
	notices []string
	running map[string]*bgTask
}

// NewManager returns a Manager that registers its agents with tasks (nil: TaskOutput and
// TaskStop do not see them).
func NewManager(tasks TaskRegistry) *Manager {
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{ctx: ctx, cancel: cancel, tasks: tasks, running: map[string]*bgTask{}}
}

// Notices returns, once, the completion notices of background agents that ended since the
// last call. It suits agent.Agent.Notices.
func (m *Manager) Notices() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.notices
	m.notices = nil
	return out
}

// Wait blocks until every background agent has ended or ctx is done.
func (m *Manager) Wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() { m.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops every background agent and waits until each has ended. Close may be called
// more than once.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.cancel()
	m.wg.Wait()
	return nil
}

// maxNoticeResult bounds the result quoted in a completion notice; TaskOutput has all of it.
const maxNoticeResult = 4000

// start runs run in the background as task t. run returns the task's final status and
// output; the completion notice is queued before the task is marked done, so whoever waits
// for the task finds the notice already there.
func (m *Manager) start(id string, t *bgTask, run func(ctx context.Context) (status, output string)) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return fmt.Errorf("the session is ending: no background agent can start")
	}
	ctx, cancel := context.WithCancel(m.ctx)
	t.cancel = cancel
	m.running[id] = t
	m.wg.Add(1)
	m.mu.Unlock()
	if m.tasks != nil {
		if err := m.tasks.AddTask(id, t); err != nil {
			m.mu.Lock()
			delete(m.running, id)
			m.mu.Unlock()
			m.wg.Done()
			cancel()
			return err
		}
	}
	go func() {
		defer m.wg.Done()
		defer cancel()
		status, output := run(ctx)
		if t.isStopping() {
			status = bash.StatusKilled
		}
		quoted := output
		if len(quoted) > maxNoticeResult {
			quoted = quoted[:maxNoticeResult] + "\n… (truncated; TaskOutput has the whole result)"
		}
		m.mu.Lock()
		delete(m.running, id)
		m.notices = append(m.notices, fmt.Sprintf(
			"<task-notification>\n<task-id>%s</task-id>\n<task-type>local_agent</task-type>\n<status>%s</status>\n<summary>Agent %q %s</summary>\n<result>%s</result>\n</task-notification>",
			id, status, t.description, status, quoted))
		m.mu.Unlock()
		t.finish(status, output)
	}()
	return nil
}

// bgTask is a background sub-agent as TaskOutput and TaskStop see it.
type bgTask struct {
	description string
	done        chan struct{}
	cancel      context.CancelFunc

	mu       sync.Mutex
	status   string
	output   string
	stopping bool
}

func (t *bgTask) Type() string          { return "local_agent" }
func (t *bgTask) Description() string   { return t.description }
func (t *bgTask) Done() <-chan struct{} { return t.done }

func (t *bgTask) State() (string, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.status, t.output
}

func (t *bgTask) Stop() {
	t.mu.Lock()
	t.stopping = true
	t.mu.Unlock()
	t.cancel()
	<-t.done
}

func (t *bgTask) isStopping() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stopping
}

func (t *bgTask) finish(status, output string) {
	t.mu.Lock()
	t.status, t.output = status, output
	t.mu.Unlock()
	close(t.done)
}

// startBackground launches a sub-agent under the Manager and returns at once. It runs under
// the Manager's context, with the checkpoint capturer of the call that started it (callCtx):
// its changes belong to that turn.
func (a *agentTool) startBackground(callCtx context.Context, id, parentID string, def *agentdef.Definition, in Input) (tool.Result, error) {
	m := a.cfg.Manager
	sub, err := a.prepare(m.ctx, id, parentID, def, in, true)
	if err != nil {
		return tool.Result{}, err
	}
	t := &bgTask{description: in.Description, done: make(chan struct{}), status: bash.StatusRunning}
	err = m.start(id, t, func(ctx context.Context) (string, string) {
		defer sub.close()
		stop := sub.forward(nil)
		start := time.Now()
		res, runErr := sub.agent.Run(toolcall.CarryCapturer(callCtx, ctx), nil, llm.UserText(in.Prompt))
		stop()
		out := Output{Status: "completed", AgentID: id, AgentType: def.Name, Content: res.Text,
			ToolUseCount: countToolUses(res.Messages), DurationMS: time.Since(start).Milliseconds(), Usage: res.Usage}
		switch {
		case runErr != nil && ctx.Err() != nil:
			return bash.StatusKilled, res.Text
		case runErr != nil:
			return bash.StatusFailed, fmt.Sprintf("Agent %s failed: %v", def.Name, runErr)
		}
		return bash.StatusCompleted, resultText(out)
	})
	if err != nil {
		sub.close()
		return tool.Result{}, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Async agent launched successfully.\nagentId: %s (use TaskOutput with this task_id to read its result, TaskStop to stop it)\n", id)
	b.WriteString("The agent is working in the background. You will be notified automatically when it completes; do not poll for it.")
	return tool.Result{Content: []tool.Content{tool.Text(b.String())},
		Output: Output{Status: "async_launched", AgentID: id, AgentType: def.Name, TranscriptPath: sub.transcriptPath}}, nil
}
