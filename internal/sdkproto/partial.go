package sdkproto

import (
	"encoding/json"
	"slices"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/session"
)

// Partial messages (--include-partial-messages) are the Messages API's stream events, rebuilt
// from the agent's events: text streams live as it arrives; the other blocks (tool_use) are
// sent whole when the message is complete, as one input_json_delta each, since the agent
// publishes only text deltas. The sequence is always a valid stream: message_start, each
// block's start, deltas and stop, message_delta, message_stop.

type streamMessage struct {
	ID           string      `json:"id"`
	Type         string      `json:"type"`
	Role         llm.Role    `json:"role"`
	Model        string      `json:"model"`
	Content      []wireBlock `json:"content"`
	StopReason   *string     `json:"stop_reason"`
	StopSequence *string     `json:"stop_sequence"`
	Usage        llm.Usage   `json:"usage"`
}

type messageStart struct {
	Type    string        `json:"type"`
	Message streamMessage `json:"message"`
}

type blockStart struct {
	Type         string    `json:"type"`
	Index        int       `json:"index"`
	ContentBlock wireBlock `json:"content_block"`
}

type blockDelta struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
	Delta any    `json:"delta"`
}

type textDelta struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type inputDelta struct {
	Type        string `json:"type"`
	PartialJSON string `json:"partial_json"`
}

type thinkingDelta struct {
	Type     string `json:"type"`
	Thinking string `json:"thinking"`
}

type signatureDelta struct {
	Type      string `json:"type"`
	Signature string `json:"signature"`
}

type blockStop struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
}

type messageDelta struct {
	Type  string           `json:"type"`
	Delta messageDeltaBody `json:"delta"`
	Usage llm.Usage        `json:"usage"`
}

type messageDeltaBody struct {
	StopReason   llm.StopReason `json:"stop_reason"`
	StopSequence *string        `json:"stop_sequence"`
}

type messageStop struct {
	Type string `json:"type"`
}

func (e *Emitter) event(ev any) {
	e.write(streamEventLine{Type: "stream_event", Event: ev, SessionID: e.SessionID, UUID: session.NewID()})
}

// startMessage writes message_start with the API's id, model and usage as its own
// message_start reported them (start; r, the whole message, when the adapter sent none).
func (e *Emitter) startMessage(start, r *llm.Response) {
	m := streamMessage{Type: "message", Role: llm.RoleAssistant, Content: []wireBlock{}}
	switch {
	case start != nil:
		m.ID, m.Model, m.Usage = start.ID, start.Model, start.Usage
	case r != nil:
		m.ID, m.Model = r.ID, r.Model
	}
	e.event(messageStart{Type: "message_start", Message: m})
}

// messageStarted keeps what the API's message_start said of the message being received; it is
// written with the first delta, so a request tried again after it shows one message.
func (e *Emitter) messageStarted(r *llm.Response) {
	e.mu.Lock()
	e.runs.start = r
	e.mu.Unlock()
}

// partialText streams a text delta, opening the message and the block on their first delta.
func (e *Emitter) partialText(ev agent.Event) {
	e.mu.Lock()
	open := e.runs.open
	first := open == nil
	if first {
		open = &partialStream{blocks: map[int]bool{}}
		e.runs.open = open
	}
	newBlock := !open.blocks[ev.Index]
	open.blocks[ev.Index] = true
	start := e.runs.start
	e.mu.Unlock()
	if first {
		e.startMessage(start, nil)
	}
	if newBlock {
		empty := ""
		e.event(blockStart{Type: "content_block_start", Index: ev.Index, ContentBlock: wireBlock{Type: llm.BlockText, Text: &empty}})
	}
	e.event(blockDelta{Type: "content_block_delta", Index: ev.Index, Delta: textDelta{Type: "text_delta", Text: ev.Text}})
}

// finishStream closes the streamed text blocks, sends the other blocks whole, and ends the
// message.
func (e *Emitter) finishStream(open *partialStream, start, r *llm.Response) {
	if open == nil {
		e.startMessage(start, r)
		open = &partialStream{blocks: map[int]bool{}}
	}
	streamed := make([]int, 0, len(open.blocks))
	for i := range open.blocks {
		streamed = append(streamed, i)
	}
	slices.Sort(streamed)
	for _, i := range streamed {
		e.event(blockStop{Type: "content_block_stop", Index: i})
	}
	for i, b := range r.Message.Content {
		if open.blocks[i] {
			continue
		}
		switch b.Type {
		case llm.BlockToolUse:
			e.event(blockStart{Type: "content_block_start", Index: i,
				ContentBlock: wireBlock{Type: b.Type, ID: b.ID, Name: b.Name, Input: json.RawMessage(`{}`)}})
			e.event(blockDelta{Type: "content_block_delta", Index: i, Delta: inputDelta{Type: "input_json_delta", PartialJSON: string(b.Input)}})
		case llm.BlockText:
			empty := ""
			e.event(blockStart{Type: "content_block_start", Index: i, ContentBlock: wireBlock{Type: b.Type, Text: &empty}})
			e.event(blockDelta{Type: "content_block_delta", Index: i, Delta: textDelta{Type: "text_delta", Text: b.Text}})
		case llm.BlockThinking:
			// As the API streams it: an empty block, the text, then the signature.
			empty := ""
			e.event(blockStart{Type: "content_block_start", Index: i, ContentBlock: wireBlock{Type: b.Type, Thinking: &empty, Signature: &empty}})
			e.event(blockDelta{Type: "content_block_delta", Index: i, Delta: thinkingDelta{Type: "thinking_delta", Thinking: b.Thinking}})
			if b.Signature != "" {
				e.event(blockDelta{Type: "content_block_delta", Index: i, Delta: signatureDelta{Type: "signature_delta", Signature: b.Signature}})
			}
		case llm.BlockRedactedThinking:
			e.event(blockStart{Type: "content_block_start", Index: i, ContentBlock: wireBlock{Type: b.Type, Data: b.Data}})
		default:
			continue
		}
		e.event(blockStop{Type: "content_block_stop", Index: i})
	}
	e.event(messageDelta{Type: "message_delta", Delta: messageDeltaBody{StopReason: r.StopReason}, Usage: r.Usage})
	e.event(messageStop{Type: "message_stop"})
}
