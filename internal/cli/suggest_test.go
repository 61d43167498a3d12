package cli

import (
	"testing"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/cli/cmdutil"
)

// TestNearMissCommand: a first word one edit from a command, alone or followed by one of its
// subcommands or a flag, is a mistyped command; a greeting or a sentence is a message.
func TestNearMissCommand(t *testing.T) {
	root := &cobra.Command{Use: "reins"}
	perms := &cobra.Command{Use: "permissions"}
	perms.AddCommand(&cobra.Command{Use: "check"}, &cobra.Command{Use: "list"})
	root.AddCommand(perms, &cobra.Command{Use: "help"}, &cobra.Command{Use: "sandbox"})
	tests := []struct {
		args []string
		want bool
	}{
		{[]string{"permission", "check"}, true},
		{[]string{"permision"}, true},
		{[]string{"permission", "--json"}, true},
		{[]string{"sandbx"}, true},
		{[]string{"permission", "to", "edit", "files"}, false},
		{[]string{"hello"}, false},
		{[]string{"permissions"}, false}, // the command itself never gets here
		{[]string{"permission check"}, false},
		{[]string{"explain", "this", "repo"}, false},
	}
	for _, tt := range tests {
		if got := cmdutil.NearMissCommand(root, tt.args); got != tt.want {
			t.Errorf("nearMissCommand(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}
