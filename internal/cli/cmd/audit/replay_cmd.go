package audit

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/replay"
	"github.com/reinsdev/reins/session"
	"github.com/reinsdev/reins/settings"
	"github.com/reinsdev/reins/tool"
)

type replayOptions struct {
	f      *cmdutil.Factory
	file   string
	since  string
	asJSON bool
}

func newCmdPolicyReplay(f *cmdutil.Factory, runF func(*replayOptions) error) *cobra.Command {
	opts := &replayOptions{f: f}
	cmd := &cobra.Command{
		Use:   "replay --settings FILE [--since DURATION|DATE] [--json]",
		Short: "Decide this project's recorded tool calls again with a proposed policy, and list what changes",
		Long: `Reads the tool calls of this project's saved sessions (and of the audit log, where it holds
inputs), decides each one offline under the settings in force and under the same settings plus
FILE read as a policy file, and lists every call whose decision would change, with the rule
responsible. No hook runs, auto mode's classifier is not called, and nothing runs.

A session file that cannot be read (unreadable, not a regular file, too large, a line too
long) is named in a warning with where reading stopped and left out; the others are replayed.

Exit status: 0 when no decision changes, 8 when some would, 1 when reins failed or a session
file was skipped (the replay is incomplete), 2 for a usage error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return replayRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.file, "settings", "", "the proposed settings document (read as a policy file)")
	fl.StringVar(&opts.since, "since", "", "only calls from this time: a duration back from now (7d, 24h) or a date (2026-01-31, RFC 3339)")
	fl.BoolVar(&opts.asJSON, "json", false, "print the result as JSON")
	return cmd
}

func replayRun(ctx context.Context, opts *replayOptions) error {
	f := opts.f
	if opts.file == "" {
		return cmdutil.UsageErrorf("--settings FILE is required: the proposed policy")
	}
	var from time.Time
	if opts.since != "" {
		var err error
		if from, err = parseSince(opts.since, time.Now()); err != nil {
			return cmdutil.UsageErrorf("--since: %v", err)
		}
	}
	res, err := runReplay(ctx, f, opts.file, from)
	if err != nil {
		return err
	}
	if opts.asJSON {
		if err := cmdutil.WriteJSON(f.Out, res); err != nil {
			return err
		}
	} else {
		printReplay(f.Out, res)
	}
	if n := len(res.SkippedFiles); n > 0 {
		// Incomplete: "nothing would change" must not pass a check when sessions
		// were not read.
		return cmdutil.FinishWith(cmdutil.OutcomeFailed, fmt.Errorf("the replay is incomplete: %d session file(s) could not be read and were skipped", n))
	}
	if len(res.Changes) > 0 {
		return cmdutil.Finish(cmdutil.OutcomeChanged)
	}
	return nil
}

func runReplay(ctx context.Context, f *cmdutil.Factory, file string, since time.Time) (*replay.Result, error) {
	data, err := settings.ReadFile(ctx, file)
	if err != nil {
		return nil, fmt.Errorf("the proposed settings: %w", err)
	}
	cwd, err := cmdutil.WorkDir(f)
	if err != nil {
		return nil, err
	}
	before, err := app.LoadSettings(app.SettingsOptions{Cwd: cwd, Getenv: f.Getenv})
	if err != nil {
		return nil, err
	}
	after, err := app.LoadSettings(app.SettingsOptions{Cwd: cwd, Getenv: f.Getenv, Proposed: []settings.Bundle{{Name: file, Data: data}}})
	if err != nil {
		return nil, fmt.Errorf("the proposed settings: %w", err)
	}
	if err := after.Report.FailClosed(); err != nil {
		return nil, fmt.Errorf("the proposed settings: %w", err)
	}
	calls, skippedFiles, err := replay.SessionCalls(ctx, session.NewStore(before.Options.ConfigDir).Dir(before.Context.OriginalCwd()), since)
	if err != nil {
		return nil, err
	}
	for _, s := range skippedFiles {
		f.Warn("%s; the session is left out of the replay", s)
	}
	known := map[string]bool{}
	for _, c := range calls {
		known[c.ToolUseID] = true
	}
	more, err := replay.AuditCalls(app.AuditPath(before), before.Context.OriginalCwd(), since, known)
	if err != nil {
		return nil, err
	}
	calls = append(calls, more...)
	lookup, closeTools := replayTools(f, before)
	defer closeTools()
	res, err := replay.Run(ctx, calls, before.Context, after.Context, lookup)
	if res != nil {
		res.SkippedFiles = skippedFiles
	}
	return res, err
}

// replayTools is the catalog of built-in tools; an MCP tool, whose server is not started, is
// decided by its name's rules.
func replayTools(f *cmdutil.Factory, s *app.Settings) (replay.Lookup, func()) {
	defs, _, err := app.LoadAgentDefs(s, "")
	if err != nil {
		defs = nil
	}
	pool, all := app.Catalog(s.Context, defs, cmdutil.CatalogSkills(s), f.Getenv)
	return func(name string) tool.Tool {
		name = permission.NormalizeToolName(name)
		for _, t := range all {
			if t.Name() == name || slices.Contains(t.Spec().Aliases, name) {
				return t
			}
		}
		if permission.IsMCPName(name) && strings.Count(name, "__") >= 2 {
			return cmdutil.UnconnectedMCPTool(name)
		}
		return nil
	}, func() { pool.Close() }
}

func printReplay(w io.Writer, r *replay.Result) {
	for _, c := range r.Changes {
		fmt.Fprintf(w, "%s %s %s: %s → %s", c.Call.Time.Local().Format(time.DateTime), shortID(c.Call.Session), c.Call.Tool, c.Before.Behavior, c.After.Behavior)
		if in := compactInput(c.Call.Input); in != "" {
			fmt.Fprintf(w, "  %s", in)
		}
		fmt.Fprintln(w)
		for _, d := range []struct {
			label string
			d     replay.Decided
		}{{"now", c.Before}, {"proposed", c.After}} {
			fmt.Fprintf(w, "    %-9s %s", d.label+":", d.d.Behavior)
			switch {
			case d.d.Rule != "":
				fmt.Fprintf(w, " by %s %q from %s", d.d.Behavior, d.d.Rule, d.d.Source)
				if d.d.Origin != "" {
					fmt.Fprintf(w, " (%s)", d.d.Origin)
				}
			case d.d.Reason != "":
				fmt.Fprintf(w, " (%s)", d.d.Reason)
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintf(w, "%d calls replayed, %d would change", r.Calls, len(r.Changes))
	skipped := 0
	for _, n := range r.Skipped {
		skipped += n
	}
	if skipped > 0 {
		fmt.Fprintf(w, ", %d skipped", skipped)
	}
	fmt.Fprintln(w)
	for why, n := range r.Skipped {
		fmt.Fprintf(w, "  skipped %d: %s\n", n, why)
	}
	if n := len(r.SkippedFiles); n > 0 {
		fmt.Fprintf(w, "%d session file(s) could not be read and were left out:\n", n)
		for _, s := range r.SkippedFiles {
			fmt.Fprintf(w, "  %s\n", s)
		}
	}
}

// compactInput is a call's input on one line, cut to a readable length.
func compactInput(raw []byte) string {
	s := strings.Join(strings.Fields(string(raw)), " ")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}
