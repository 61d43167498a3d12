// Package usage is the kind of error a front end reports as a mistake in how it was called:
// a bad option value, options that exclude each other, an unknown provider. The session
// assembly (internal/app, as app.UsageError) and its sub-packages return it; the CLI exits 2
// on it, and on any error that wraps it.
package usage

// Error is an error in how the session was asked for (a bad option value, options that
// exclude each other): the caller's to fix, not a failure of the assembly. The CLI exits 2.
type Error struct{ Err error }

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }
