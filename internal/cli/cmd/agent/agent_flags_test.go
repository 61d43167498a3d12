package agent

import (
	"io"
	"testing"

	"github.com/reinsdev/reins/internal/cli/cmdutil/cmdtest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/cli/cmd/agent/shared"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
)

// TestAddAgentCommandsFlags checks the root command's flag parsing through its runF seam: the
// prompt's words and every flag land in shared.Options, and no session starts.
func TestAddAgentCommandsFlags(t *testing.T) {
	for _, tt := range []struct {
		name    string
		args    []string
		want    shared.Options
		wantErr string
	}{
		{
			name: "print with a prompt",
			args: []string{"-p", "--model", "sonnet", "--max-turns", "3", "fix", "it"},
			want: shared.Options{Print: true, Model: "sonnet", MaxTurns: 3, OutputFormat: "text", Args: []string{"fix", "it"},
				SDK: shared.SDKFlags{InputFormat: "text"}},
		},
		{
			name: "permission flags, resume and stream-json output",
			args: []string{"-p", "--permission-mode", "plan", "--disallowedTools", "Bash(rm:*)", "-r", "abc", "--output-format", "stream-json", "--verbose", "hi"},
			want: shared.Options{Print: true, Resume: "abc", OutputFormat: "stream-json", Verbose: true, Args: []string{"hi"},
				Perm: cmdutil.PermFlags{Mode: "plan", Disallowed: []string{"Bash(rm:*)"}}, SDK: shared.SDKFlags{InputFormat: "text"}},
		},
		{
			name: "the SDK's protocol",
			args: []string{"--input-format", "stream-json", "--output-format", "stream-json", "--permission-prompt-tool", "stdio", "--verbose"},
			want: shared.Options{OutputFormat: "stream-json", Verbose: true, SDK: shared.SDKFlags{InputFormat: "stream-json", PromptTool: "stdio"}},
		},
		{
			name: "plugins, agents and MCP",
			args: []string{"-p", "--plugin-dir", "p1", "--agents", `{"a":{}}`, "--mcp-config", "m.json", "--strict-mcp-config", "go"},
			want: shared.Options{Print: true, OutputFormat: "text", PluginDirs: []string{"p1"}, Agents: `{"a":{}}`, Args: []string{"go"},
				MCP: cmdutil.MCPFlags{Configs: []string{"m.json"}, Strict: true}, SDK: shared.SDKFlags{InputFormat: "text"}},
		},
		{name: "an unknown flag", args: []string{"-p", "--no-such-flag", "x"}, wantErr: "unknown flag: --no-such-flag"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &cmdutil.Factory{Out: io.Discard, ErrOut: io.Discard}
			root := &cobra.Command{Use: "reins", SilenceUsage: true, SilenceErrors: true}
			var got *shared.Options
			AddAgentCommands(f, root, func(o *shared.Options) error { got = o; return nil })
			if cmdtest.Execute(t, root, tt.args, tt.wantErr) {
				return
			}
			if got.Factory != f {
				t.Error("the options do not carry the factory")
			}
			if diff := cmp.Diff(tt.want, *got, cmpopts.IgnoreFields(shared.Options{}, "Factory"),
				cmpopts.IgnoreUnexported(cmdutil.PermFlags{}, shared.WorktreeFlag{}, shared.SDKFlags{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}
