package tui

import (
	"context"
	"sync"

	"github.com/reinsdev/reins/agent"
)

// stopper holds the cancel of the running turn for the asker, which runs on the agent's
// goroutine and must stop the turn before the agent can ask the model again; a message to the
// program would arrive too late.
type stopper struct {
	mu     sync.Mutex
	cancel context.CancelCauseFunc
}

func (s *stopper) set(cancel context.CancelCauseFunc) {
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
}

func (s *stopper) stop(cause error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel(cause)
	}
}

// fence orders a turn's end after the turn's events. The events come through the bus, on the
// subscriber's goroutine; the end comes from the turn's goroutine. Without the fence the end
// could overtake the last reply: the reply would then be drawn after the next prompt, or
// twice (its streamed text and its final message as two entries). A nil fence does not wait
// (a test that runs a turn's command itself).
type fence struct {
	mu     sync.Mutex
	seen   map[*agent.Result]chan struct{}
	closed chan struct{}
	once   sync.Once
}

func newFence() *fence {
	return &fence{seen: map[*agent.Result]chan struct{}{}, closed: make(chan struct{})}
}

func (f *fence) ch(res *agent.Result) chan struct{} {
	c, ok := f.seen[res]
	if !ok {
		c = make(chan struct{})
		f.seen[res] = c
	}
	return c
}

// reached is called by the program when it has drawn a run's final event.
func (f *fence) reached(res *agent.Result) {
	if f == nil || res == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.ch(res)
	select {
	case <-c:
	default:
		close(c)
	}
}

// wait returns when the program has drawn res's event, or draws no more.
func (f *fence) wait(res *agent.Result) {
	if f == nil || res == nil {
		return
	}
	f.mu.Lock()
	c := f.ch(res)
	f.mu.Unlock()
	select {
	case <-c:
	case <-f.closed:
	}
	f.mu.Lock()
	delete(f.seen, res)
	f.mu.Unlock()
}

// close releases every wait: the program has ended.
func (f *fence) close() {
	if f == nil {
		return
	}
	f.once.Do(func() { close(f.closed) })
}
