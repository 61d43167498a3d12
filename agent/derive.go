package agent

import (
	"context"

	"github.com/reinsdev/reins/permission"
)

// Derive returns the permissions of a sub-agent of p. The sub-agent sees p's current context
// through view (which may change the mode or mark it prompt-less) on every call, so rules and
// directories granted later in the parent reach it at once. Its updates — a session rule
// granted when one of its calls asked — are applied to p, so the parent sees them too.
//
// view must only narrow: it gets the parent's context and returns the one the sub-agent's
// calls are decided in.
func (p *Permissions) Derive(view func(*permission.Context) *permission.Context) *Permissions {
	return &Permissions{parent: p, view: view}
}

// derived reports whether p is a sub-agent's view of a parent's permissions.
func (p *Permissions) derived() bool { return p.parent != nil }

// derivedContext is the parent's context through view, with the sub-agent's own command
// rules (the skills it loaded in its turn).
func (p *Permissions) derivedContext() *permission.Context {
	pc := p.view(p.parent.Context())
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.withCommand(pc)
}

func (p *Permissions) derivedUpdate(ctx context.Context, updates ...permission.Update) error {
	return p.parent.Update(ctx, updates...)
}
