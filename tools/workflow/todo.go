package workflow

import (
	"context"
	"slices"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools/internal/schemax"
)

// TodoWriteName is the TodoWrite tool's name.
const TodoWriteName = "TodoWrite"

// Todo statuses.
const (
	StatusPending    = "pending"
	StatusInProgress = "in_progress"
	StatusCompleted  = "completed"
)

// Todo is one item of the list.
type Todo struct {
	Content    string `json:"content" jsonschema:"What needs to be done, in the imperative (\"Run the tests\")"`
	Status     string `json:"status" jsonschema:"pending, in_progress or completed"`
	ActiveForm string `json:"activeForm" jsonschema:"The same task in the present continuous, shown while it runs (\"Running the tests\")"`
}

// TodoWriteInput is TodoWrite's input: the whole new list.
type TodoWriteInput struct {
	Todos []Todo `json:"todos" jsonschema:"The updated todo list"`
}

// TodoWriteOutput is TodoWrite's structured result.
type TodoWriteOutput struct {
	OldTodos []Todo `json:"oldTodos"`
	NewTodos []Todo `json:"newTodos"`
}

const todoResult = "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable"

const todoPrompt = `Create and maintain a structured task list for the current session. It shows the user your progress and keeps you organised through complex work.

When to use it:
- A task needs three or more distinct steps, or careful planning.
- The user gives several tasks at once (a numbered or comma-separated list).
- The user asks for a todo list.
- New instructions arrive: capture them as todos.
- You start a task: mark it in_progress first. Keep exactly one task in_progress at a time.
- You finish a task: mark it completed at once, and add any follow-up tasks you discovered.

When not to use it: a single straightforward task, something trivial, or a purely conversational request.

Rules:
- Each todo has content (imperative: "Fix the login bug") and activeForm (present continuous: "Fixing the login bug").
- Statuses: pending, in_progress, completed. Update them as you go; do not batch completions.
- Mark a task completed only when it is fully done: tests pass, nothing is left half-implemented, no unresolved errors. If you are blocked, keep it in_progress and add a task for what blocks it.
- Send the whole list every time; it replaces the previous one. Remove tasks that no longer apply.`

// todoKey is where the list lives in Env.Values.
type todoKey struct{}

// todoList is one session's list. Its own lock makes reads from a UI safe while a call writes.
type todoList struct {
	mu    sync.Mutex
	items []Todo
}

func listOf(env *tool.Env, create bool) *todoList {
	if env == nil {
		return nil
	}
	if l, ok := env.Values[todoKey{}].(*todoList); ok {
		return l
	}
	if !create {
		return nil
	}
	if env.Values == nil {
		env.Values = map[any]any{}
	}
	l := &todoList{}
	env.Values[todoKey{}] = l
	return l
}

// Todos returns the session's current todo list.
func Todos(env *tool.Env) []Todo {
	l := listOf(env, false)
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.items)
}

// NewTodoWrite returns the TodoWrite tool.
func NewTodoWrite() tool.Tool {
	return tool.Build(tool.Def[TodoWriteInput]{
		Name:        TodoWriteName,
		SearchHint:  "manage the session's task checklist",
		Description: "Update the todo list of the current session",
		Prompt:      todoPrompt,
		SchemaJSON: schemax.Static(TodoWriteName, func() *jsonschema.Schema {
			return schemax.For[TodoWriteInput](func(s *jsonschema.Schema) {
				item := s.Properties["todos"].Items
				item.Properties["content"].MinLength = schemax.Ptr(1)
				item.Properties["activeForm"].MinLength = schemax.Ptr(1)
				schemax.Enum(item.Properties["status"], StatusPending, StatusInProgress, StatusCompleted)
			})
		}),
		CheckPermissions: func(context.Context, *permission.Context, TodoWriteInput) permission.Decision {
			return permission.Decision{Behavior: permission.Allow}
		},
		Defer: true,
		Call: func(ctx context.Context, in TodoWriteInput, env *tool.Env) (tool.Result, error) {
			l := listOf(env, true)
			if l == nil {
				return tool.ErrorResult("TodoWrite needs a session to keep the list in."), nil
			}
			todos := slices.Clone(in.Todos)
			if todos == nil {
				todos = []Todo{}
			}
			allDone := !slices.ContainsFunc(todos, func(t Todo) bool { return t.Status != StatusCompleted })
			l.mu.Lock()
			old := l.items
			if allDone {
				l.items = nil
			} else {
				l.items = todos
			}
			l.mu.Unlock()
			if old == nil {
				old = []Todo{}
			}
			return tool.Result{
				Content: []tool.Content{tool.Text(todoResult)},
				Output:  TodoWriteOutput{OldTodos: old, NewTodos: todos},
			}, nil
		},
	})
}
