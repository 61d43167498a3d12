package app

import "github.com/reinsdev/reins/internal/app/usage"

// UsageError is an error in how the session was asked for (a bad option value, options that
// exclude each other): the caller's to fix, not a failure of the assembly. The CLI exits 2.
// It is usage.Error, so that the sub-packages that return it need not import this one.
type UsageError = usage.Error
