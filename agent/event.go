package agent

import (
	"encoding/json"
	"sync"

	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/toolcall"
)

// EventType distinguishes the kinds of [Event].
type EventType int

const (
	// EventTextDelta carries Text streamed into the text block at Index of the assistant
	// message being received. Deltas may be merged for a slow subscriber.
	EventTextDelta EventType = iota + 1
	// EventAssistant carries a complete assistant message in Response.
	EventAssistant
	// EventProgress carries a tool's Progress for the call ToolUseID. Progress may be
	// coalesced for a slow subscriber.
	EventProgress
	// EventToolResults carries the user message of tool results in Message, after every call
	// of a turn has its result.
	EventToolResults
	// EventResult carries the run's final Result. It is the last event of a run.
	EventResult
	// EventHook carries a hook run in Hook: once when it starts (Hook.Done false) and once
	// when it ends.
	EventHook
	// EventHookMessage carries in Text something a hook had to tell the person: a
	// systemMessage, a failed or timed-out hook.
	EventHookMessage
	// EventPermissionDenied carries a call the permission decision refused, in Denied, before
	// the tool results of its turn.
	EventPermissionDenied
	// EventNotice carries in Text something a log should say about the call ToolUseID that
	// changed nothing for the model (a large result that could not be saved and went whole),
	// or, with no ToolUseID, about the run (an automatic compaction that failed).
	EventNotice
	// EventUsage carries in Response the model and usage of a request made on the run's
	// behalf besides its turns (auto mode's classifier); Response.Message is empty. The
	// run's Result counts it.
	EventUsage
	// EventThinkingDelta carries Text streamed into the thinking block at Index of the
	// assistant message being received. Deltas may be merged for a slow subscriber.
	EventThinkingDelta
	// EventCompact carries a compaction: its record in Boundary, and in Message the user
	// message that replaced the conversation (the summary and what was carried over).
	EventCompact
	// EventToolCall carries in Call a call once its result is known: the decision and how far
	// the call got, for every call of the turn (denied, invalid and unknown ones included).
	// The audit log and telemetry read it.
	EventToolCall
	// EventMessageStart opens an assistant message as the API streams it: Response holds the
	// API's message ID, the model and the usage reported so far, and no content. A request
	// that is tried again may open its message more than once.
	EventMessageStart
)

func (t EventType) String() string {
	switch t {
	case EventTextDelta:
		return "text_delta"
	case EventAssistant:
		return "assistant"
	case EventProgress:
		return "progress"
	case EventToolResults:
		return "tool_results"
	case EventResult:
		return "result"
	case EventHook:
		return "hook"
	case EventHookMessage:
		return "hook_message"
	case EventPermissionDenied:
		return "permission_denied"
	case EventNotice:
		return "notice"
	case EventUsage:
		return "usage"
	case EventThinkingDelta:
		return "thinking_delta"
	case EventCompact:
		return "compact"
	case EventToolCall:
		return "tool_call"
	case EventMessageStart:
		return "message_start"
	}
	return "unknown"
}

// Event is something that happened in a run.
type Event struct {
	Type EventType
	// Index and Text are set for EventTextDelta and EventThinkingDelta.
	Index int
	Text  string
	// Response is set for EventAssistant, EventUsage and EventMessageStart.
	Response *llm.Response
	// ToolUseID and Progress are set for EventProgress.
	ToolUseID string
	Progress  tool.Progress
	// Message is set for EventToolResults; Outputs holds the structured output
	// ([tool.Result.Output]) of each call that produced one, by tool_use id.
	Message *llm.Message
	Outputs map[string]any
	// Denied is set for EventPermissionDenied.
	Denied *DeniedCall
	// Result is set for EventResult.
	Result *Result
	// ParentToolUseID is set on the events of a sub-agent forwarded to its parent's bus: the
	// id of the Agent call that runs it.
	ParentToolUseID string

	// Hook is set for EventHook.
	Hook *hooks.Run
	// Boundary is set for EventCompact.
	Boundary *Boundary
	// Call is set for EventToolCall.
	Call *CallRecord
	// UUID names the message of EventAssistant and EventToolResults, as it is recorded
	// ([MessageInfo]).
	UUID string
}

