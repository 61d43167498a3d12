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
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message struct {
		ID    string `json:"id"`
		Model string `json:"model"`
		Usage struct {
			InputTokens              int `json:"input_tokens"`
			OutputTokens             int `json:"output_tokens"`
			CacheReadInputTokens     int `json:"cache_read_input_tokens"`
			CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
		} `json:"usage"`
	} `json:"message"`
	ContentBlock struct {
		Type string `json:"type"`
		Text string `json:"text"`
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"content_block"`
	Delta struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage struct {
		InputTokens              *int `json:"input_tokens"`
		OutputTokens             int  `json:"output_tokens"`
		CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
		CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	} `json:"usage"`
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
	kind llm.BlockType // "" for block types the adapter skips (thinking, server tools)
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
// data of thinking and server tool blocks.
func decodeStream(r io.Reader, onEvent func(llm.Event)) (*llm.Response, error) {
	var (
		sr     = sse.NewReader(r, sse.Options{})
		acc    llm.Accumulator
		blocks []blockState
		n      int // blocks of our message so far
		usage  llm.Usage
		stop   llm.StopReason
		model  string
		id     string
	)
	emit := func(ev llm.Event) error {
		if err := acc.Add(ev); err != nil {
			return fmt.Errorf("%w: %w", errMalformed, err)
		}
		if onEvent != nil {
			onEvent(ev)
		}
		return nil
	}
	for {
		name, data, err := sr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		switch string(name) {
		case "message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop":
		case "error":
			return nil, streamError(data)
		default:
			continue // ping, and event types this adapter does not know
		}
		if len(data) == 0 {
			continue // "data:" alone; the SDK skipped these too
		}
		var ev streamEvent
		if err := json.Unmarshal(data, &ev); err != nil {
			return nil, fmt.Errorf("%w: %s event: %w", errMalformed, name, err)
		}
		switch string(name) {
		case "message_start":
			m := &ev.Message
			model, id = m.Model, m.ID
			usage = llm.Usage{
				InputTokens:              m.Usage.InputTokens,
				OutputTokens:             m.Usage.OutputTokens,
				CacheReadInputTokens:     m.Usage.CacheReadInputTokens,
				CacheCreationInputTokens: m.Usage.CacheCreationInputTokens,
			}
		case "content_block_start":
			i := ev.Index
			if i != len(blocks) {
				return nil, fmt.Errorf("%w: block %d started after %d blocks", errMalformed, i, len(blocks))
			}
			cb := &ev.ContentBlock
			switch cb.Type {
			case "text":
				blocks = append(blocks, blockState{kind: llm.BlockText, ours: -1})
				if cb.Text != "" {
					blocks[i].ours, n = n, n+1
					if err := emit(llm.Event{Type: llm.EventTextDelta, Index: blocks[i].ours, Text: cb.Text}); err != nil {
						return nil, err
					}
				}
			case "tool_use":
				blocks = append(blocks, blockState{kind: llm.BlockToolUse, ours: n})
				n++
				if err := emit(llm.Event{Type: llm.EventToolUseStart, Index: n - 1, ToolUseID: cb.ID, ToolName: cb.Name}); err != nil {
					return nil, err
				}
			default:
				blocks = append(blocks, blockState{ours: -1})
			}
		case "content_block_delta":
			i := ev.Index
			if i < 0 || i >= len(blocks) {
				return nil, fmt.Errorf("%w: delta for block %d of %d", errMalformed, i, len(blocks))
			}
			b := &blocks[i]
			d := &ev.Delta
			switch {
			case d.Type == "text_delta" && b.kind == llm.BlockText && d.Text != "":
				if b.ours < 0 {
					b.ours, n = n, n+1
				}
				if err := emit(llm.Event{Type: llm.EventTextDelta, Index: b.ours, Text: d.Text}); err != nil {
					return nil, err
				}
			case d.Type == "input_json_delta" && b.kind == llm.BlockToolUse && d.PartialJSON != "":
				if err := emit(llm.Event{Type: llm.EventToolInputDelta, Index: b.ours, PartialJSON: d.PartialJSON}); err != nil {
					return nil, err
				}
			}
		case "message_delta":
			stop = llm.StopReason(ev.Delta.StopReason)
			// The counts are totals for the message; those absent keep the
			// values from message_start.
			u := &ev.Usage
			usage.OutputTokens = u.OutputTokens
			if u.InputTokens != nil {
				usage.InputTokens = *u.InputTokens
			}
			if u.CacheReadInputTokens != nil {
				usage.CacheReadInputTokens = *u.CacheReadInputTokens
			}
			if u.CacheCreationInputTokens != nil {
				usage.CacheCreationInputTokens = *u.CacheCreationInputTokens
			}
		case "message_stop":
			if err := emit(llm.Event{Type: llm.EventMessageStop, StopReason: stop, Usage: usage}); err != nil {
				return nil, err
			}
		}
	}
	if !acc.Stopped() {
		return nil, fmt.Errorf("stream ended before message_stop: %w", io.ErrUnexpectedEOF)
	}
	resp := acc.Response()
	resp.Model, resp.ID = model, id
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
