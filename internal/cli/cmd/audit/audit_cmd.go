// Package audit holds `reins audit` (the hash-chained log: path, show, verify) and `reins
// policy` (keygen, sign, and replay of recorded calls against a proposed policy).
package audit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/audit"
	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
)

func NewCmdAudit(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "The tamper-evident audit log of every permission decision and tool run",
		Long: `Every permission decision and every tool run of every session is appended to a
hash-chained log (docs/audit.md): by default ~/.reins/audit/audit.jsonl, or where the audit.path
setting says. Each entry carries the SHA-256 of the one before it, and an anchor file records
the head, so verify finds any change, removed or reordered entry, or cut tail.`,
	}
	cmd.AddCommand(newCmdAuditPath(f, nil), newCmdAuditShow(f, nil), newCmdAuditVerify(f, nil))
	return cmd
}

// auditSettings loads the settings that say where the log is.
func auditSettings(f *cmdutil.Factory) (*app.Settings, error) {
	cwd, err := cmdutil.WorkDir(f)
	if err != nil {
		return nil, err
	}
	return app.LoadSettings(app.SettingsOptions{Cwd: cwd, Getenv: f.Getenv})
}

type auditPathOptions struct {
	f *cmdutil.Factory
}

func newCmdAuditPath(f *cmdutil.Factory, runF func(*auditPathOptions) error) *cobra.Command {
	opts := &auditPathOptions{f: f}
	return &cobra.Command{
		Use:   "path",
		Short: "Print the audit log's current file",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return auditPathRun(cmd.Context(), opts)
		},
	}
}

func auditPathRun(ctx context.Context, opts *auditPathOptions) error {
	f := opts.f
	s, err := auditSettings(f)
	if err != nil {
		return err
	}
	fmt.Fprintln(f.Out, app.AuditPath(s))
	if !s.Loaded.Audit(s.Trusted).Enabled {
		f.Warn("the audit log is turned off (audit.enabled false)")
	}
	return nil
}

type auditVerifyOptions struct {
	f      *cmdutil.Factory
	asJSON bool
}

func newCmdAuditVerify(f *cmdutil.Factory, runF func(*auditVerifyOptions) error) *cobra.Command {
	opts := &auditVerifyOptions{f: f}
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Check the whole chain; exit 1 and say where it breaks on any change",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return auditVerifyRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.asJSON, "json", false, "print the result as JSON")
	return cmd
}

func auditVerifyRun(ctx context.Context, opts *auditVerifyOptions) error {
	f := opts.f
	s, err := auditSettings(f)
	if err != nil {
		return err
	}
	r, err := audit.Verify(app.AuditPath(s))
	var brk *audit.BreakError
	if errors.As(err, &brk) {
		if opts.asJSON {
			cmdutil.WriteJSON(f.Out, map[string]any{"ok": false, "file": brk.File, "line": brk.Line, "entry": brk.Seq, "problem": brk.Msg})
		}
		return cmdutil.FinishWith(cmdutil.OutcomeFailed, fmt.Errorf("the audit log does not verify: %w", err))
	}
	if err != nil {
		return err
	}
	if opts.asJSON {
		return cmdutil.WriteJSON(f.Out, map[string]any{"ok": true, "report": r})
	}
	fmt.Fprintf(f.Out, "ok: %d entries (%d to %d) in %d files; head %s\n", r.Entries, r.FirstSeq, r.HeadSeq, len(r.Files), r.Head)
	return nil
}

type auditFilter struct {
	session, tool, decision, kind string
	since, until                  string
}

type auditShowOptions struct {
	f      *cmdutil.Factory
	filter auditFilter
	asJSON bool
}

func newCmdAuditShow(f *cmdutil.Factory, runF func(*auditShowOptions) error) *cobra.Command {
	opts := &auditShowOptions{f: f}
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Print the log's entries, filtered by session, tool, decision, kind and time",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return auditShowRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.filter.session, "session", "", "only this session's entries")
	fl.StringVar(&opts.filter.tool, "tool", "", "only this tool's entries")
	fl.StringVar(&opts.filter.decision, "decision", "", "only decisions with this outcome: allow, ask or deny")
	fl.StringVar(&opts.filter.kind, "kind", "", "only entries of this kind: decision, run or session")
	fl.StringVar(&opts.filter.since, "since", "", "only entries from this time: a duration back from now (24h) or a date (2026-01-31, RFC 3339)")
	fl.StringVar(&opts.filter.until, "until", "", "only entries before this time (same forms as --since)")
	fl.BoolVar(&opts.asJSON, "json", false, "print one JSON entry a line")
	return cmd
}

