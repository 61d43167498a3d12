// Package cmdutil holds what every reins command shares: the [Factory] a command is built
// from, the typed errors that become exit codes, the permission and MCP flags, and the one
// form of JSON and text output. A command package imports cmdutil and never a sibling command.
//
// A command follows gh's shape: an xOptions struct that holds the flag values and the
// factory, NewCmdX(f, runF) that binds the flags and calls runF when a test gives one, and
// xRun(ctx, opts) that does the work. No command keeps its flags in package variables.
package cmdutil

import (
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/internal/procguard"
	"github.com/reinsdev/reins/tools/bash"
)

// Factory is the process environment commands run in. A test builds one with the fields it
// needs; the root command fills the rest with the process's own (cli.Run).
type Factory struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// Getenv reads the environment; tests substitute a map.
	Getenv func(string) string
	// Getwd returns the working directory.
	Getwd func() (string, error)
	// IsTerminal reports whether stdin is an interactive terminal (asks can be put to a person).
	IsTerminal func() bool
	// Executable is the path of the running reins binary.
	Executable func() (string, error)
	// Geteuid is the effective user id: bypassPermissions is refused to root.
	Geteuid func() int
	// Guard ends the Bash tool's and the hooks' process groups if this reins process dies
	// without cleaning up (kill -9). Main sets it; in-process runs (tests) have none, as their
	// executable is not reins.
	Guard *procguard.Guard
	// Debug is the debug log of --debug and --debug-file; nil when it is off.
	Debug *slog.Logger
	// CloseDebug closes the debug log; the root command sets it when the log opens.
	CloseDebug func()
	// DebugErr is the debug log's standard error, when that is where it goes.
	DebugErr *SwapWriter
}

// Warn prints a warning to standard error in the one form every command uses.
func (f *Factory) Warn(format string, args ...any) {
	fmt.Fprintf(f.ErrOut, "reins: warning: "+format+"\n", args...)
}

// ShellGroups is the process watchdog as the GroupGuard for bash.Options; nil without one.
func (f *Factory) ShellGroups() bash.GroupGuard {
	if f.Guard == nil {
		return nil
	}
	return f.Guard
}

// HookGroups is the same watchdog as the GroupGuard for hooks.Runner.
func (f *Factory) HookGroups() hooks.GroupGuard {
	if f.Guard == nil {
		return nil
	}
	return f.Guard
}

// SwapWriter is a writer whose destination can change while others hold it: the debug log's
// standard error, which the chat moves to a file while it owns the terminal.
type SwapWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *SwapWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// Swap sends what follows to w and returns the writer it replaced.
func (s *SwapWriter) Swap(w io.Writer) io.Writer {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.w
	s.w = w
	return old
}
