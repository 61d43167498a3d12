package permissions

import (
	"io"
	"testing"

	"github.com/reinsdev/reins/internal/cli/cmdutil/cmdtest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/reinsdev/reins/internal/cli/cmdutil"
)

// TestNewCmdPermissionsCheck checks the flag parsing of `permissions check` alone: runF receives
// the options instead of a decision being made.
func TestNewCmdPermissionsCheck(t *testing.T) {
	for _, tt := range []struct {
		name    string
		args    []string
		want    checkOptions
		wantErr string
	}{
		{
			name: "tool and input",
			args: []string{"--tool", "Bash", "--input", `{"command":"ls"}`},
			want: checkOptions{tool: "Bash", input: `{"command":"ls"}`},
		},
		{
			name: "input defaults to an empty object",
			args: []string{"--tool", "Read"},
			want: checkOptions{tool: "Read", input: "{}"},
		},
		{
			name: "--mode is the old name of --permission-mode",
			args: []string{"--tool", "Edit", "--mode", "plan", "--json"},
			want: checkOptions{tool: "Edit", input: "{}", mode: "plan", asJSON: true, perm: cmdutil.PermFlags{Mode: "plan"}},
		},
		{
			name: "permission flags",
			args: []string{"--tool", "Bash", "--permission-mode", "acceptEdits", "--allowedTools", "Bash(ls)", "--add-dir", "/tmp/x", "--restricted"},
			want: checkOptions{tool: "Bash", input: "{}", perm: cmdutil.PermFlags{Mode: "acceptEdits", Allowed: []string{"Bash(ls)"}, AddDirs: []string{"/tmp/x"}, Restricted: true}},
		},
		{
			name: "slash command and plugin folders",
			args: []string{"--tool", "Bash", "--command", "deploy", "--plugin-dir", "a", "--plugin-dir", "b"},
			want: checkOptions{tool: "Bash", input: "{}", command: "deploy", pluginDirs: []string{"a", "b"}},
		},
		{name: "no tool", args: []string{"--input", "{}"}, wantErr: "--tool is required"},
		{name: "modes disagree", args: []string{"--tool", "Bash", "--mode", "plan", "--permission-mode", "default"}, wantErr: "--mode plan and --permission-mode default disagree (--mode is an old name for --permission-mode)"},
		{name: "no arguments", args: []string{"--tool", "Bash", "extra"}, wantErr: `unknown command "extra" for "check"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &cmdutil.Factory{Out: io.Discard, ErrOut: io.Discard}
			var got *checkOptions
			cmd := newCmdPermissionsCheck(f, func(o *checkOptions) error { got = o; return nil })
			if cmdtest.Execute(t, cmd, tt.args, tt.wantErr) {
				return
			}
			if got.f != f {
				t.Error("the options do not carry the factory")
			}
			if diff := cmp.Diff(tt.want, *got, cmp.AllowUnexported(checkOptions{}), cmpopts.IgnoreFields(checkOptions{}, "f"),
				cmpopts.IgnoreUnexported(cmdutil.PermFlags{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}
