// Package cmdtest runs a cobra command the way the commands' flag tests do: with the given
// arguments, its output discarded, and its error held against the one a case wants. Each
// command's test then states only its cases and the Options it expects through runF.
package cmdtest

import (
	"io"
	"testing"

	"github.com/spf13/cobra"
)

// Execute runs cmd with args and checks its error against wantErr (empty: no error). It
// reports whether the case is over: true when an error was wanted, so the caller has no
// Options to compare. A mismatch fails the test at once.
func Execute(t *testing.T, cmd *cobra.Command, args []string, wantErr string) (done bool) {
	t.Helper()
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	err := cmd.Execute()
	if wantErr != "" {
		if err == nil || err.Error() != wantErr {
			t.Fatalf("error %v, want %q", err, wantErr)
		}
		return true
	}
	if err != nil {
		t.Fatal(err)
	}
	return false
}
