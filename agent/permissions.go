package agent

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/reinsdev/reins/permission"
)

// Permissions holds a session's current permission context. Tools read it and change it (plan
// mode, "always allow") through their [tool.Env]; the changes are recorded so that a resumed
// session gets them back. It is safe for concurrent use.
type Permissions struct {
	mu sync.Mutex
	pc *permission.Context
	// persist writes updates aimed at settings files; nil keeps them in memory.
	persist func(ctx context.Context, updates []permission.Update) error
	// onChange is told about every new state, under mu so that changes are recorded in the
	// order they were made.
	onChange func(st SessionState) error
	// scoped are the approvals that expire (scoped.go); now is their clock.
	scoped []ScopedGrant
	now    func() time.Time
	// command are the layers of rules of source command of the running turn: the slash
	// command's, the skills' it loaded (command.go); layerID numbers them.
	command []commandLayer
	layerID uint64

	// parent and view are set for a sub-agent's permissions (see Derive): the context is the
	// parent's seen through view, and updates go to the parent.
	parent *Permissions
	view   func(*permission.Context) *permission.Context
}

// NewPermissions starts from pc. persist, if non-nil, is called with the updates whose
// destination is a settings file before they are applied in memory.
func NewPermissions(pc *permission.Context, persist func(ctx context.Context, updates []permission.Update) error) *Permissions {
	return &Permissions{pc: pc, persist: persist}
}

// Context returns the current permission context, with the scoped approvals still valid.
func (p *Permissions) Context() *permission.Context {
	if p.derived() {
		return p.derivedContext()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.effective()
}

// Update applies updates in order. Nothing changes when one fails.
func (p *Permissions) Update(ctx context.Context, updates ...permission.Update) error {
	if p.derived() {
		return p.derivedUpdate(ctx, updates...)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	next, err := p.pc.Apply(updates...)
	if err != nil {
		return err
	}
	if p.persist != nil {
		var persisted []permission.Update
		for _, u := range updates {
			if u.Destination.Persisted() {
				persisted = append(persisted, u)
			}
		}
		if len(persisted) > 0 {
			if err := p.persist(ctx, persisted); err != nil {
				return fmt.Errorf("saving permission updates: %w", err)
			}
		}
	}
	p.pc = next
	return p.changed()
}

// setOnChange installs the change hook of a run.
func (p *Permissions) setOnChange(f func(st SessionState) error) {
	if p.derived() {
		// The parent's run records the changes; a sub-agent's run must not replace its hook.
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.onChange = f
	p.watchTaint()
}

// watchTaint records the session state when a read taints the session (or /clear ends the
// taint), as when any other part of it changes. Called with mu held.
func (p *Permissions) watchTaint() {
	p.pc.Taint().SetNotify(func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		// A read has no caller to hand the recorder's error to; the taint stays in memory,
		// and the next state written carries it.
		_ = p.changed()
	})
}

// SessionState is the part of a permission context that belongs to a session and is restored
// with it: the mode and what was granted or changed for the session only.
type SessionState struct {
	Mode        permission.Mode `json:"mode"`
	PrePlanMode permission.Mode `json:"prePlanMode,omitempty"`
	// Rules are the rules of the session source.
	Rules []SessionRule `json:"rules,omitempty"`
	// Directories are the working directories added for the session.
	Directories []string `json:"directories,omitempty"`
	// Scoped are the approvals that expire; see [Permissions.RestoreScoped].
	Scoped []ScopedGrant `json:"scoped,omitempty"`
	// Taint are the secret files the session read (permission.Taint): a resumed session is
	// as tainted as it was, since the conversation it continues holds what was read.
	Taint []permission.SecretRead `json:"taint,omitempty"`
}

// SessionRule is a session rule in its written form.
type SessionRule struct {
	Behavior permission.Behavior `json:"behavior"`
	Rule     string              `json:"rule"`
}

// StateOf extracts the session state of pc.
func StateOf(pc *permission.Context) SessionState {
	st := SessionState{Mode: pc.Mode(), PrePlanMode: pc.PrePlanMode()}
	for _, r := range pc.Rules() {
		if r.Source == permission.SourceSession {
			st.Rules = append(st.Rules, SessionRule{Behavior: r.Behavior, Rule: r.Value.String()})
		}
	}
	for _, d := range pc.AdditionalDirs() {
		if d.Source == permission.SourceSession {
			st.Directories = append(st.Directories, d.Path)
		}
	}
	st.Taint, _ = pc.Taint().Reads()
	return st
}

// Restore applies a saved session state to pc, a context freshly built from settings and
// flags. keepMode leaves pc's mode alone (the person chose one on the command line). A saved
// mode that is not available any more (bypassPermissions without the flag) is skipped.
func (st SessionState) Restore(pc *permission.Context, keepMode bool) (*permission.Context, error) {
	var updates []permission.Update
	byBehavior := map[permission.Behavior][]permission.RuleValue{}
	var order []permission.Behavior
	for _, r := range st.Rules {
		if _, ok := byBehavior[r.Behavior]; !ok {
			order = append(order, r.Behavior)
		}
		byBehavior[r.Behavior] = append(byBehavior[r.Behavior], permission.ParseRule(r.Rule))
	}
	for _, b := range order {
		updates = append(updates, permission.Update{Type: permission.AddRules, Destination: permission.SourceSession, Behavior: b, Rules: byBehavior[b]})
	}
	if len(st.Directories) > 0 {
		updates = append(updates, permission.Update{Type: permission.AddDirectories, Destination: permission.SourceSession, Directories: slices.Clone(st.Directories)})
	}
	next, err := pc.Apply(updates...)
	if err != nil {
		return nil, fmt.Errorf("restoring session permissions: %w", err)
	}
	next.Taint().Restore(st.Taint)
	if keepMode || st.Mode == "" || st.Mode == next.Mode() {
		return next, nil
	}
	if st.Mode == permission.ModePlan && st.PrePlanMode != "" && st.PrePlanMode != next.Mode() {
		// Re-enter plan from the mode it was entered from, so leaving it restores that.
		if m, err := next.Transition(st.PrePlanMode); err == nil {
			next = m
		}
	}
	m, err := next.Transition(st.Mode)
	if err != nil {
		return next, nil
	}
	return m, nil
}