func auditShowRun(ctx context.Context, opts *auditShowOptions) error {
	f := opts.f
	match, err := opts.filter.compile(time.Now())
	if err != nil {
		return err
	}
	s, err := auditSettings(f)
	if err != nil {
		return err
	}
	enc := cmdutil.NewJSONLines(f.Out)
	return audit.Read(app.AuditPath(s), func(r audit.Record) error {
		if !match(r.Entry) {
			return nil
		}
		if opts.asJSON {
			return enc.Encode(r.Entry)
		}
		_, err := fmt.Fprintln(f.Out, auditLine(r.Entry))
		return err
	})
}

func (flt auditFilter) compile(now time.Time) (func(audit.Entry) bool, error) {
	var since, until time.Time
	var err error
	if flt.since != "" {
		if since, err = parseSince(flt.since, now); err != nil {
			return nil, cmdutil.UsageErrorf("--since: %v", err)
		}
	}
	if flt.until != "" {
		if until, err = parseSince(flt.until, now); err != nil {
			return nil, cmdutil.UsageErrorf("--until: %v", err)
		}
	}
	if d := flt.decision; d != "" && d != "allow" && d != "ask" && d != "deny" {
		return nil, cmdutil.UsageErrorf("--decision %q: want allow, ask or deny", d)
	}
	return func(e audit.Entry) bool {
		switch {
		case flt.session != "" && e.Session != flt.session,
			flt.tool != "" && e.Tool != flt.tool,
			flt.decision != "" && e.Decision != flt.decision,
			flt.kind != "" && e.Kind != flt.kind,
			!since.IsZero() && e.Time.Before(since),
			!until.IsZero() && !e.Time.Before(until):
			return false
		}
		return true
	}, nil
}

// parseSince reads a time: a duration back from now (90m, 24h, 7d), a date, or RFC 3339.
func parseSince(s string, now time.Time) (time.Time, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if d, err := time.ParseDuration(days + "h"); err == nil {
			return now.Add(-24 * d), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("%q is negative", s)
		}
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is neither a duration (24h, 7d) nor a date (2026-01-31, RFC 3339)", s)
}

// auditLine is an entry in one line of text.
func auditLine(e audit.Entry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s %s %s", e.Seq, e.Time.Local().Format(time.DateTime), shortID(e.Session), e.Kind)
	if e.Tool != "" {
		fmt.Fprintf(&b, " %s", e.Tool)
	}
	if e.Decision != "" {
		fmt.Fprintf(&b, " %s", e.Decision)
	}
	if e.Stage != "" {
		fmt.Fprintf(&b, " %s", e.Stage)
		if e.IsError {
			b.WriteString(" (error result)")
		}
	}
	if e.Rule != "" {
		fmt.Fprintf(&b, " by %s from %s", e.Rule, e.RuleSource)
		if e.RuleOrigin != "" {
			fmt.Fprintf(&b, " (%s)", e.RuleOrigin)
		}
	} else if who := decider(e); who != "" {
		fmt.Fprintf(&b, " by %s", who)
	} else if e.Reason != "" {
		fmt.Fprintf(&b, " (%s)", e.Reason)
	}
	if e.PolicyVersion != "" {
		fmt.Fprintf(&b, " policy v%s", e.PolicyVersion)
	}
	return b.String()
}

// decider says who decided an entry that no rule decided: a person at a front end, a hook,
// a setting; "" for the other kinds, whose reason says more.
func decider(e audit.Entry) string {
	switch {
	case e.FrontEnd != "":
		return "a person (" + e.FrontEnd + ")"
	case e.Hook != "":
		return "hook " + e.Hook
	case e.Setting != "":
		return e.Setting
	}
	return ""
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
