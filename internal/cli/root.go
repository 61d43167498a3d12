// Package cli implements the reins command line. Each command is built by a newCmdX function
// from a [Factory], which carries the process environment (streams, working directory,
// environment variables) so tests can run commands in-process with fakes.
package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/procguard"
)

// Factory is the process environment commands run in.
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
	// Debug is the debug log of --debug and --debug-file; nil when it is off.
	Debug      *slog.Logger
	closeDebug func()
	// debugErr is the debug log's standard error, when that is where it goes.
	debugErr *swapWriter
}

// DefaultFactory is the factory of a real process.
func DefaultFactory() *Factory {
	return &Factory{
		In:         os.Stdin,
		Out:        os.Stdout,
		ErrOut:     os.Stderr,
		Getenv:     os.Getenv,
		Getwd:      os.Getwd,
		IsTerminal: stdinIsTerminal,
		Executable: os.Executable,
	}
}

// Main runs reins with the process's arguments and returns the exit code.
func Main() int {
	// The sandbox backends and the process watchdog start the reins binary itself.
	if code, ok := sandboxHelper(os.Args[1:]); ok {
		return code
	}
	if code, ok := runGuardIfAsked(); ok {
		return code
	}
	raiseStartingHeap()
	groupGuard = procguard.New(os.Executable)
	defer groupGuard.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code := Run(ctx, DefaultFactory(), os.Args[1:])
	writeBuilt(os.Getenv("REINS_DEBUG_BUILT"))
	return code
}

// Run runs reins with args in f's environment and returns the exit code.
func Run(ctx context.Context, f *Factory, args []string) int {
	root := NewCmdRoot(f)
	args, err := expandToolLists(root, joinWorktreeName(args))
	if err != nil {
		fmt.Fprintf(f.ErrOut, "reins: %v\n", err)
		return exitUsage
	}
	root.SetArgs(args)
	root.SetIn(f.In)
	root.SetOut(f.Out)
	root.SetErr(f.ErrOut)
	err = root.ExecuteContext(ctx)
	code, printable := exitCode(err)
	if printable {
		fmt.Fprintf(f.ErrOut, "reins: %v\n", err)
	}
	f.debugf("exit", "code", code, "error", err)
	if f.closeDebug != nil {
		f.closeDebug()
	}
	return code
}

// NewCmdRoot builds the command tree.
func NewCmdRoot(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "reins",
		Short: "A coding agent whose every tool call goes through a permission engine",
		Long: `Reins is a coding agent and a Go library that decides, for every tool call a model makes,
whether it may run: allow, ask or deny. It reads the permission rules you already wrote for
Claude Code (.claude/settings*.json) as well as its own (.reins/settings*.json).`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	root.Version = buildVersion()
	root.SetVersionTemplate("{{.Version}}")
	var dbg debugFlags
	dbg.register(root)
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		var err error
		if f.closeDebug, err = dbg.open(f); err != nil {
			return &usageError{err}
		}
		f.debugf("start", "command", cmd.CommandPath(), "args", args, "version", strings.Fields(root.Version)[2])
		return nil
	}
	root.AddCommand(newCmdPermissions(f), newCmdTrust(f), newCmdVersion(f), newCmdHooks(f))
	addMoreCommands(f, root)
	finishTree(root)
	return root
}

// warn prints a warning to standard error in the one form every command uses.
func (f *Factory) warn(format string, args ...any) {
	fmt.Fprintf(f.ErrOut, "reins: warning: "+format+"\n", args...)
}
