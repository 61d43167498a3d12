package agent

import (
	"fmt"
	"testing"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/tool"
)

// TestBusSlowSubscriber holds a subscriber while events pile up: progress is coalesced to the
// latest report per call, text deltas are merged, and every other event arrives once, in order.
func TestBusSlowSubscriber(t *testing.T) {
	var bus Bus
	release, blocked := make(chan struct{}), make(chan struct{})
	var got []Event
	unsub := bus.Subscribe(func(e Event) {
		if len(got) == 0 {
			close(blocked)
			<-release
		}
		got = append(got, e)
	})
	fast := make(chan Event, 1000)
	unsubFast := bus.Subscribe(func(e Event) { fast <- e })

	bus.Publish(Event{Type: EventAssistant, Response: &llm.Response{ID: "first"}})
	<-blocked
	for i := range 100 {
		bus.Publish(Event{Type: EventProgress, ToolUseID: "a", Progress: tool.Progress{Message: fmt.Sprint("a", i)}})
		bus.Publish(Event{Type: EventProgress, ToolUseID: "b", Progress: tool.Progress{Message: fmt.Sprint("b", i)}})
	}
	bus.Publish(Event{Type: EventToolResults, Message: &llm.Message{}})
	bus.Publish(Event{Type: EventTextDelta, Index: 0, Text: "Hel"})
	bus.Publish(Event{Type: EventTextDelta, Index: 0, Text: "lo"})
	bus.Publish(Event{Type: EventTextDelta, Index: 1, Text: "!"})
	bus.Publish(Event{Type: EventResult, Result: &Result{}})
	close(release)
	unsub()
	unsubFast()

	var summary []string
	for _, e := range got {
		switch e.Type {
		case EventProgress:
			summary = append(summary, e.Progress.Message)
		case EventTextDelta:
			summary = append(summary, fmt.Sprintf("text[%d]=%s", e.Index, e.Text))
		default:
			summary = append(summary, e.Type.String())
		}
	}
	// The first event was taken before the subscriber blocked; the two calls' latest reports
	// stay in publish order (b99 was published after a99).
	want := []string{"assistant", "a99", "b99", "tool_results", "text[0]=Hello", "text[1]=!", "result"}
	if fmt.Sprint(summary) != fmt.Sprint(want) {
		t.Errorf("slow subscriber got %v, want %v", summary, want)
	}
	if n := len(fast); n < 6 || n > 206 {
		t.Errorf("fast subscriber got %d events", n)
	}
	// Publishing after unsubscribing reaches no one and does not block.
	bus.Publish(Event{Type: EventResult})
	var nilBus *Bus
	nilBus.Publish(Event{Type: EventResult})
}

// TestBusNeverDropsResults publishes many non-lossy events to a subscriber slower than the
// publisher and checks every one arrives.
func TestBusNeverDropsResults(t *testing.T) {
	var bus Bus
	n := 0
	unsub := bus.Subscribe(func(e Event) { n++ })
	for range 10000 {
		bus.Publish(Event{Type: EventToolResults})
	}
	unsub()
	if n != 10000 {
		t.Errorf("delivered %d of 10000", n)
	}
}
