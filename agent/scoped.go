package agent

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/reinsdev/reins/permission"
)

// ScopedGrant is an approval that expires: session allow rules that hold until Expires (when
// set) and for at most Calls more calls (when positive). A grant needs at least one of the two
// limits. Grants are kept beside the session's permission context, not in it, so that they are
// recorded with their limits and a resumed session gets back only the grants still valid.
type ScopedGrant struct {
	Rules   []string  `json:"rules"`
	Expires time.Time `json:"expires,omitzero"`
	// Calls is how many calls the grant still allows; zero means no call limit.
	Calls int `json:"calls,omitempty"`
}

// Valid reports whether the grant still allows anything at now.
func (g ScopedGrant) Valid(now time.Time) bool {
	if len(g.Rules) == 0 || (g.Expires.IsZero() && g.Calls <= 0) || g.Calls < 0 {
		return false
	}
	return g.Expires.IsZero() || now.Before(g.Expires)
}

// SetClock replaces the clock that decides when grants expire (tests inject one).
func (p *Permissions) SetClock(now func() time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.now = now
}

func (p *Permissions) clock() time.Time {
	if p.now != nil {
		return p.now()
	}
	return time.Now()
}

// AddScoped adds a grant. Its rules must parse as allow rules.
func (p *Permissions) AddScoped(ctx context.Context, g ScopedGrant) error {
	if p.derived() {
		// A grant made while a sub-agent asked is the session's, as any other grant.
		return p.parent.AddScoped(ctx, g)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !g.Valid(p.clock()) {
		return fmt.Errorf("a scoped approval needs rules and an expiry or a call budget")
	}
	if _, err := p.pc.Apply(grantUpdate(g)); err != nil {
		return fmt.Errorf("scoped approval: %w", err)
	}
	p.scoped = append(p.scoped, g)
	return p.changed()
}

// RestoreScoped brings back the grants of a resumed session that are still valid now.
func (p *Permissions) RestoreScoped(gs []ScopedGrant) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.clock()
	for _, g := range gs {
		if g.Valid(now) {
			if _, err := p.pc.Apply(grantUpdate(g)); err == nil {
				p.scoped = append(p.scoped, g)
			}
		}
	}
}

// Scoped returns the grants valid now.
func (p *Permissions) Scoped() []ScopedGrant {
	if p.derived() {
		return p.parent.Scoped()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.prune()
	return slices.Clone(p.scoped)
}

// State is the session state to record: the context's and the valid grants.
func (p *Permissions) State() SessionState {
	if p.derived() {
		return p.parent.State()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stateLocked()
}

func (p *Permissions) stateLocked() SessionState {
	p.prune()
	st := StateOf(p.pc)
	st.Scoped = slices.Clone(p.scoped)
	return st
}

func (p *Permissions) changed() error {
	if p.onChange != nil {
		return p.onChange(p.stateLocked())
	}
	return nil
}

// prune drops the grants that are no longer valid.
func (p *Permissions) prune() {
	now := p.clock()
	p.scoped = slices.DeleteFunc(p.scoped, func(g ScopedGrant) bool { return !g.Valid(now) })
}

// effective is the context with the valid grants added as session allow rules and the
// running command's rules.
func (p *Permissions) effective() *permission.Context {
	p.prune()
	if len(p.scoped) == 0 {
		return p.withCommand(p.pc)
	}
	ups := make([]permission.Update, len(p.scoped))
	for i, g := range p.scoped {
		ups[i] = grantUpdate(g)
	}
	pc, err := p.pc.Apply(ups...)
	if err != nil {
		// Every grant was applied once when it was added; fail closed to the plain context.
		return p.withCommand(p.pc)
	}
	return p.withCommand(pc)
}

func grantUpdate(g ScopedGrant) permission.Update {
	u := permission.Update{Type: permission.AddRules, Destination: permission.SourceSession, Behavior: permission.Allow}
	for _, r := range g.Rules {
		u.Rules = append(u.Rules, permission.ParseRule(r))
	}
	return u
}

// consume charges one call to every call-limited grant whose rule allowed d, and drops the
// grants that are used up.
func (p *Permissions) consume(d permission.Decision) error {
	if p.derived() {
		// A sub-agent's call spends the session's budget.
		return p.parent.consume(d)
	}
	used := map[string]bool{}
	collectRules(d.Reason, used)
	if len(used) == 0 {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	charged := false
	for i := range p.scoped {
		g := &p.scoped[i]
		if g.Calls > 0 && slices.ContainsFunc(g.Rules, func(r string) bool { return used[permission.ParseRule(r).String()] }) {
			g.Calls--
			charged = true
			if g.Calls == 0 {
				g.Calls = -1 // used up: invalid, pruned below
			}
		}
	}
	if !charged {
		return nil
	}
	return p.changed()
}

// collectRules gathers the session allow rules that produced a decision.
func collectRules(r *permission.Reason, into map[string]bool) {
	if r == nil {
		return
	}
	if r.Rule != nil && r.Rule.Source == permission.SourceSession && r.Rule.Behavior == permission.Allow {
		into[r.Rule.Value.String()] = true
	}
	for _, s := range r.Subresults {
		collectRules(s.Decision.Reason, into)
	}
}

// Replace swaps in a whole new context (another session resumed in the same process) and
// drops the scoped approvals, which belonged to the previous session. The change is recorded.
func (p *Permissions) Replace(pc *permission.Context, scoped []ScopedGrant) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pc.Taint().SetNotify(nil)
	p.pc, p.scoped = pc, nil
	if p.onChange != nil {
		p.watchTaint()
	}
	now := p.clock()
	for _, g := range scoped {
		if g.Valid(now) {
			if _, err := pc.Apply(grantUpdate(g)); err == nil {
				p.scoped = append(p.scoped, g)
			}
		}
	}
	return p.changed()
}
