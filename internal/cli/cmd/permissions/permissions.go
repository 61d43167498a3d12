// Package permissions holds `reins permissions check` and `list`, which show what the
// permission engine decides and which rules are in force, and `reins trust`.
package permissions

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/bashrules"
	"github.com/reinsdev/reins/bashrules/gitcli"
	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

func NewCmdPermissions(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "permissions",
		Short: "Show what the permission engine decides and which rules are in force",
	}
	cmd.AddCommand(newCmdPermissionsCheck(f, nil), newCmdPermissionsList(f, nil))
	return cmd
}

type checkOptions struct {
	f      *cmdutil.Factory
	perm   cmdutil.PermFlags
	tool   string
	input  string
	mode   string
	asJSON bool
	// command names a custom slash command whose turn the call is decided in; pluginDirs are
	// plugins whose commands it may name, beside the enabled ones.
	command    string
	pluginDirs []string
}

// CheckResult is what `permissions check --json` prints.
type CheckResult struct {
	Decision    string             `json:"decision"` // allow, ask, deny or error
	Tool        string             `json:"tool"`
	Input       json.RawMessage    `json:"input"`
	Mode        permission.Mode    `json:"mode"`
	Message     string             `json:"message,omitempty"`
	Error       string             `json:"error,omitempty"`
	Reason      *permission.Reason `json:"reason,omitempty"`
	Rule        string             `json:"rule,omitempty"`
	Matched     []matchedRule      `json:"matchedRules"`
	Trace       []permission.Step  `json:"trace"`
	Suggestions []suggestion       `json:"suggestions,omitempty"`
	Warnings    []string           `json:"warnings,omitempty"`
	Dirs        []string           `json:"workingDirectories"`
	Updated     any                `json:"updatedInput,omitempty"`
	Blocked     string             `json:"blockedPath,omitempty"`
	// Commands are, for Bash, the simple commands with their effects and the check that
	// judged each.
	Commands []bashrules.CommandReport `json:"commands,omitempty"`
	// Damage is what a Bash command would delete or overwrite (bashrules' damage count).
	Damage *permission.Damage `json:"damage,omitempty"`
	// SlashCommand is, with --command, what the command's turn adds.
	SlashCommand *slashCommandCheck `json:"slashCommand,omitempty"`
}

// slashCommandCheck is what a custom slash command adds to the decision: its rules of source
// command, or why they do not apply.
type slashCommandCheck struct {
	Name    string        `json:"name"`
	File    string        `json:"file"`
	Rules   []matchedRule `json:"rules"`
	Ignored string        `json:"ignored,omitempty"`
}

type matchedRule struct {
	Rule     string            `json:"rule"`
	Behavior string            `json:"behavior"`
	Source   permission.Source `json:"source"`
	Origin   permission.Origin `json:"origin,omitzero"`
	Step     string            `json:"step"`
}

type suggestion struct {
	permission.Update
	Text string `json:"text"`
}

