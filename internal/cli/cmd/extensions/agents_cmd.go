package extensions

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/tools/agenttool"
)

// listedAgent is one agent definition as `reins agents list --json` prints it.
type listedAgent struct {
	Name            string   `json:"name"`
	Description     string   `json:"description"`
	Source          string   `json:"source"`
	File            string   `json:"file,omitempty"`
	Tools           []string `json:"tools,omitempty"`
	DisallowedTools []string `json:"disallowedTools,omitempty"`
	Model           string   `json:"model,omitempty"`
	PermissionMode  string   `json:"permissionMode,omitempty"`
	// DeniedBy is the deny rule that removes the agent from what the model is offered.
	DeniedBy string `json:"deniedBy,omitempty"`
}

func NewCmdAgents(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agents",
		Short: "Show the sub-agents the model can start with the Agent tool",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newCmdAgentsList(f, nil))
	return cmd
}

type agentsListOptions struct {
	f          *cmdutil.Factory
	perm       cmdutil.PermFlags
	asJSON     bool
	agentsJSON string
}

func newCmdAgentsList(f *cmdutil.Factory, runF func(*agentsListOptions) error) *cobra.Command {
	opts := &agentsListOptions{f: f}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the agent definitions in effect, with their files",
		Long: `Lists the built-in agents (general-purpose, Explore, Plan) and the custom ones from
~/.claude/agents, ~/.reins/agents, .claude/agents and .reins/agents (*.md files with YAML front
matter: name, description, tools, disallowedTools, model, permissionMode) and --agents. A later
source replaces an agent of the same name. Files that cannot be used are listed with their
file:line:col, and an agent that an Agent(type) deny rule removes is marked.`,
		Example: `  reins agents list
  reins agents list --json
  reins agents list --agents '{"reviewer": {"description": "Reviews diffs", "prompt": "You review code.", "tools": ["Read", "Grep"]}}'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return agentsListRun(cmd.Context(), opts)
		},
	}
	list.Flags().BoolVar(&opts.asJSON, "json", false, "print JSON")
	list.Flags().StringVar(&opts.agentsJSON, "agents", "", "custom agents as JSON, as reins -p --agents takes them")
	opts.perm.Register(list)
	return list
}

func agentsListRun(_ context.Context, opts *agentsListOptions) error {
	f := opts.f
	env, err := opts.perm.Load(f)
	if err != nil {
		return err
	}
	defs, warnings, err := app.LoadAgentDefs(env, opts.agentsJSON)
	if err != nil {
		return err
	}
	var out []listedAgent
	for _, d := range defs.All() {
		la := listedAgent{Name: d.Name, Description: d.Description, Source: d.Source.String(), File: d.File,
			Tools: d.Tools, DisallowedTools: d.DisallowedTools, Model: d.Model, PermissionMode: string(d.PermissionMode)}
		if r := agenttool.DeniedRule(env.Context, d.Name); r != nil {
			la.DeniedBy = r.Describe()
		}
		out = append(out, la)
	}
	if opts.asJSON {
		return cmdutil.WriteJSON(f.Out, struct {
			Agents   []listedAgent `json:"agents"`
			Warnings []string      `json:"warnings"`
		}{out, append([]string{}, warnings...)})
	}
	tw := tabwriter.NewWriter(f.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSOURCE\tTOOLS\tMODEL\tMODE")
	for _, a := range out {
		tools := "all"
		switch {
		case len(a.Tools) > 0:
			tools = strings.Join(a.Tools, ", ")
		case len(a.DisallowedTools) > 0:
			tools = "all but " + strings.Join(a.DisallowedTools, ", ")
		}
		src := a.Source
		if a.File != "" {
			src += " " + a.File
		}
		name := a.Name
		if a.DeniedBy != "" {
			name += " (denied: " + a.DeniedBy + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", name, src, tools, cmdutil.OrDash(a.Model), cmdutil.OrDash(a.PermissionMode))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, w := range warnings {
		f.Warn("%s", w)
	}
	return nil
}
