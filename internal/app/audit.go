package app

import (
	"fmt"
	"path/filepath"
	"sync"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/audit"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
)

// AuditPath is the audit log's current file for these settings: the audit.path setting, or
// the default under the config folder.
func AuditPath(s *Settings) string {
	if p := s.Loaded.Audit().Path; p != "" {
		return p
	}
	return filepath.Join(s.Options.ConfigDir, "audit", "audit.jsonl")
}

// AuditOptions are the log's options for these settings; getenv reads OTEL_LOG_TOOL_DETAILS,
// telemetry's switch for tool inputs, which turns them on in the log too.
func AuditOptions(s *Settings, getenv func(string) string) audit.Options {
	c := s.Loaded.Audit()
	return audit.Options{Path: AuditPath(s), MaxBytes: c.MaxBytes, MaxFiles: c.MaxFiles,
		LogInputs: c.LogToolInputs || getenv("OTEL_LOG_TOOL_DETAILS") == "1"}
}

// openAudit starts the session's audit log and its subscription to the bus. A log that
// cannot be opened stops the session when policy requires it, and is a warning otherwise.
func (a *App) openAudit() error {
	c := a.Settings.Loaded.Audit()
	if !c.Enabled {
		return nil
	}
	l, err := audit.Open(AuditOptions(a.Settings, a.opts.Getenv))
	if err == nil {
		err = l.Append(audit.Entry{Kind: audit.KindSession, Session: a.SessionID, Cwd: a.Cwd,
			Mode: string(a.Settings.Context.Mode()), PolicyVersion: a.Settings.PolicyVersion}, nil)
	}
	if err != nil {
		if c.Required {
			return requiredAuditError(c, err)
		}
		a.opts.Report.warn("the audit log is off for this session: %v", err)
		return nil
	}
	r := &auditRecorder{log: l, session: a.SessionID, policy: a.Settings.PolicyVersion, cfg: c, report: a.opts.Report}
	a.audit = r
	a.stopAudit = a.Bus.Subscribe(r.event)
	return nil
}

func requiredAuditError(c settings.AuditConfig, err error) error {
	return fmt.Errorf("the audit log required by %s cannot be written: %w", c.RequiredFrom, err)
}

// auditRecorder turns the bus's call records into log entries: one decision entry for every
// call that reached the engine, and one run entry for every call that ran.
type auditRecorder struct {
	log     *audit.Log
	session string
	policy  string
	cfg     settings.AuditConfig
	report  Reporter

	mu  sync.Mutex
	err error // the first append that failed
}

func (r *auditRecorder) event(ev agent.Event) {
	if ev.Type != agent.EventToolCall || ev.Call == nil || r.failed() {
		return
	}
	for _, e := range r.entries(ev) {
		if err := r.log.Append(e, ev.Call.Input); err != nil {
			r.fail(err)
			return
		}
	}
}

func (r *auditRecorder) entries(ev agent.Event) []audit.Entry {
	c := ev.Call
	base := audit.Entry{Session: r.session, Parent: ev.ParentToolUseID, Tool: c.ToolName, ToolUseID: c.ToolUseID,
		Mode: string(c.Mode), PolicyVersion: r.policy}
	var out []audit.Entry
	if c.Stage != 0 && (c.Decision.Reason != nil || c.Decision.Behavior != permission.Passthrough) {
		d := base
		d.Kind, d.Decision = audit.KindDecision, c.Decision.Behavior.String()
		describeReason(&d, c.Decision.Reason)
		out = append(out, d)
	}
	run := base
	run.Kind, run.Stage, run.IsError = audit.KindRun, c.Stage.String(), c.IsError
	return append(out, run)
}

// describeReason names what produced a decision: the reason, and the deciding rule with its
// source and file:line.
func describeReason(e *audit.Entry, r *permission.Reason) {
	if r == nil {
		return
	}
	e.Reason = r.String()
	if r.Rule != nil {
		e.Rule, e.RuleSource, e.RuleOrigin = r.Rule.Value.String(), r.Rule.Source.String(), r.Rule.Origin.String()
	}
}

// failed says an append failed: the session's later entries are dropped, so the log ends
// where it stopped being complete rather than going on with a hole no link shows.
func (r *auditRecorder) failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err != nil
}

// fail reports the first append that failed; a required log's failure is also kept for
// Close, which then fails the run.
func (r *auditRecorder) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return
	}
	r.err = err
	r.report.warn("writing the audit log: %v", err)
}

// close ends the subscription after every event is written, and returns a required log's
// failure.
func (r *auditRecorder) close(stop func()) error {
	stop()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil && r.cfg.Required {
		return requiredAuditError(r.cfg, r.err)
	}
	return nil
}
