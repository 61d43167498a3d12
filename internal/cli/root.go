// Package cli implements the reins command line. Each command is built by a newCmdX function
// from a [Factory], which carries the process environment (streams, working directory,
// environment variables) so tests can run commands in-process with fakes.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/reinsdev/reins/internal/procguard"
)

// Exit codes shared by every reins command; `permissions check`, `tool run` and `-p` add their
// own (see docs/cli.md).
const (
	exitOK     = 0
	exitError  = 1
	exitUsage  = 2
	exitCancel = 130
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

// stdinIsTerminal asks the terminal driver, not the file mode: /dev/null is a character
// device too, and a person can only answer on a real terminal.
func stdinIsTerminal() bool {
	_, err := unix.IoctlGetTermios(int(os.Stdin.Fd()), unix.TCGETS)
	return err == nil
}

// exitCodeError carries a specific exit code out of a command.
type exitCodeError struct {
	code int
	err  error
}

func (e *exitCodeError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}
func (e *exitCodeError) Unwrap() error { return e.err }

// silentExit ends the process with code without printing anything more.
func silentExit(code int) error { return &exitCodeError{code: code} }

// usageError marks errors in how reins was called.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// Main runs reins with the process's arguments and returns the exit code.
func Main() int {
	if code, ok := runGuardIfAsked(); ok {
		return code
	}
	groupGuard = procguard.New(os.Executable)
	defer groupGuard.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, DefaultFactory(), os.Args[1:])
}

// Run runs reins with args in f's environment and returns the exit code.
func Run(ctx context.Context, f *Factory, args []string) int {
	root := NewCmdRoot(f)
	args, err := expandToolLists(root, args)
	if err != nil {
		fmt.Fprintf(f.ErrOut, "reins: %v\n", err)
		return exitUsage
	}
	root.SetArgs(args)
	root.SetIn(f.In)
	root.SetOut(f.Out)
	root.SetErr(f.ErrOut)
	err = root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ec *exitCodeError
	if errors.As(err, &ec) {
		if ec.err != nil {
			fmt.Fprintf(f.ErrOut, "reins: %v\n", ec.err)
		}
		return ec.code
	}
	fmt.Fprintf(f.ErrOut, "reins: %v\n", err)
	var ue *usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	if errors.Is(err, context.Canceled) {
		return exitCancel
	}
	return exitError
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
	root.AddCommand(newCmdPermissions(f), newCmdTrust(f))
	addMoreCommands(f, root)
	return root
}
