package cmdutil

import (
	"context"
	"errors"
	"fmt"

	"github.com/reinsdev/reins/internal/app"
)

// Exit codes, one scheme for every command (docs/cli.md, "Exit codes"). A command returns a
// typed error; exitCode is the one place that turns errors into codes.
const (
	ExitOK           = 0   // success; `permissions check`: allow
	ExitError        = 1   // reins failed: settings, the model API, files, anything else
	ExitUsage        = 2   // how reins was called: unknown command or flag, bad value
	ExitAsk          = 3   // the decision is ask: a person has to approve
	ExitDenied       = 4   // the decision is deny, or an ask was refused
	ExitInvalidInput = 5   // the call never reached a decision: unknown tool, invalid input
	ExitToolError    = 6   // the tool ran and its result is an error
	ExitMaxTurns     = 7   // `reins -p` stopped at --max-turns
	ExitChanged      = 8   // `policy replay`: some recorded call's decision would change
	ExitCancel       = 130 // interrupted (Ctrl-C, SIGTERM)
)

// Outcome is a result of a command that is not success but not a failure of reins either.
type Outcome int

const (
	OutcomeAsk Outcome = iota + 1
	OutcomeDenied
	OutcomeInvalidInput
	OutcomeToolError
	OutcomeMaxTurns
	OutcomeInterrupted
	// outcomeFailed is a failure the command has already described on its output (a report
	// that says what is wrong); it exits like any failure of reins.
	OutcomeFailed
	// outcomeChanged: policy replay found calls whose decision would change.
	OutcomeChanged
)

// OutcomeError ends a command with an outcome. err, when set, is printed on stderr.
type OutcomeError struct {
	outcome Outcome
	err     error
}

func (e *OutcomeError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("outcome %d", e.outcome)
	}
	return e.err.Error()
}

func (e *OutcomeError) Unwrap() error { return e.err }

// Finish ends a command with o, printing nothing more.
func Finish(o Outcome) error { return &OutcomeError{outcome: o} }

// FinishWith ends a command with o and prints err.
func FinishWith(o Outcome, err error) error { return &OutcomeError{outcome: o, err: err} }

// UsageError marks errors in how reins was called.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func UsageErrorf(format string, args ...any) error {
	return &UsageError{fmt.Errorf(format, args...)}
}

// ExitCode maps the error a command returned to the process's exit code, and says whether
// the error has anything to print.
func ExitCode(err error) (code int, printable bool) {
	if err == nil {
		return ExitOK, false
	}
	if oe, ok := errors.AsType[*OutcomeError](err); ok {
		codes := map[Outcome]int{
			OutcomeAsk:          ExitAsk,
			OutcomeDenied:       ExitDenied,
			OutcomeInvalidInput: ExitInvalidInput,
			OutcomeToolError:    ExitToolError,
			OutcomeMaxTurns:     ExitMaxTurns,
			OutcomeInterrupted:  ExitCancel,
			OutcomeFailed:       ExitError,
			OutcomeChanged:      ExitChanged,
		}
		code, ok := codes[oe.outcome]
		if !ok {
			code = ExitError
		}
		return code, oe.err != nil
	}
	if _, ok := errors.AsType[*UsageError](err); ok {
		return ExitUsage, true
	}
	if _, ok := errors.AsType[*app.UsageError](err); ok {
		return ExitUsage, true
	}
	if errors.Is(err, context.Canceled) {
		return ExitCancel, true
	}
	return ExitError, true
}
