package mcp

import (
	"io"
	"testing"

	"github.com/reinsdev/reins/internal/cli/cmdutil/cmdtest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/cli/cmdutil"
)

// TestNewCmdMCPAdd checks the flag parsing of `mcp add` through its runF seam: nothing is
// written.
func TestNewCmdMCPAdd(t *testing.T) {
	for _, tt := range []struct {
		name    string
		args    []string
		want    mcpAddOptions
		wantErr string
	}{
		{
			name: "stdio server after --",
			args: []string{"github", "-e", "TOKEN=${T}", "--", "npx", "-y", "server"},
			want: mcpAddOptions{scope: mcpScopeOptions{scope: "local"}, envs: []string{"TOKEN=${T}"}, args: []string{"github", "npx", "-y", "server"}},
		},
		{
			name: "http server with headers in the user scope",
			args: []string{"--transport", "http", "-s", "user", "docs", "https://example.com/mcp", "-H", "Authorization: Bearer x"},
			want: mcpAddOptions{scope: mcpScopeOptions{scope: "user"}, transport: "http", headers: []string{"Authorization: Bearer x"}, args: []string{"docs", "https://example.com/mcp"}},
		},
		{name: "a name alone", args: []string{"github"}, wantErr: "requires at least 2 arg(s), only received 1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &cmdutil.Factory{Out: io.Discard, ErrOut: io.Discard}
			var got *mcpAddOptions
			cmd := newCmdMCPAdd(f, func(o *mcpAddOptions) error { got = o; return nil })
			if cmdtest.Execute(t, cmd, tt.args, tt.wantErr) {
				return
			}
			if got.f != f {
				t.Error("the options do not carry the factory")
			}
			if diff := cmp.Diff(tt.want, *got, cmp.AllowUnexported(mcpAddOptions{}, mcpScopeOptions{}),
				cmpopts.IgnoreFields(mcpAddOptions{}, "f"), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNewCmdMCPGet: the server's name is the argument; list takes none.
func TestNewCmdMCPGet(t *testing.T) {
	for _, tt := range []struct {
		name string
		new  func(*cmdutil.Factory, func(*mcpStatusOptions) error) *cobra.Command
		args []string
		want mcpStatusOptions
	}{
		{"get", newCmdMCPGet, []string{"github", "--json", "--strict-mcp-config"}, mcpStatusOptions{only: "github", json: true, mcp: cmdutil.MCPFlags{Strict: true}}},
		{"list", newCmdMCPList, []string{"--mcp-config", "a.json"}, mcpStatusOptions{mcp: cmdutil.MCPFlags{Configs: []string{"a.json"}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got *mcpStatusOptions
			cmd := tt.new(&cmdutil.Factory{}, func(o *mcpStatusOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, *got, cmp.AllowUnexported(mcpStatusOptions{}),
				cmpopts.IgnoreFields(mcpStatusOptions{}, "f"), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}
