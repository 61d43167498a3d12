package llm

import (
	"encoding/json"
	"fmt"
)

// Accumulator assembles a reply from its [Event]s. Adapters feed every event
// they emit through one, so the Response they return is by construction what
// the events described; a caller that is interrupted mid-stream can do the
// same to keep the partial reply. The zero value is ready to use. An
// Accumulator is not safe for concurrent use.
type Accumulator struct {
	blocks  []Block
	bufs    [][]byte // text or partial input JSON, per block
	stop    StopReason
	usage   Usage
	stopped bool
}

// Add applies ev. It returns an error, and changes nothing, when ev does not
// fit what came before: a block opened out of order, a delta for a block of
// another kind, or anything after EventMessageStop.
func (a *Accumulator) Add(ev Event) error {
	if a.stopped {
		return fmt.Errorf("%s event after message_stop", ev.Type)
	}
	switch ev.Type {
	case EventTextDelta:
		if ev.Index == len(a.blocks) {
			a.blocks = append(a.blocks, Block{Type: BlockText})
			a.bufs = append(a.bufs, nil)
		}
		if err := a.check(ev, BlockText); err != nil {
			return err
		}
		a.bufs[ev.Index] = append(a.bufs[ev.Index], ev.Text...)
	case EventToolUseStart:
		if ev.Index != len(a.blocks) {
			return fmt.Errorf("tool_use block opened at index %d, want %d", ev.Index, len(a.blocks))
		}
		a.blocks = append(a.blocks, Block{Type: BlockToolUse, ID: ev.ToolUseID, Name: ev.ToolName})
		a.bufs = append(a.bufs, nil)
	case EventToolInputDelta:
		if err := a.check(ev, BlockToolUse); err != nil {
			return err
		}
		a.bufs[ev.Index] = append(a.bufs[ev.Index], ev.PartialJSON...)
	case EventThinkingDelta:
		if ev.Index == len(a.blocks) {
			a.blocks = append(a.blocks, Block{Type: BlockThinking})
			a.bufs = append(a.bufs, nil)
		}
		if err := a.check(ev, BlockThinking); err != nil {
			return err
		}
		a.bufs[ev.Index] = append(a.bufs[ev.Index], ev.Text...)
	case EventSignatureDelta:
		if err := a.check(ev, BlockThinking); err != nil {
			return err
		}
		a.blocks[ev.Index].Signature += ev.Signature
	case EventRedactedThinking:
		if ev.Index != len(a.blocks) {
			return fmt.Errorf("redacted_thinking block opened at index %d, want %d", ev.Index, len(a.blocks))
		}
		a.blocks = append(a.blocks, RedactedThinking(ev.Data))
		a.bufs = append(a.bufs, nil)
	case EventMessageStart:
		if len(a.blocks) > 0 {
			return fmt.Errorf("message_start after %d blocks", len(a.blocks))
		}
	case EventMessageStop:
		a.stop, a.usage, a.stopped = ev.StopReason, ev.Usage, true
	default:
		return fmt.Errorf("unknown event type %d", ev.Type)
	}
	return nil
}

func (a *Accumulator) check(ev Event, want BlockType) error {
	if ev.Index < 0 || ev.Index >= len(a.blocks) {
		return fmt.Errorf("%s for block %d, but %d blocks are open", ev.Type, ev.Index, len(a.blocks))
	}
	if got := a.blocks[ev.Index].Type; got != want {
		return fmt.Errorf("%s for block %d of type %s", ev.Type, ev.Index, got)
	}
	return nil
}

// Stopped reports whether EventMessageStop has been added.
func (a *Accumulator) Stopped() bool { return a.stopped }

// Message returns the assistant message assembled so far. Tool inputs that
// are empty or not a valid JSON object (a reply cut off by max_tokens, or a
// lax server) become {}, so that the message always serialises and can be
// sent back to the API; the tool's own input validation then reports the
// problem to the model.
func (a *Accumulator) Message() Message {
	content := make([]Block, len(a.blocks))
	for i, b := range a.blocks {
		switch b.Type {
		case BlockText:
			b.Text = string(a.bufs[i])
		case BlockThinking:
			b.Thinking = string(a.bufs[i])
		case BlockToolUse:
			b.Input = toolInput(a.bufs[i])
		}
		content[i] = b
	}
	return Message{Role: RoleAssistant, Content: content}
}

// Response returns the assembled reply; StopReason and Usage are those of
// EventMessageStop, or zero before it.
func (a *Accumulator) Response() *Response {
	return &Response{Message: a.Message(), StopReason: a.stop, Usage: a.usage}
}

func toolInput(buf []byte) json.RawMessage {
	if !isJSONObject(buf) {
		return json.RawMessage(`{}`)
	}
	return json.RawMessage(append([]byte(nil), buf...))
}
