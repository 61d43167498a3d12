package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/reinsdev/reins/internal/app"
)

// Exit codes, one scheme for every command (docs/cli.md, "Exit codes"). A command returns a
// typed error; exitCode is the one place that turns errors into codes.
const (
	exitOK           = 0   // success; `permissions check`: allow
	exitError        = 1   // reins failed: settings, the model API, files, anything else
	exitUsage        = 2   // how reins was called: unknown command or flag, bad value
	exitAsk          = 3   // the decision is ask: a person has to approve
	exitDenied       = 4   // the decision is deny, or an ask was refused
	exitInvalidInput = 5   // the call never reached a decision: unknown tool, invalid input
	exitToolError    = 6   // the tool ran and its result is an error
	exitMaxTurns     = 7   // `reins -p` stopped at --max-turns
	exitChanged      = 8   // `policy replay`: some recorded call's decision would change
	exitCancel       = 130 // interrupted (Ctrl-C, SIGTERM)
)

// outcome is a result of a command that is not success but not a failure of reins either.
type outcome int

const (
	outcomeAsk outcome = iota + 1
	outcomeDenied
	outcomeInvalidInput
	outcomeToolError
	outcomeMaxTurns
	outcomeInterrupted
	// outcomeFailed is a failure the command has already described on its output (a report
	// that says what is wrong); it exits like any failure of reins.
	outcomeFailed
	// outcomeChanged: policy replay found calls whose decision would change.
	outcomeChanged
)

// outcomeError ends a command with an outcome. err, when set, is printed on stderr.
type outcomeError struct {
	outcome outcome
	err     error
}

func (e *outcomeError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("outcome %d", e.outcome)
	}
	return e.err.Error()
}

func (e *outcomeError) Unwrap() error { return e.err }

// finish ends a command with o, printing nothing more.
func finish(o outcome) error { return &outcomeError{outcome: o} }

// finishWith ends a command with o and prints err.
func finishWith(o outcome, err error) error { return &outcomeError{outcome: o, err: err} }

// usageError marks errors in how reins was called.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// exitCode maps the error a command returned to the process's exit code, and says whether
// the error has anything to print.
func exitCode(err error) (code int, printable bool) {
	if err == nil {
		return exitOK, false
	}
	if oe, ok := errors.AsType[*outcomeError](err); ok {
		codes := map[outcome]int{
			outcomeAsk:          exitAsk,
			outcomeDenied:       exitDenied,
			outcomeInvalidInput: exitInvalidInput,
			outcomeToolError:    exitToolError,
			outcomeMaxTurns:     exitMaxTurns,
			outcomeInterrupted:  exitCancel,
			outcomeFailed:       exitError,
			outcomeChanged:      exitChanged,
		}
		code, ok := codes[oe.outcome]
		if !ok {
			code = exitError
		}
		return code, oe.err != nil
	}
	if _, ok := errors.AsType[*usageError](err); ok {
		return exitUsage, true
	}
	if _, ok := errors.AsType[*app.UsageError](err); ok {
		return exitUsage, true
	}
	if errors.Is(err, context.Canceled) {
		return exitCancel, true
	}
	return exitError, true
}
