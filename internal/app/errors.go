package app

// UsageError is an error in how the session was asked for (a bad option value, options that
// exclude each other): the caller's to fix, not a failure of the assembly. The CLI exits 2.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }
