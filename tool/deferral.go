package tool

import "sync"

// Deferral says which tools' schemas stay out of model requests. When it is active, a tool
// whose Spec says Defer and not AlwaysLoad is sent only after a tool search loaded it; the
// loaded set only grows, so the tool list of a conversation changes only by additions.
// A nil *Deferral defers nothing. It is safe for concurrent use.
type Deferral struct {
	mu     sync.Mutex
	active bool
	loaded map[string]bool
}

// NewDeferral returns a deferral, active or not.
func NewDeferral(active bool) *Deferral { return &Deferral{active: active, loaded: map[string]bool{}} }

// Active reports whether schemas are deferred at all.
func (d *Deferral) Active() bool {
	if d == nil {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.active
}

// Deferred reports whether t's schema is currently kept out of requests.
func (d *Deferral) Deferred(t Tool) bool {
	if s := t.Spec(); d == nil || !s.Defer || s.AlwaysLoad {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.active && !d.loaded[t.Name()]
}

// Load makes the named tools' schemas part of the following requests.
func (d *Deferral) Load(names ...string) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, n := range names {
		d.loaded[n] = true
	}
}

// Sent returns the tools whose schemas a request carries now, in order.
func (d *Deferral) Sent(ts []Tool) []Tool {
	out := make([]Tool, 0, len(ts))
	for _, t := range ts {
		if !d.Deferred(t) {
			out = append(out, t)
		}
	}
	return out
}
