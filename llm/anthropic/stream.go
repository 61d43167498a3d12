package anthropic

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/internal/sse"
)

// streamEvent is the data of every event of a Messages stream the adapter reads, in one
// struct: each event type fills the fields it has. Fields the adapter does not use are
// not decoded. Counts in message_delta's usage are pointers, since only those present
// replace message_start's.
type streamEvent struct {
	Type         string        `json:"type"`
	Index        int           `json:"index"`
	Message      streamMessage `json:"message"`
	ContentBlock streamBlock   `json:"content_block"`
	Delta        streamDelta   `json:"delta"`
	Usage        struct {
		InputTokens              *int `json:"input_tokens"`
		OutputTokens             int  `json:"output_tokens"`
		CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
		CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	} `json:"usage"`
}

// streamMessage is message_start's message.
type streamMessage struct {
	ID    string `json:"id"`
	Model string `json:"model"`
	Usage struct {
		InputTokens              int `json:"input_tokens"`
		OutputTokens             int `json:"output_tokens"`
		CacheReadInputTokens     int `json:"cache_read_input_tokens"`
		CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	} `json:"usage"`
}

// streamBlock is content_block_start's block.
type streamBlock struct {
	Type      string `json:"type"`
	Text      string `json:"text"`
	ID        string `json:"id"`
	Name      string `json:"name"`
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
	Data      string `json:"data"` // redacted_thinking
}

// streamDelta is the delta of content_block_delta and message_delta.
type streamDelta struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	PartialJSON string `json:"partial_json"`
	Thinking    string `json:"thinking"`
	Signature   string `json:"signature"`
	StopReason  string `json:"stop_reason"`
}