// CallRecord is what became of one tool call: its input as the model sent it, the mode it was
// decided in, the decision (zero when the call never reached the engine: an unknown tool, an
// input that failed its checks) and the stage it reached.
type CallRecord struct {
	ToolName  string
	ToolUseID string
	Input     json.RawMessage
	Mode      permission.Mode
	Stage     toolcall.Stage
	Decision  permission.Decision
	// IsError is set when the result the model reads is an error.
	IsError bool
	// RanInput is the input the call ran with when the decision substituted one (a person's
	// edit in the dialog, an SDK caller's or a hook's updatedInput); nil when it ran as sent.
	RanInput json.RawMessage
}

// DeniedCall is a call the permission decision refused: the tool, the id of its tool_use, and
// the decision's message (what the model is told) and reason.
type DeniedCall struct {
	ToolName  string
	ToolUseID string
	Message   string
	Reason    *permission.Reason
	// By says who decided (the engine's [permission.Decision.By]).
	By *permission.DecidedBy
}

// Bus delivers events to subscribers under the contract in the package documentation. The zero
// value is ready to use; a nil *Bus discards events.
type Bus struct {
	mu   sync.Mutex
	subs []*subscription
}

// Subscribe calls fn with every event published from now on, on a goroutine of its own. The
// returned function unsubscribes: it waits until fn has been called with every event published
// before it, then stops the goroutine. It may be called more than once.
func (b *Bus) Subscribe(fn func(Event)) (unsubscribe func()) {
	s := &subscription{fn: fn, wake: make(chan struct{}, 1), done: make(chan struct{}), progress: map[string]int{}}
	b.mu.Lock()
	b.subs = append(b.subs, s)
	b.mu.Unlock()
	go s.loop()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			for i, x := range b.subs {
				if x == s {
					b.subs = append(b.subs[:i:i], b.subs[i+1:]...)
					break
				}
			}
			b.mu.Unlock()
			s.close()
		})
	}
}

// Publish queues ev for every subscriber. It never blocks on a subscriber.
func (b *Bus) Publish(ev Event) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.subs {
		s.push(ev)
	}
}

type subscription struct {
	fn   func(Event)
	wake chan struct{}
	done chan struct{}

	mu     sync.Mutex
	queue  []Event
	closed bool
	// progress maps a tool_use id to the queue index of its undelivered progress event.
	progress map[string]int
}

// skipped marks a queue slot whose event was replaced by a newer one.
const skipped EventType = 0

func (s *subscription) push(ev Event) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	switch ev.Type {
	case EventProgress:
		// Drop the older undelivered report and queue the new one at the end, so progress
		// never jumps ahead of events published between the two.
		if i, ok := s.progress[ev.ToolUseID]; ok {
			s.queue[i].Type = skipped
		}
		s.progress[ev.ToolUseID] = len(s.queue)
		s.queue = append(s.queue, ev)
	case EventTextDelta, EventThinkingDelta:
		if n := len(s.queue); n > 0 && s.queue[n-1].Type == ev.Type && s.queue[n-1].Index == ev.Index {
			s.queue[n-1].Text += ev.Text
		} else {
			s.queue = append(s.queue, ev)
		}
	default:
		s.queue = append(s.queue, ev)
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *subscription) loop() {
	defer close(s.done)
	for {
		s.mu.Lock()
		batch := s.queue
		s.queue = nil
		clear(s.progress)
		closed := s.closed
		s.mu.Unlock()
		for _, ev := range batch {
			if ev.Type != skipped {
				s.fn(ev)
			}
		}
		if len(batch) > 0 {
			continue
		}
		if closed {
			return
		}
		<-s.wake
	}
}

func (s *subscription) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	<-s.done
}
