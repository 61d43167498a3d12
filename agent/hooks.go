package agent

import (
	"sync"

	"github.com/reinsdev/reins/hooks"
)

// HookStopError ends a run that a hook stopped (continue: false) or whose prompt a
// UserPromptSubmit hook blocked. The run's result is an error result that says why.
type HookStopError struct {
	Event  hooks.Event
	Reason string
}

func (e *HookStopError) Error() string {
	if e.Event == hooks.UserPromptSubmit {
		return "the prompt was blocked by a UserPromptSubmit hook: " + e.Reason
	}
	if e.Reason == "" {
		return "a " + string(e.Event) + " hook stopped the run"
	}
	return "a " + string(e.Event) + " hook stopped the run: " + e.Reason
}

// hookStop remembers the first continue: false of a turn.
type hookStop struct {
	once sync.Once
	err  *HookStopError
}

func (s *hookStop) set(ev hooks.Event, reason string) {
	s.once.Do(func() { s.err = &HookStopError{Event: ev, Reason: reason} })
}

// notify publishes what hooks had to tell the person.
func notify(bus *Bus, msgs []string) {
	for _, m := range msgs {
		bus.Publish(Event{Type: EventHookMessage, Text: m})
	}
}