// errorBody is the API's error shape, in an error response and in an error event.
type errorBody struct {
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// blockState follows one content block of the API's stream.
type blockState struct {
	kind llm.BlockType // "" for block types the adapter skips (server tools)
	ours int           // index in our message; -1 until a text block has text
}

// errMalformed marks a stream that broke the protocol (bad JSON, blocks out of order).
var errMalformed = errors.New("malformed stream")

// decodeStream reads a Messages API event stream from r, reports each llm event to onEvent
// and returns the response once the stream ended after message_stop. An error event
// comes back as an *llm.APIError with StatusCode 0; a broken stream as an error wrapping
// errMalformed; one that ends before message_stop as io.ErrUnexpectedEOF; a failed read as
// that error.
//
// Events are told apart by their "event:" name, which the API sets to the data's type. An
// event name it does not know (a later API version's) is skipped, as are ping and the
// data of server tool blocks. Thinking and redacted_thinking blocks are kept whole, with
// their signatures, since the API wants them back unchanged in the next request.
func decodeStream(r io.Reader, onEvent func(llm.Event)) (*llm.Response, error) {
	sr := sse.NewReader(r, sse.Options{})
	d := streamDecoder{onEvent: onEvent}
	// The API's blocks are followed here, not in d: appended to in this function, the first
	// one's storage stays on the stack, which saves a turn an allocation.
	var blocks []blockState
	for {
		name, data, err := sr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		kind := eventKindOf(name)
		switch {
		case kind == evError:
			return nil, streamError(data)
		case kind == evSkipped:
			continue // ping, and event types this adapter does not know
		case len(data) == 0:
			continue // "data:" alone; the SDK skipped these too
		}
		var ev streamEvent
		if err := json.Unmarshal(data, &ev); err != nil {
			return nil, fmt.Errorf("%w: %s event: %w", errMalformed, name, err)
		}
		switch kind {
		case evBlockStart:
			if ev.Index != len(blocks) {
				return nil, fmt.Errorf("%w: block %d started after %d blocks", errMalformed, ev.Index, len(blocks))
			}
			b, err := d.startBlock(&ev.ContentBlock)
			blocks = append(blocks, b)
			if err != nil {
				return nil, err
			}
		case evBlockDelta:
			if ev.Index < 0 || ev.Index >= len(blocks) {
				return nil, fmt.Errorf("%w: delta for block %d of %d", errMalformed, ev.Index, len(blocks))
			}
			if err := d.blockDelta(&blocks[ev.Index], &ev.Delta); err != nil {
				return nil, err
			}
		default:
			if err := d.apply(kind, &ev); err != nil {
				return nil, err
			}
		}
	}
	return d.response()
}

// eventKind is an event name of the stream the adapter reads.
type eventKind int

const (
	evSkipped eventKind = iota // ping, and names this adapter does not know
	evError
	evMessageStart
	evBlockStart
	evBlockDelta
	evBlockStop
	evMessageDelta
	evMessageStop
)

func eventKindOf(name []byte) eventKind {
	switch string(name) {
	case "message_start":
		return evMessageStart
	case "content_block_start":
		return evBlockStart
	case "content_block_delta":
		return evBlockDelta
	case "content_block_stop":
		return evBlockStop
	case "message_delta":
		return evMessageDelta
	case "message_stop":
		return evMessageStop
	case "error":
		return evError
	}
	return evSkipped
}

// streamDecoder is what decodeStream knows of the message between events.
type streamDecoder struct {
	onEvent func(llm.Event)
	acc     llm.Accumulator
	n       int // blocks of our message so far
	usage   llm.Usage
	stop    llm.StopReason
	model   string
	id      string
}

// apply takes in one decoded event of the stream that is not about a block.
func (d *streamDecoder) apply(kind eventKind, ev *streamEvent) error {
	switch kind {
	case evMessageStart:
		d.startMessage(&ev.Message)
		return d.emit(llm.Event{Type: llm.EventMessageStart, MessageID: d.id, Model: d.model, Usage: d.usage})
	case evMessageDelta:
		d.messageDelta(ev)
	case evMessageStop:
		return d.emit(llm.Event{Type: llm.EventMessageStop, StopReason: d.stop, Usage: d.usage})
	}
	return nil
}

// emit adds ev to the response and reports it.
func (d *streamDecoder) emit(ev llm.Event) error {
	if err := d.acc.Add(ev); err != nil {
		return fmt.Errorf("%w: %w", errMalformed, err)
	}
	if d.onEvent != nil {
		d.onEvent(ev)
	}
	return nil
}

// startMessage takes the message's id and model, and the usage counts so far.
func (d *streamDecoder) startMessage(m *streamMessage) {
	d.model, d.id = m.Model, m.ID
	d.usage = llm.Usage{
		InputTokens:              m.Usage.InputTokens,
		OutputTokens:             m.Usage.OutputTokens,
		CacheReadInputTokens:     m.Usage.CacheReadInputTokens,
		CacheCreationInputTokens: m.Usage.CacheCreationInputTokens,
	}
}

// startBlock returns the state of a block that starts. A tool use or a thinking block gets
// the next index in our message at once (a thinking block may hold only a signature, and
// still must go back), a text block only when it has text; other blocks get none.
func (d *streamDecoder) startBlock(cb *streamBlock) (blockState, error) {
	switch cb.Type {
	case "text":
		b := blockState{kind: llm.BlockText, ours: -1}
		if cb.Text != "" {
			b.ours, d.n = d.n, d.n+1
			return b, d.emit(llm.Event{Type: llm.EventTextDelta, Index: b.ours, Text: cb.Text})
		}
		return b, nil
	case "tool_use":
		b := blockState{kind: llm.BlockToolUse, ours: d.n}
		d.n++
		return b, d.emit(llm.Event{Type: llm.EventToolUseStart, Index: b.ours, ToolUseID: cb.ID, ToolName: cb.Name})
	case "thinking":
		b := blockState{kind: llm.BlockThinking, ours: d.n}
		d.n++
		if err := d.emit(llm.Event{Type: llm.EventThinkingDelta, Index: b.ours, Text: cb.Thinking}); err != nil || cb.Signature == "" {
			return b, err
		}
		return b, d.emit(llm.Event{Type: llm.EventSignatureDelta, Index: b.ours, Signature: cb.Signature})
	case "redacted_thinking":
		b := blockState{kind: llm.BlockRedactedThinking, ours: d.n}
		d.n++
		return b, d.emit(llm.Event{Type: llm.EventRedactedThinking, Index: b.ours, Data: cb.Data})
	}
	return blockState{ours: -1}, nil
}

// blockDelta reports the text or the input JSON that a delta adds to block b; the deltas
// of blocks the adapter skips are dropped.
func (d *streamDecoder) blockDelta(b *blockState, delta *streamDelta) error {
	switch {
	case delta.Type == "text_delta" && b.kind == llm.BlockText && delta.Text != "":
		if b.ours < 0 {
			b.ours, d.n = d.n, d.n+1
		}
		return d.emit(llm.Event{Type: llm.EventTextDelta, Index: b.ours, Text: delta.Text})
	case delta.Type == "input_json_delta" && b.kind == llm.BlockToolUse && delta.PartialJSON != "":
		return d.emit(llm.Event{Type: llm.EventToolInputDelta, Index: b.ours, PartialJSON: delta.PartialJSON})
	case delta.Type == "thinking_delta" && b.kind == llm.BlockThinking && delta.Thinking != "":
		return d.emit(llm.Event{Type: llm.EventThinkingDelta, Index: b.ours, Text: delta.Thinking})
	case delta.Type == "signature_delta" && b.kind == llm.BlockThinking && delta.Signature != "":
		return d.emit(llm.Event{Type: llm.EventSignatureDelta, Index: b.ours, Signature: delta.Signature})
	}
	return nil
}

// messageDelta takes the stop reason and the usage. The counts are totals for the message;
// those absent keep the values from message_start.
func (d *streamDecoder) messageDelta(ev *streamEvent) {
	d.stop = llm.StopReason(ev.Delta.StopReason)
	u := &ev.Usage
	d.usage.OutputTokens = u.OutputTokens
	if u.InputTokens != nil {
		d.usage.InputTokens = *u.InputTokens
	}
	if u.CacheReadInputTokens != nil {
		d.usage.CacheReadInputTokens = *u.CacheReadInputTokens
	}
	if u.CacheCreationInputTokens != nil {
		d.usage.CacheCreationInputTokens = *u.CacheCreationInputTokens
	}
}

// response is the message of a stream that ended, or an error if it ended before
// message_stop.
func (d *streamDecoder) response() (*llm.Response, error) {
	if !d.acc.Stopped() {
		return nil, fmt.Errorf("stream ended before message_stop: %w", io.ErrUnexpectedEOF)
	}
	resp := d.acc.Response()
	resp.Model, resp.ID = d.model, d.id
	return resp, nil
}

// streamError is the *llm.APIError for an error event: status 0, since the response
// began with 200, which lets llm.RetryPolicy retry an "overloaded" event that arrives
// before any content.
func streamError(data []byte) error {
	e := &llm.APIError{Provider: providerName}
	e.Type, e.Message = parseError(data)
	return e
}

// parseError reads the type and message of the API's error shape
// {"type":"error","error":{"type":...,"message":...}}; for any other body the message is
// the body itself, shortened.
func parseError(data []byte) (typ, message string) {
	var body errorBody
	if json.Unmarshal(data, &body) == nil {
		typ, message = body.Error.Type, body.Error.Message
	}
	if message == "" {
		message = sse.Truncate(string(data), 300)
	}
	return typ, message
}
