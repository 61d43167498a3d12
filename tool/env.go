package tool

import (
	"context"
	"os"

	"github.com/reinsdev/reins/permission"
)

// Progress is a report a tool makes while it runs.
type Progress struct {
	// Message is a short human-readable status line.
	Message string `json:"message,omitempty"`
	// Data is tool-specific (for Bash: output so far).
	Data any `json:"data,omitempty"`
}

// Env is the session state a call may use. The agent loop owns it; fields a tool does not use
// may be nil. Methods on Env are safe for concurrent use by parallel calls.
type Env struct {
	// ToolUseID is the id of the tool_use being answered, set by the agent loop per call.
	ToolUseID string

	// Permissions returns the current permission context (the person may change it while a
	// call runs).
	Permissions func() *permission.Context
	// UpdatePermissions applies permission updates for the session (EnterPlanMode and
	// ExitPlanMode change the mode this way).
	UpdatePermissions func(ctx context.Context, updates ...permission.Update) error
	// AddTurnRules adds allow rules of source command for the rest of the running turn (a
	// skill's allowed-tools once the Skill tool loaded it); they are never saved. Nil where
	// there is no turn (reins tool run, mcp serve): the rules then do not apply.
	AddTurnRules func(rules []permission.Rule) error
	// Progress receives progress reports; it must not block for long.
	Progress func(Progress)
	// Files records what the model has read, for the read-before-edit checks.
	Files *FileState
	// CreateResultFile, if set, creates a file a tool may write a large result's text to
	// instead of holding it in memory ([Result.TextFile]). The agent creates it in its
	// folder of saved results, so that keeping the text there is a rename. Nil means the
	// caller wants the text in Content: tools build it in memory.
	CreateResultFile func() (*os.File, error)
	// DryRun marks a permission check that runs nothing (`reins permissions check`): checks
	// that depend on session state, like read-before-edit, are reported but pass.
	DryRun bool
	// Values carries state of tools that need more (the shell's cwd, background tasks,
	// todos), keyed by the tool package's own unexported key types.
	Values map[any]any
}

// Report sends a progress report if anyone listens.
func (e *Env) Report(p Progress) {
	if e != nil && e.Progress != nil {
		e.Progress(p)
	}
}
