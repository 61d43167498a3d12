package bash

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/reinsdev/reins/internal/procgroup"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools/internal/schemax"
)

// Task states.
const (
	StatusRunning   = "running"
	StatusCompleted = "completed"
	StatusFailed    = "failed"
	StatusKilled    = "killed"
)

// task is a command running in the background.
type task struct {
	id, command, description string
	outPath                  string
	pgid                     int
	started                  time.Time
	done                     chan struct{}

	mu        sync.Mutex
	status    string
	exitCode  int
	stopping  bool
	lingering bool // processes of the group outlived the shell
}

func (t *task) state() (status string, code int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.status, t.exitCode
}

// finish records how the task's shell ended and reports whether processes of its group live
// on.
func (t *task) finish(ps *os.ProcessState) bool {
	alive := procgroup.HasLiveMember(t.pgid)
	t.mu.Lock()
	t.exitCode = exitCode(ps)
	switch {
	case t.stopping:
		t.status = StatusKilled
	case t.exitCode == 0:
		t.status = StatusCompleted
	default:
		t.status = StatusFailed
	}
	t.lingering = alive
	t.mu.Unlock()
	close(t.done)
	return alive
}

// stop ends the task's process group and waits for the task to finish. A finished task's
// group is only signalled if processes of it were left running, so that a process group id
// the system has since given to someone else is never hit.
func (t *task) stop(grace time.Duration) {
	t.mu.Lock()
	running := t.status == StatusRunning
	if running {
		t.stopping = true
	}
	lingering := t.lingering
	t.lingering = false
	t.mu.Unlock()
	if running || lingering {
		procgroup.Kill(t.pgid, grace)
	}
	if running {
		<-t.done
	}
}

// background starts a command as a background task.
func (s *Shell) background(pc *permission.Context, in Input, cwd, notice string) (tool.Result, error) {
	dir, _, err := s.outputDir()
	if err != nil {
		return tool.Result{}, err
	}
	id := newID("b")
	outPath := filepath.Join(dir, id+".output")
	out, err := os.OpenFile(outPath, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return tool.Result{}, fmt.Errorf("creating the output file: %w", err)
	}
	defer out.Close()
	cmd := exec.Command(s.opts.Shell, "-c", in.Command)
	cmd.Args[0] = filepath.Base(s.opts.Shell)
	cmd.Dir = cwd
	cmd.Env = s.environ()
	cmd.Stdout, cmd.Stderr = out, out
	ownGroup(cmd)
	finish, err := s.confine(pc, in, cmd, nil, nil)
	if err != nil {
		os.Remove(outPath)
		return tool.Result{}, err
	}

	// Start under the lock so that Close either sees the task or prevents it.
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		os.Remove(outPath)
		if finish != nil {
			finish("")
		}
		return tool.Result{}, ErrClosed
	}
	if err := s.start(cmd); err != nil {
		s.mu.Unlock()
		os.Remove(outPath)
		if finish != nil {
			finish("")
		}
		return tool.Result{}, fmt.Errorf("starting %s: %w", s.opts.Shell, err)
	}
	t := &task{id: id, command: in.Command, description: in.Description, outPath: outPath,
		pgid: cmd.Process.Pid, started: time.Now(), done: make(chan struct{}), status: StatusRunning}
	s.tasks[id] = t
	s.order = append(s.order, id)
	s.waiters.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.waiters.Done()
		_ = cmd.Wait()
		if finish != nil {
			reportViolations(outPath, cmd.ProcessState, finish)
		}
		if !t.finish(cmd.ProcessState) {
			s.unwatch(t.pgid)
		}
	}()
	s.waiters.Add(1)
	go func() {
		defer s.waiters.Done()
		s.capTask(t)
	}()
	text := fmt.Sprintf("Command running in background with ID: %s. Output is being written to: %s", id, outPath)
	if notice != "" {
		text = joinLines(notice, text)
	}
	return tool.Result{Content: []tool.Content{tool.Text(text)},
		Output: Output{Cwd: cwd, BackgroundTaskID: id, OutputFile: outPath}}, nil
}

func (s *Shell) task(id string) *task {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tasks[id]
}

func noTask(id string) *tool.Failure { return tool.Failf("No task found with ID: %s", id) }

// TaskOutputInput is the input of the TaskOutput tool.
type TaskOutputInput struct {
	TaskID  string `json:"task_id" jsonschema:"The task ID to get output from"`
	Block   *bool  `json:"block,omitempty" jsonschema:"Whether to wait for completion"`
	Timeout *int   `json:"timeout,omitempty" jsonschema:"Max wait time in ms"`
}

