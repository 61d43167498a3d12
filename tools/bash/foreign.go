package bash

import (
	"context"
	"fmt"
	"strings"

	"github.com/reinsdev/reins/tool"
)

// ForeignTask is a background task that something other than the shell runs — a background
// sub-agent — made reachable through TaskOutput and TaskStop, so the model has one way to
// follow every kind of background work. Its owner ends it; the shell only looks at it.
type ForeignTask interface {
	// Type is the task_type TaskOutput reports, e.g. "local_agent".
	Type() string
	// Description says what the task does, for TaskStop's message.
	Description() string
	// Done is closed when the task has ended.
	Done() <-chan struct{}
	// State reports the task's status (StatusRunning, StatusCompleted, StatusFailed or
	// StatusKilled) and its output so far.
	State() (status, output string)
	// Stop ends the task and returns once it has ended.
	Stop()
}

// AddTask makes a foreign task reachable under id. Ids must be unique among the shell's
// tasks.
func (s *Shell) AddTask(id string, t ForeignTask) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.tasks[id]; ok {
		return fmt.Errorf("a task with ID %s already exists", id)
	}
	if _, ok := s.foreign[id]; ok {
		return fmt.Errorf("a task with ID %s already exists", id)
	}
	if s.foreign == nil {
		s.foreign = map[string]ForeignTask{}
	}
	s.foreign[id] = t
	return nil
}

func (s *Shell) foreignTask(id string) ForeignTask {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.foreign[id]
}

// foreignOutput is TaskOutput for a foreign task, in the same format as for a command.
func (s *Shell) foreignOutput(ctx context.Context, id string, ft ForeignTask, in TaskOutputInput) (tool.Result, error) {
	status, _ := ft.State()
	retrieval, ok := awaitTask(ctx, in, status == StatusRunning, ft.Done())
	if !ok {
		return waitAborted(), nil
	}
	status, output := ft.State()
	o := TaskOutputOutput{RetrievalStatus: retrieval, TaskID: id, TaskType: ft.Type(), Status: status, Output: output}
	var b strings.Builder
	fmt.Fprintf(&b, "<retrieval_status>%s</retrieval_status>\n\n<task_id>%s</task_id>\n\n<task_type>%s</task_type>\n\n<status>%s</status>\n\n", retrieval, id, ft.Type(), status)
	fmt.Fprintf(&b, "<output>\n%s\n</output>", output)
	return tool.Result{Content: []tool.Content{tool.Text(b.String())}, Output: o}, nil
}

// stopForeign is TaskStop for a foreign task.
func stopForeign(id string, ft ForeignTask) (tool.Result, error) {
	if status, _ := ft.State(); status != StatusRunning {
		return tool.Failf("Task %s is not running (status: %s)", id, status).Result(), nil
	}
	ft.Stop()
	msg := fmt.Sprintf("Successfully stopped task: %s (%s)", id, ft.Description())
	return tool.Result{Content: []tool.Content{tool.Text(msg)},
		Output: TaskStopOutput{Message: msg, TaskID: id, TaskType: ft.Type(), Command: ft.Description()}}, nil
}
