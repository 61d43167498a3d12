package app

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/audit"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
	"github.com/reinsdev/reins/toolcall"
)

// AuditPath is the audit log's current file for these settings: the audit.path setting, or
// the default under the config folder.
func AuditPath(s *Settings) string {
	if p := s.Loaded.Audit(s.Trusted).Path; p != "" {
		return p
	}
	return filepath.Join(s.Options.ConfigDir, "audit", "audit.jsonl")
}

// AuditOptions are the log's options for these settings; getenv reads OTEL_LOG_TOOL_DETAILS,
// telemetry's switch for tool inputs, which turns them on in the log too.
func AuditOptions(s *Settings, getenv func(string) string) audit.Options {
	c := s.Loaded.Audit(s.Trusted)
	return audit.Options{Path: AuditPath(s), MaxBytes: c.MaxBytes, MaxFiles: c.MaxFiles,
		LogInputs: c.LogToolInputs || getenv("OTEL_LOG_TOOL_DETAILS") == "1"}
}

// openAudit starts the session's audit log and its subscription to the bus.
func (a *App) openAudit() error {
	r, err := newAuditRecorder(a.Settings, a.opts.Getenv, a.Session.ID, a.opts.Report)
	if r == nil || err != nil {
		return err
	}
	a.life.audit = r
	a.life.stopAudit = a.Bus.Subscribe(r.event)
	return nil
}

// newAuditRecorder opens the log and writes the session's first entry. A log that cannot be
// opened is an error when policy requires it, and otherwise a warning and no recorder; so is
// a log the settings turn off.
func newAuditRecorder(s *Settings, getenv func(string) string, session string, rep Reporter) (*auditRecorder, error) {
	c := s.Loaded.Audit(s.Trusted)
	if !c.Enabled {
		return nil, nil
	}
	l, err := audit.Open(AuditOptions(s, getenv))
	if err == nil {
		err = l.Append(audit.Entry{Kind: audit.KindSession, Session: session, Cwd: s.Context.OriginalCwd(),
			Mode: string(s.Context.Mode()), PolicyVersion: s.PolicyVersion}, nil)
	}
	if err != nil {
		if c.Required {
			return nil, requiredAuditError(c, err)
		}
		rep.warn("the audit log is off for this session: %v", err)
		return nil, nil
	}
	return &auditRecorder{log: l, session: session, policy: s.PolicyVersion, cfg: c, report: rep}, nil
}

// AuditLog is the audit log of a front end without an agent: `tool run`'s call, `mcp serve`'s
// connections. A nil *AuditLog records nothing.
type AuditLog struct {
	r *auditRecorder
}

// OpenAudit opens the host's audit log and writes session's first entry: nil when the settings
// turn the log off, or when it cannot be opened and is not required (a warning then); an error
// when policy requires it and it cannot be written.
func (h *Host) OpenAudit(session string) (*AuditLog, error) {
	r, err := newAuditRecorder(h.Settings, h.root.Getenv, session, h.report)
	if r == nil || err != nil {
		return nil, err
	}
	return &AuditLog{r: r}, nil
}

// Record appends what became of a call that went through the pipeline; session, when set,
// names the session the call belongs to (an MCP client's connection) instead of the log's.
func (l *AuditLog) Record(session string, c toolcall.Call, out toolcall.Outcome) {
	if l == nil {
		return
	}
	rec := &agent.CallRecord{ToolName: c.Tool.Name(), ToolUseID: c.ID, Input: c.Raw, Stage: out.Stage, Decision: out.Decision,
		IsError: out.Stage != toolcall.Done || out.Result.IsError}
	if c.Permissions != nil {
		rec.Mode = c.Permissions.Mode()
	}
	l.r.record(session, agent.Event{Type: agent.EventToolCall, Call: rec})
}