// TaskOutputOutput is the structured output of a TaskOutput call.
type TaskOutputOutput struct {
	// RetrievalStatus is "success" (the task has ended), "timeout" (it still ran when the
	// wait ended) or "not_ready" (it runs and the call did not wait).
	RetrievalStatus string `json:"retrieval_status"`
	TaskID          string `json:"task_id"`
	TaskType        string `json:"task_type"`
	Status          string `json:"status"`
	ExitCode        *int   `json:"exit_code,omitempty"`
	Output          string `json:"output"`
	OutputFile      string `json:"output_file"`
}

const (
	defaultTaskOutputWait = 30 * time.Second
	maxTaskOutputWait     = 600 * time.Second
)

const taskOutputPrompt = `- Retrieves output from a running or completed background task (a Bash command started with run_in_background)
- Takes a task_id parameter identifying the task
- Returns the task's status, its exit code once it has ended, and its output
- Use block=true (the default) to wait for the task to finish, up to timeout milliseconds (default 30000, max 600000)
- Use block=false for a non-blocking check of the current status and output so far
- Output longer than 30000 characters shows its beginning and end; the full output is in the task's output file`

// TaskOutputTool returns the TaskOutput tool of this shell.
func (s *Shell) TaskOutputTool() tool.Tool {
	return tool.Build(tool.Def[TaskOutputInput]{
		Name:       "TaskOutput",
		Aliases:    []string{"AgentOutputTool", "BashOutputTool"},
		SearchHint: "read output/logs from a background task",
		// Like Bash, it cuts the output itself and names the task's output file.
		MaxResultChars: tool.NeverPersist,
		Description:    "Read the output of a background task",
		Prompt:         taskOutputPrompt,
		SchemaJSON: schemax.Static("TaskOutput", func() *jsonschema.Schema {
			return schemax.For[TaskOutputInput](func(sc *jsonschema.Schema) {
				p := sc.Properties
				p["block"].Types, p["block"].Type = nil, "boolean"
				p["block"].Default = []byte("true")
				p["timeout"].Types, p["timeout"].Type = nil, "number"
				p["timeout"].Minimum = ptr(0.0)
				p["timeout"].Maximum = ptr(float64(maxTaskOutputWait.Milliseconds()))
				p["timeout"].Default = []byte("30000")
			})
		}),
		Validate: func(ctx context.Context, in TaskOutputInput, env *tool.Env) *tool.Failure {
			if s.task(in.TaskID) == nil && s.foreignTask(in.TaskID) == nil {
				return noTask(in.TaskID)
			}
			return nil
		},
		CheckPermissions: func(context.Context, *permission.Context, TaskOutputInput) permission.Decision {
			return permission.Decision{Behavior: permission.Allow}
		},
		ReadOnly:        func(TaskOutputInput) bool { return true },
		ConcurrencySafe: func(TaskOutputInput) bool { return true },
		Defer:           true,
		Call:            s.taskOutput,
	})
}

// awaitTask waits, as TaskOutput's input says, for a task that is still running to end (done
// is closed then), and returns the retrieval status: success (it has ended), not_ready (it
// runs and the call did not wait) or timeout. ok is false when ctx ended the wait.
func awaitTask(ctx context.Context, in TaskOutputInput, running bool, done <-chan struct{}) (retrieval string, ok bool) {
	if !running {
		return "success", true
	}
	if in.Block != nil && !*in.Block {
		return "not_ready", true
	}
	wait := defaultTaskOutputWait
	if in.Timeout != nil {
		wait = min(max(time.Duration(*in.Timeout)*time.Millisecond, 0), maxTaskOutputWait)
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-done:
		return "success", true
	case <-timer.C:
		return "timeout", true
	case <-ctx.Done():
		return "", false
	}
}

func waitAborted() tool.Result {
	return tool.Result{Content: []tool.Content{tool.Text("<error>Wait for the task was aborted</error>")}, IsError: true}
}

func (s *Shell) taskOutput(ctx context.Context, in TaskOutputInput, env *tool.Env) (tool.Result, error) {
	if ft := s.foreignTask(in.TaskID); ft != nil {
		return s.foreignOutput(ctx, in.TaskID, ft, in)
	}
	t := s.task(in.TaskID)
	if t == nil {
		return noTask(in.TaskID).Result(), nil
	}
	status, _ := t.state()
	retrieval, ok := awaitTask(ctx, in, status == StatusRunning, t.done)
	if !ok {
		return waitAborted(), nil
	}
	status, code := t.state()
	f, err := formatOutputFile(t.outPath, s.opts.MaxOutputChars)
	if err != nil {
		return tool.Result{}, err
	}
	o := TaskOutputOutput{RetrievalStatus: retrieval, TaskID: t.id, TaskType: "local_bash", Status: status, Output: f.text, OutputFile: t.outPath}
	var b strings.Builder
	fmt.Fprintf(&b, "<retrieval_status>%s</retrieval_status>\n\n<task_id>%s</task_id>\n\n<task_type>local_bash</task_type>\n\n<status>%s</status>\n\n", retrieval, t.id, status)
	if status != StatusRunning {
		o.ExitCode = &code
		fmt.Fprintf(&b, "<exit_code>%d</exit_code>\n\n", code)
	}
	fmt.Fprintf(&b, "<output>\n%s\n</output>", f.text)
	if f.truncated {
		fmt.Fprintf(&b, "\n\nFull output saved to: %s", t.outPath)
	}
	return tool.Result{Content: []tool.Content{tool.Text(b.String())}, Output: o}, nil
}