func newCmdPermissionsCheck(f *cmdutil.Factory, runF func(*checkOptions) error) *cobra.Command {
	opts := &checkOptions{f: f}
	cmd := &cobra.Command{
		Use:   "check --tool NAME --input JSON",
		Short: "Decide one tool call with the real settings, run nothing, and explain the decision",
		Long: `Evaluates one tool call in the current folder with every settings source and the given
flags, runs nothing, and prints the decision with a trace: each pipeline step visited, every
rule that matched with its source file, the one that decided, and the suggestions.

Checks that depend on session state (read-before-edit) are shown but treated as passed.
An mcp__server__tool name is accepted without a connected server.

Exit codes (the scheme of every command, docs/cli.md): 0 allow, 3 ask, 4 deny, 5 invalid
input (unknown tool, input the schema or the tool's own checks refuse), 1 reins itself
failed (for example an invalid settings file), 2 usage.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.tool == "" {
				return cmdutil.UsageErrorf("--tool is required")
			}
			if opts.mode != "" {
				if opts.perm.Mode != "" && opts.perm.Mode != opts.mode {
					return cmdutil.UsageErrorf("--mode %s and --permission-mode %s disagree (--mode is an old name for --permission-mode)", opts.mode, opts.perm.Mode)
				}
				opts.perm.Mode = opts.mode
			}
			if runF != nil {
				return runF(opts)
			}
			return checkRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.tool, "tool", "", "the tool name (Bash, Read, Edit, mcp__server__tool, …)")
	cmd.Flags().StringVar(&opts.input, "input", "{}", "the tool input as JSON")
	cmd.Flags().StringVar(&opts.mode, "mode", "", "the permission mode (same as --permission-mode)")
	cmd.Flags().BoolVar(&opts.asJSON, "json", false, "print one JSON object")
	cmd.Flags().StringVar(&opts.command, "command", "", "decide the call in the turn of custom slash command `NAME` (its allowed-tools added)")
	cmd.Flags().StringArrayVar(&opts.pluginDirs, "plugin-dir", nil, "a plugin folder whose commands --command may name too (repeatable)")
	opts.perm.Register(cmd)
	// --permission-mode is the flag of every command that takes a mode; --mode stays as a
	// hidden old name.
	_ = cmd.Flags().MarkHidden("mode")
	return cmd
}

func checkRun(ctx context.Context, opts *checkOptions) error {
	f := opts.f
	env, err := opts.perm.Load(f)
	if err != nil {
		return err
	}
	var sc *slashCommandCheck
	if opts.command != "" {
		if env, sc, err = withSlashCommand(ctx, env, opts.command, opts.pluginDirs); err != nil {
			return err
		}
	}
	res := evaluate(ctx, f, env, opts.tool, json.RawMessage(opts.input))
	res.SlashCommand = sc
	for _, w := range env.Report.Warnings {
		res.Warnings = append(res.Warnings, w.String())
	}
	if env.PolicyWarning != "" {
		// The decision is the cached bundle's (or the settings' without one), as -p's would
		// be, and says so as -p does.
		res.Warnings = append(res.Warnings, env.PolicyWarning)
	}
	if opts.asJSON {
		if err := cmdutil.WriteJSON(f.Out, res); err != nil {
			return err
		}
	} else {
		printCheck(f.Out, res)
	}
	switch res.Decision {
	case "allow":
		return nil
	case "ask":
		return cmdutil.Finish(cmdutil.OutcomeAsk)
	case "deny":
		return cmdutil.Finish(cmdutil.OutcomeDenied)
	}
	return cmdutil.Finish(cmdutil.OutcomeInvalidInput)
}

// evaluate runs one call through decode, validation and the engine, recording everything.
func evaluate(ctx context.Context, f *cmdutil.Factory, env *cmdutil.PermEnv, name string, raw json.RawMessage) *CheckResult {
	pc := env.Context
	res := &CheckResult{Tool: name, Input: raw, Mode: pc.Mode(), Dirs: pc.WorkingDirs(), Matched: []matchedRule{}, Trace: []permission.Step{}}
	if !json.Valid(raw) {
		res.Decision, res.Error = "error", "the input is not valid JSON"
		return res
	}
	t, ok, closeTools := lookupTool(f, env, name)
	defer closeTools()
	if !ok {
		res.Decision, res.Error = "error", fmt.Sprintf("No such tool available: %s", name)
		return res
	}
	res.Tool = t.Name()
	in, err := t.Decode(raw)
	if err != nil {
		res.Decision, res.Error = "error", err.Error()
		return res
	}
	var trace permission.Trace
	tctx := permission.WithTrace(ctx, &trace)
	tenv := &tool.Env{Permissions: func() *permission.Context { return pc }, Files: tool.NewFileState(), DryRun: true}
	// Validation runs untraced: its own path pre-checks would list every rule twice.
	verr := t.ValidateInput(ctx, in, tenv)
	if verr != nil {
		permission.Note(tctx, permission.Step{Name: "validate input", Outcome: "error", Detail: verr.Message})
	}
	d, err := app.CheckEngine(ctx, tctx, env, f.Getenv, cmdutil.Reporter(f)).Decide(tctx, pc, t, in)
	res.Trace = trace.Steps()
	if err != nil {
		res.Decision, res.Error = "error", err.Error()
		return res
	}
	// Input validation runs first when a call executes, and the file tools' validation
	// refuses paths a deny rule covers. A call the engine denies is reported as denied
	// either way; "error" is for input no permission decision is reached for.
	if verr != nil && d.Behavior != permission.Deny {
		res.Decision, res.Error = "error", verr.Message
		return res
	}
	res.Decision = d.Behavior.String()
	res.Message, res.Reason, res.Updated, res.Blocked = d.Message, d.Reason, d.UpdatedInput, d.BlockedPath
	if d.Reason != nil && d.Reason.Rule != nil {
		res.Rule = d.Reason.Rule.Value.String()
	}
	for _, s := range res.Trace {
		if s.Rule != nil {
			res.Matched = append(res.Matched, matchedRule{Rule: s.Rule.Value.String(), Behavior: s.Rule.Behavior.String(), Source: s.Rule.Source, Origin: s.Rule.Origin, Step: s.Name})
		}
	}
	for _, u := range d.Suggestions {
		res.Suggestions = append(res.Suggestions, suggestion{Update: u, Text: cmdutil.UpdateWords(u)})
	}
	if res.Tool == "Bash" {
		var bin struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(raw, &bin) == nil {
			var ed permission.Decision
			ed, res.Commands = bashrules.Explain(bashrules.WithGit(ctx, gitcli.Git{}), pc, bin.Command)
			// The engine's decision keeps the count only where the tool's decision stands;
			// the explanation has it always.
			res.Damage = cmp.Or(d.Damage, ed.Damage)
		}
	}
	return res
}

// withSlashCommand is env in the turn of the custom slash command name: its rules added as
// they are when it runs (none before the project's trust, when it is the project's or a
// plugin's). The commands are those a session here loads: the plugins enabled on disk and
// those of pluginDirs among them.
func withSlashCommand(ctx context.Context, env *cmdutil.PermEnv, name string, pluginDirs []string) (*cmdutil.PermEnv, *slashCommandCheck, error) {
	ps, _, err := app.LoadPlugins(ctx, env, pluginDirs)
	if err != nil {
		return nil, nil, err
	}
	set, _ := app.LoadCommands(ctx, env, app.PluginCommandRoots(ps)...)
	c, ok := set.Lookup(strings.TrimPrefix(name, "/"))
	if !ok {
		var names []string
		for _, c := range set.All() {
			names = append(names, "/"+c.Name)
		}
		return nil, nil, cmdutil.UsageErrorf("--command: no custom slash command %q (commands: %s)", name, strings.Join(names, ", "))
	}
	rules, ignored := app.CommandRules(env, c)
	pc, err := env.Context.WithCommandRules(rules)
	if err != nil {
		return nil, nil, err
	}
	sc := &slashCommandCheck{Name: "/" + c.Name, File: c.File, Rules: []matchedRule{}, Ignored: ignored}
	for _, r := range rules {
		sc.Rules = append(sc.Rules, matchedRule{Rule: r.Value.String(), Behavior: r.Behavior.String(), Source: r.Source, Origin: r.Origin, Step: "command"})
	}
	with := *env
	with.Context = pc
	return &with, sc, nil
}

func printSlashCommand(w io.Writer, sc *slashCommandCheck) {
	if sc == nil {
		return
	}
	fmt.Fprintf(w, "command:  %s (%s)\n", sc.Name, sc.File)
	for _, r := range sc.Rules {
		fmt.Fprintf(w, "  adds %s %s from %s\n", r.Behavior, r.Rule, cmdutil.OriginWords(r.Source, r.Origin))
	}
	if sc.Ignored != "" {
		fmt.Fprintf(w, "  %s\n", sc.Ignored)
	}
}

func printCheck(w io.Writer, r *CheckResult) {
	fmt.Fprintf(w, "decision: %s\n", r.Decision)
	fmt.Fprintf(w, "tool:     %s\n", r.Tool)
	fmt.Fprintf(w, "mode:     %s\n", r.Mode)
	printSlashCommand(w, r.SlashCommand)
	if r.Error != "" {
		fmt.Fprintf(w, "error:    %s\n", indentRest(r.Error, "          "))
	}
	if r.Message != "" {
		fmt.Fprintf(w, "message:  %s\n", r.Message)
	}
	if r.Reason != nil {
		fmt.Fprintf(w, "reason:   %s\n", cmdutil.ReasonWords(r.Reason))
	}
	permission.WriteSteps(w, r.Trace)
	if d := r.Damage; d != nil {
		printDamage(w, d)
	}
	if len(r.Commands) > 0 {
		fmt.Fprintln(w, "commands:")
		for _, c := range r.Commands {
			fmt.Fprintf(w, "  %s: %s", c.Command, c.Verdict)
			if c.Reason != "" {
				fmt.Fprintf(w, " (%s)", c.Reason)
			}
			fmt.Fprintln(w)
			for _, e := range c.Effects {
				fmt.Fprintf(w, "    %s %s: %s by %s\n", e.Kind, e.Target, e.Outcome, e.Check)
			}
		}
	}
	if len(r.Matched) > 0 {
		fmt.Fprintln(w, "matched rules:")
		for _, m := range r.Matched {
			fmt.Fprintf(w, "  %s %s from %s\n", m.Behavior, m.Rule, cmdutil.OriginWords(m.Source, m.Origin))
		}
	}
	if len(r.Suggestions) > 0 {
		fmt.Fprintln(w, "suggestions:")
		for _, s := range r.Suggestions {
			fmt.Fprintf(w, "  %s\n", s.Text)
		}
	}
	for _, wn := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", wn)
	}
}

// printDamage writes the damage count: the totals against the budget, then the first paths.
func printDamage(w io.Writer, d *permission.Damage) {
	over := "within"
	if d.Over {
		over = "over"
	}
	fmt.Fprintf(w, "damage:   %s; %s the budget of %d files, %d bytes\n", bashrules.DamageWords(d), over, d.Budget.Files, d.Budget.Bytes)
	for _, p := range d.Paths {
		fmt.Fprintf(w, "  %s\n", p)
	}
	if d.Files > int64(len(d.Paths)) {
		fmt.Fprintf(w, "  ... and %d more\n", d.Files-int64(len(d.Paths)))
	}
	for _, p := range d.IgnoredPaths {
		fmt.Fprintf(w, "  ignored by git: %s\n", p)
	}
	for _, p := range d.UntrackedPaths {
		fmt.Fprintf(w, "  not tracked by git: %s\n", p)
	}
}

func indentRest(s, indent string) string {
	return strings.ReplaceAll(s, "\n", "\n"+indent)
}

// lookupTool finds a tool a session in env can have by name or alias: a built-in or the Agent
// tool with the session's agent definitions (app.Catalog), even when a tool-wide rule removes
// it from the pool (the decision then says why). An mcp__server__tool name stands for an MCP
// tool without a connected server: it has no schema and asks (passthrough), so MCP rules can
// be checked. The caller calls closeTools when done with the tool.
func lookupTool(f *cmdutil.Factory, env *cmdutil.PermEnv, name string) (_ tool.Tool, ok bool, closeTools func()) {
	name = permission.NormalizeToolName(name)
	// Agent definitions that cannot be read are reported by reins agents; here the tool is
	// made with the ones that can.
	defs, _, err := app.LoadAgentDefs(env, "")
	if err != nil {
		defs = nil
	}
	pool, all := app.Catalog(env.Context, defs, cmdutil.CatalogSkills(env), f.Getenv)
	closeTools = func() { pool.Close() }
	for _, t := range all {
		if t.Name() == name || slices.Contains(t.Spec().Aliases, name) {
			return t, true, closeTools
		}
	}
	if permission.IsMCPName(name) && strings.Count(name, "__") >= 2 {
		return cmdutil.UnconnectedMCPTool(name), true, closeTools
	}
	return nil, false, closeTools
}
