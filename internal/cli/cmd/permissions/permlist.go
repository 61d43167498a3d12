package permissions

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/bashrules"
	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
)

type listOptions struct {
	f      *cmdutil.Factory
	perm   cmdutil.PermFlags
	asJSON bool
}

// listedRule is one effective rule in `permissions list`.
type listedRule struct {
	Rule     string            `json:"rule"`
	Behavior string            `json:"behavior"`
	Source   permission.Source `json:"source"`
	Origin   permission.Origin `json:"origin,omitzero"`
	// ShadowedBy names the deny or ask rule that always wins over this allow rule.
	ShadowedBy string `json:"shadowedBy,omitempty"`
	// SetAside says why auto mode, when it is the mode, leaves this allow rule out of every
	// decision (the classifier judges instead).
	SetAside string `json:"setAsideInAuto,omitempty"`
}

type ListResult struct {
	Mode    permission.Mode `json:"mode"`
	Trusted bool            `json:"trusted"`
	Deny    []listedRule    `json:"deny"`
	Ask     []listedRule    `json:"ask"`
	Allow   []listedRule    `json:"allow"`
	// Skipped lists every rule or directory entry that was not loaded, and why.
	Skipped []string `json:"skipped"`
	// Warnings are everything else the settings said (the mode not honoured, …).
	Warnings    []string `json:"warnings"`
	Directories []string `json:"workingDirectories"`
	Files       []string `json:"settingsFiles"`
	// Runs are what the configuration runs or redirects (helpers, env, hooks, MCP servers,
	// plugins, granted tools, agents' modes), each with where it is written; app.Powers.
	Runs []app.Power `json:"runs"`
}

func newCmdPermissionsList(f *cmdutil.Factory, runF func(*listOptions) error) *cobra.Command {
	opts := &listOptions{f: f}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the effective rules per behaviour with their source, the skipped ones, and shadowed allows",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return listRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.asJSON, "json", false, "print one JSON object")
	opts.perm.Register(cmd)
	return cmd
}

func listRun(ctx context.Context, opts *listOptions) error {
	f := opts.f
	env, err := opts.perm.Load(f)
	if err != nil {
		return err
	}
	res := listRules(env)
	res.Runs = app.Powers(ctx, env, app.PowersOptions{Getenv: f.Getenv})
	if res.Runs == nil {
		res.Runs = []app.Power{}
	}
	if opts.asJSON {
		return cmdutil.WriteJSON(f.Out, res)
	}
	printList(f.Out, res)
	return nil
}

func listRules(env *cmdutil.PermEnv) *ListResult {
	pc := env.Context
	res := &ListResult{Mode: pc.Mode(), Trusted: env.Trusted, Deny: []listedRule{}, Ask: []listedRule{}, Allow: []listedRule{},
		Skipped: []string{}, Warnings: []string{}, Directories: pc.WorkingDirs(), Files: pc.SettingsFiles()}
	rules := pc.Rules()
	auto := pc.Mode() == permission.ModeAuto || pc.Mode() == permission.ModePlan && pc.PrePlanMode() == permission.ModeAuto
	for _, r := range rules {
		lr := listedRule{Rule: r.Value.String(), Behavior: r.Behavior.String(), Source: r.Source, Origin: r.Origin}
		switch r.Behavior {
		case permission.Deny:
			res.Deny = append(res.Deny, lr)
		case permission.Ask:
			res.Ask = append(res.Ask, lr)
		case permission.Allow:
			if o, ok := cmdutil.ShadowedBy(rules, r); ok {
				lr.ShadowedBy = fmt.Sprintf("%s %s from %s", o.Behavior, o.Value, o.Source)
			}
			if auto {
				lr.SetAside = setAsideInAuto(r.Value)
			}
			res.Allow = append(res.Allow, lr)
		}
	}
	cmdutil.Unloaded(env.Report, func(where string, e settings.EntryReport) {
		s := fmt.Sprintf("%s: %s %q: %s", where, e.List, e.Value, e.Status)
		if e.Reason != "" {
			s += " (" + e.Reason + ")"
		}
		res.Skipped = append(res.Skipped, s)
	})
	for _, w := range env.Report.Warnings {
		res.Warnings = append(res.Warnings, w.String())
	}
	if env.PolicyWarning != "" {
		res.Warnings = append(res.Warnings, env.PolicyWarning)
	}
	for _, b := range env.Report.Broken {
		res.Warnings = append(res.Warnings, "reins -p and reins tool run refuse to start: "+b.String())
	}
	return res
}

func printList(w io.Writer, r *ListResult) {
	fmt.Fprintf(w, "mode: %s\n", r.Mode)
	fmt.Fprintf(w, "project trusted: %v\n", r.Trusted)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, sec := range []struct {
		name  string
		rules []listedRule
	}{{"deny", r.Deny}, {"ask", r.Ask}, {"allow", r.Allow}} {
		fmt.Fprintf(tw, "%s:\n", sec.name)
		if len(sec.rules) == 0 {
			fmt.Fprintf(tw, "  (none)\n")
		}
		for _, lr := range sec.rules {
			note := ""
			if lr.ShadowedBy != "" {
				note = "shadowed by " + lr.ShadowedBy
			}
			if lr.SetAside != "" {
				note = strings.TrimPrefix(note+"; set aside in auto mode: "+lr.SetAside, "; ")
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", lr.Rule, lr.Source, lr.Origin, note)
		}
	}
	tw.Flush()
	for _, sec := range []struct {
		name  string
		lines []string
	}{{"skipped", r.Skipped}, {"warnings", r.Warnings}} {
		if len(sec.lines) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s:\n", sec.name)
		for _, s := range sec.lines {
			fmt.Fprintf(w, "  %s\n", s)
		}
	}
	fmt.Fprintln(w, "working directories:")
	for _, d := range r.Directories {
		fmt.Fprintf(w, "  %s\n", d)
	}
	printRuns(w, r.Runs)
}

// printRuns lists what the configuration runs or redirects, what runs code first, each in full
// with where it is written and what keeps it from applying.
func printRuns(w io.Writer, runs []app.Power) {
	fmt.Fprintln(w, "runs or redirects (helpers, env, hooks, MCP servers, plugins, allowed-tools, agents' modes):")
	if len(runs) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, p := range runs {
		var notes []string
		if p.Waits {
			notes = append(notes, "waits for trust")
		}
		if p.Note != "" && !(p.Waits && strings.Contains(p.Note, "not trusted")) {
			notes = append(notes, p.Note)
		}
		what := p.What
		if !strings.HasPrefix(what, string(p.Kind)+":") {
			what = string(p.Kind) + ": " + what
		}
		line := fmt.Sprintf("  %s  %s (%s)", what, p.Where, p.Source)
		if len(notes) > 0 {
			line += " [" + strings.Join(notes, "; ") + "]"
		}
		fmt.Fprintln(w, line)
	}
}

// setAsideInAuto is why auto mode sets the allow rule aside, as the engine asks the tools: the
// Bash tool's judgement for Bash rules, Claude Code's list for the rest.
func setAsideInAuto(v permission.RuleValue) string {
	if v.Tool == "Bash" {
		return bashrules.SetAsideInAuto(v)
	}
	if permission.IsDangerousAllowRule(v) {
		return "Claude Code sets this rule aside in auto mode"
	}
	return ""
}