// TaskStopInput is the input of the TaskStop tool.
type TaskStopInput struct {
	TaskID  string `json:"task_id,omitempty" jsonschema:"The ID of the background task to stop"`
	ShellID string `json:"shell_id,omitempty" jsonschema:"Deprecated: use task_id instead"`
}

// TaskStopOutput is the structured output of a TaskStop call.
type TaskStopOutput struct {
	Message  string `json:"message"`
	TaskID   string `json:"task_id"`
	TaskType string `json:"task_type"`
	Command  string `json:"command"`
}

const taskStopPrompt = `- Stops a running background task by its ID
- Takes a task_id parameter identifying the task to stop
- The task's command and every process it started are terminated
- Use this tool when you need to end a long-running task`

// TaskStopTool returns the TaskStop tool of this shell.
func (s *Shell) TaskStopTool() tool.Tool {
	return tool.Build(tool.Def[TaskStopInput]{
		Name:        "TaskStop",
		Aliases:     []string{"KillShell"},
		SearchHint:  "kill a running background task",
		Description: "Stop a background task",
		Prompt:      taskStopPrompt,
		SchemaJSON: schemax.Static("TaskStop", func() *jsonschema.Schema {
			return schemax.For[TaskStopInput](nil)
		}),
		Validate: func(ctx context.Context, in TaskStopInput, env *tool.Env) *tool.Failure {
			if ft := s.foreignTask(cmp.Or(in.TaskID, in.ShellID)); ft != nil {
				if status, _ := ft.State(); status != StatusRunning {
					return tool.Failf("Task %s is not running (status: %s)", cmp.Or(in.TaskID, in.ShellID), status)
				}
				return nil
			}
			_, f := s.stoppable(in)
			return f
		},
		CheckPermissions: func(context.Context, *permission.Context, TaskStopInput) permission.Decision {
			return permission.Decision{Behavior: permission.Allow}
		},
		Defer: true,
		Call: func(ctx context.Context, in TaskStopInput, env *tool.Env) (tool.Result, error) {
			if id := cmp.Or(in.TaskID, in.ShellID); s.foreignTask(id) != nil {
				return stopForeign(id, s.foreignTask(id))
			}
			t, f := s.stoppable(in)
			if f != nil {
				return f.Result(), nil
			}
			t.stop(s.opts.KillGrace)
			msg := fmt.Sprintf("Successfully stopped task: %s (%s)", t.id, t.command)
			return tool.Result{Content: []tool.Content{tool.Text(msg)},
				Output: TaskStopOutput{Message: msg, TaskID: t.id, TaskType: "local_bash", Command: t.command}}, nil
		},
	})
}

// stoppable finds the running task a TaskStop input names.
func (s *Shell) stoppable(in TaskStopInput) (*task, *tool.Failure) {
	id := in.TaskID
	if id == "" {
		id = in.ShellID
	}
	if id == "" {
		return nil, tool.Fail("Missing required parameter: task_id")
	}
	t := s.task(id)
	if t == nil {
		return nil, noTask(id)
	}
	if status, _ := t.state(); status != StatusRunning {
		return nil, tool.Failf("Task %s is not running (status: %s)", id, status)
	}
	return t, nil
}

// reportViolations appends what the sandbox refused a background command to its output, where
// TaskOutput shows it.
func reportViolations(outPath string, ps *os.ProcessState, finish func(string) []string) {
	output := ""
	if exitCode(ps) != 0 {
		if b, err := os.ReadFile(outPath); err == nil {
			output = string(b)
		}
	}
	note := violationNote(finish(output))
	if note == "" {
		return
	}
	f, err := os.OpenFile(outPath, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.WriteString("\n" + note + "\n")
}

// capTask holds a background task's output file to MaxOutputFileBytes: a task that writes
// more is stopped and its file cut back to the cap.
func (s *Shell) capTask(t *task) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-t.done:
			capFile(t.outPath, s.opts.MaxOutputFileBytes)
			return
		case <-tick.C:
		}
		fi, err := os.Stat(t.outPath)
		if err != nil || fi.Size() <= s.opts.MaxOutputFileBytes {
			continue
		}
		t.stop(s.opts.KillGrace)
		capFile(t.outPath, s.opts.MaxOutputFileBytes)
		return
	}
}
