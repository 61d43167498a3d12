// Package cli implements the reins command line: the root command, the entry points [Main]
// and [Run], and the mapping of a command's error to the exit code. The commands themselves
// live in internal/cli/cmd/<group>, each built by NewCmdX from a [Factory], which carries the
// process environment (streams, working directory, environment variables) so tests can run
// commands in-process with fakes; internal/cli/cmdutil holds what they share.
package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/cli/cmd/extensions"
	"github.com/reinsdev/reins/internal/cli/cmd/permissions"
	"github.com/reinsdev/reins/internal/cli/cmd/sandbox"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/internal/procguard"
)

// Factory is the process environment commands run in ([cmdutil.Factory]).
type Factory = cmdutil.Factory

// DefaultFactory is the factory of a real process.
func DefaultFactory() *Factory {
	return &cmdutil.Factory{
		In:         os.Stdin,
		Out:        os.Stdout,
		ErrOut:     os.Stderr,
		Getenv:     os.Getenv,
		Getwd:      os.Getwd,
		IsTerminal: stdinIsTerminal,
		Executable: os.Executable,
		Geteuid:    os.Geteuid,
	}
}

// Main runs reins with the process's arguments and returns the exit code.
func Main() int {
	// The sandbox backends and the process watchdog start the reins binary itself.
	if code, ok := sandbox.SandboxHelper(os.Args[1:]); ok {
		return code
	}
	if code, ok := runGuardIfAsked(); ok {
		return code
	}
	raiseStartingHeap()
	f := DefaultFactory()
	f.Guard = procguard.New(os.Executable)
	defer f.Guard.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code := Run(ctx, f, os.Args[1:])
	writeBuilt(os.Getenv("REINS_DEBUG_BUILT"))
	return code
}

// Run runs reins with args in f's environment and returns the exit code.
func Run(ctx context.Context, f *Factory, args []string) int {
	root := NewCmdRoot(f)
	args, err := expandToolLists(root, cmdutil.JoinWorktreeName(args))
	if err != nil {
		fmt.Fprintf(f.ErrOut, "reins: %v\n", err)
		return cmdutil.ExitUsage
	}
	root.SetArgs(args)
	root.SetIn(f.In)
	root.SetOut(f.Out)
	root.SetErr(f.ErrOut)
	err = root.ExecuteContext(ctx)
	code, printable := cmdutil.ExitCode(err)
	if printable {
		fmt.Fprintf(f.ErrOut, "reins: %v\n", err)
	}
	f.Debugf("exit", "code", code, "error", err)
	if f.CloseDebug != nil {
		f.CloseDebug()
	}
	return code
}

// NewCmdRoot builds the command tree.
func NewCmdRoot(f *Factory) *cobra.Command {
	if f.Geteuid == nil {
		// A test's factory names no user: it is whoever runs the tests, or the root that
		// geteuid pretends to be.
		f.Geteuid = func() int { return geteuid() }
	}
	root := &cobra.Command{
		Use:   "reins",
		Short: "A coding agent whose every tool call goes through a permission engine",
		Long: `Reins is a coding agent and a Go library that decides, for every tool call a model makes,
whether it may run: allow, ask or deny. It reads the permission rules you already wrote for
Claude Code (.claude/settings*.json) as well as its own (.reins/settings*.json).`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &cmdutil.UsageError{Err: err} })
	root.Version = cmdutil.BuildVersion()
	root.SetVersionTemplate("{{.Version}}")
	var dbg cmdutil.DebugFlags
	dbg.Register(root)
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		var err error
		if f.CloseDebug, err = dbg.Open(f); err != nil {
			return &cmdutil.UsageError{Err: err}
		}
		f.Debugf("start", "command", cmd.CommandPath(), "args", args, "version", strings.Fields(root.Version)[2])
		return nil
	}
	root.AddCommand(permissions.NewCmdPermissions(f), permissions.NewCmdTrust(f, nil), newCmdVersion(f, nil), extensions.NewCmdHooks(f))
	addMoreCommands(f, root)
	finishTree(root)
	return root
}
