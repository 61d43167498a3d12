package toolcall

import (
	"context"
	"fmt"

	"github.com/reinsdev/reins/permission"
)

// Auditor keeps the record every decision must be in before its call runs: the audit log.
// It is an input of the pipeline, so that no front end can run a call its record is missing.
type Auditor interface {
	// Decided records the engine's decision on c (an ask a person answered is the answer).
	// An error says the record cannot be kept: the call does not run, whatever the decision,
	// and the run ends ([Outcome.Err]). An auditor that may lose entries (a log not required)
	// reports its failure itself and returns nil.
	Decided(ctx context.Context, c Call, d permission.Decision) error
}

// AuditError is the failure of a call whose decision could not be recorded.
type AuditError struct{ Err error }

func (e *AuditError) Error() string {
	return fmt.Sprintf("the call did not run: its decision could not be recorded: %v", e.Err)
}

func (e *AuditError) Unwrap() error { return e.Err }

// audited records d, and turns a failure into the outcome of a call that did not run.
func (p *Pipeline) audited(ctx context.Context, c Call, input any, d permission.Decision) (Outcome, bool) {
	if p.Audit == nil {
		return Outcome{}, true
	}
	err := p.Audit.Decided(ctx, c, d)
	if err == nil {
		return Outcome{}, true
	}
	err = &AuditError{Err: err}
	return Outcome{Stage: Aborted, Input: input, Decision: d, Failure: FormatMessage(err.Error()), Err: err}, false
}