// Auditor is what records the decisions of the calls of session ("" for the log's own) before
// they run: the pipeline's [toolcall.Pipeline.Audit]. Nil for a nil log.
func (l *AuditLog) Auditor(session string) toolcall.Auditor {
	if l == nil {
		return nil
	}
	return callAuditor{r: l.r, session: session}
}

// auditor is the session's [toolcall.Auditor]; nil when the log is off.
func (a *App) auditor() toolcall.Auditor {
	if a.life.audit == nil {
		return nil
	}
	return callAuditor{r: a.life.audit}
}

// callAuditor writes a call's decision entry from the pipeline, before the call runs.
type callAuditor struct {
	r       *auditRecorder
	session string
}

func (a callAuditor) Decided(_ context.Context, c toolcall.Call, d permission.Decision) error {
	return a.r.decided(a.session, c, d)
}

// Close returns a required log's failure.
func (l *AuditLog) Close() error {
	if l == nil {
		return nil
	}
	return l.r.close(func() {})
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

func (r *auditRecorder) event(ev agent.Event) { r.record("", ev) }

func (r *auditRecorder) record(session string, ev agent.Event) {
	if ev.Type != agent.EventToolCall || ev.Call == nil || r.failed() {
		return
	}
	for _, e := range r.entries(cmp.Or(session, r.session), ev) {
		if err := r.log.Append(e, ev.Call.Input); err != nil {
			r.fail(err)
			return
		}
	}
}

// entries are what the bus tells of a finished call: its run entry. Its decision entry was
// written by the pipeline before it ran (decided).
func (r *auditRecorder) entries(session string, ev agent.Event) []audit.Entry {
	c := ev.Call
	return []audit.Entry{{Kind: audit.KindRun, Session: session, Parent: ev.ParentToolUseID, Tool: c.ToolName, ToolUseID: c.ToolUseID,
		Mode: string(c.Mode), PolicyVersion: r.policy, Stage: c.Stage.String(), IsError: c.IsError}}
}

// decided writes the decision entry of a call that has not run yet. With a required log an
// entry that cannot be written — this one, or any before it — is an error, and the call
// must not run; otherwise the failure is reported once and the call goes on unrecorded.
func (r *auditRecorder) decided(session string, c toolcall.Call, d permission.Decision) error {
	if r.failed() {
		return r.failure()
	}
	e := audit.Entry{Kind: audit.KindDecision, Session: cmp.Or(session, r.session), Parent: c.Parent, Tool: c.Tool.Name(),
		ToolUseID: c.ID, PolicyVersion: r.policy, Decision: d.Behavior.String()}
	if c.Permissions != nil {
		e.Mode = string(c.Permissions.Mode())
	}
	describeDecision(&e, d)
	if err := r.log.Append(e, c.Raw); err != nil {
		r.fail(err)
		return r.failure()
	}
	return nil
}

// describeDecision names what produced a decision: the reason, and who decided as the engine
// derived it (permission.Decision.By): the rule with its source and file:line, the person's
// front end, the hook, the setting, and the policy bundle's version.
func describeDecision(e *audit.Entry, d permission.Decision) {
	if d.Reason != nil {
		e.Reason = d.Reason.String()
	}
	by := d.By
	if by == nil {
		return
	}
	e.DecidedBy, e.FrontEnd, e.Hook, e.Setting = string(by.Kind), by.FrontEnd, by.Hook, by.Setting
	e.Rule, e.RuleSource, e.RuleOrigin = by.Rule, by.RuleSource, by.RuleOrigin
	e.PolicyVersion = cmp.Or(by.PolicyVersion, e.PolicyVersion)
}

// failed says an append failed: the session's later entries are dropped, so the log ends
// where it stopped being complete rather than going on with a hole no link shows.
func (r *auditRecorder) failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err != nil
}

// failure is what a call must fail with after an append failed: the required log's error;
// nil when the log is not required (its later entries are dropped) or nothing failed.
func (r *auditRecorder) failure() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil && r.cfg.Required {
		return requiredAuditError(r.cfg, r.err)
	}
	return nil
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
