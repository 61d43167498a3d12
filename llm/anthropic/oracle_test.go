package anthropic

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"

	"github.com/reinsdev/reins/llm"
)

// convertBlocks is the adapter's former translation of content blocks into the SDK's
// params, kept as the oracle the hand-written encoder is compared with.
func convertBlocks(blocks []llm.Block) ([]sdk.ContentBlockParamUnion, error) {
	out := make([]sdk.ContentBlockParamUnion, 0, len(blocks))
	for _, b := range blocks {
		switch b.Type {
		case llm.BlockText:
			if b.Text == "" {
				continue // the API rejects empty text blocks
			}
			out = append(out, sdk.ContentBlockParamUnion{OfText: &sdk.TextBlockParam{Text: b.Text}})
		case llm.BlockImage:
			out = append(out, sdk.ContentBlockParamUnion{OfImage: imageParam(b)})
		case llm.BlockToolUse:
			input := b.Input
			if len(input) == 0 {
				input = json.RawMessage(`{}`)
			}
			out = append(out, sdk.ContentBlockParamUnion{OfToolUse: &sdk.ToolUseBlockParam{ID: b.ID, Name: b.Name, Input: input}})
		case llm.BlockToolResult:
			r := &sdk.ToolResultBlockParam{ToolUseID: b.ToolUseID}
			if b.IsError {
				r.IsError = sdk.Bool(true)
			}
			for _, c := range b.Content {
				switch c.Type {
				case llm.BlockText:
					if c.Text != "" {
						r.Content = append(r.Content, sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: c.Text}})
					}
				case llm.BlockImage:
					r.Content = append(r.Content, sdk.ToolResultBlockParamContentUnion{OfImage: imageParam(c)})
				default:
					return nil, fmt.Errorf("tool_result %s: unsupported content block %q", b.ToolUseID, c.Type)
				}
			}
			out = append(out, sdk.ContentBlockParamUnion{OfToolResult: r})
		default:
			return nil, fmt.Errorf("unsupported block type %q", b.Type)
		}
	}
	return out, nil
}

func imageParam(b llm.Block) *sdk.ImageBlockParam {
	return &sdk.ImageBlockParam{Source: sdk.ImageBlockParamSourceUnion{OfBase64: &sdk.Base64ImageSourceParam{
		Data:      b.Data,
		MediaType: sdk.Base64ImageSourceMediaType(b.MediaType),
	}}}
}

// sdkDecode decodes an event stream the way the adapter did before it read streams itself:
// the SDK's ssestream decoder and MessageStreamEventUnion, then the same state machine.
// It is the oracle decodeStream is compared with.
func sdkDecode(body io.Reader) ([]llm.Event, *llm.Response, error) {
	res := &http.Response{
		StatusCode: 200,
		Header:     http.Header{"Content-Type": {"text/event-stream"}},
		Body:       io.NopCloser(body),
		Request:    httptest.NewRequest(http.MethodPost, "http://api.test/v1/messages", nil),
	}
	stream := ssestream.NewStream[sdk.MessageStreamEventUnion](ssestream.NewDecoder(res), nil)
	defer stream.Close()
	var (
		events []llm.Event
		acc    llm.Accumulator
		blocks []blockState
		n      int
		usage  llm.Usage
		stop   llm.StopReason
		model  string
		id     string
	)
	emit := func(ev llm.Event) error {
		if err := acc.Add(ev); err != nil {
			return fmt.Errorf("anthropic: malformed stream: %w", err)
		}
		events = append(events, ev)
		return nil
	}
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "message_start":
			m := ev.Message
			model, id = m.Model, m.ID
			usage = llm.Usage{
				InputTokens:              int(m.Usage.InputTokens),
				OutputTokens:             int(m.Usage.OutputTokens),
				CacheReadInputTokens:     int(m.Usage.CacheReadInputTokens),
				CacheCreationInputTokens: int(m.Usage.CacheCreationInputTokens),
			}
		case "content_block_start":
			i := int(ev.Index)
			if i != len(blocks) {
				return events, nil, fmt.Errorf("anthropic: malformed stream: block %d started after %d blocks", i, len(blocks))
			}
			cb := ev.ContentBlock
			switch cb.Type {
			case "text":
				blocks = append(blocks, blockState{kind: llm.BlockText, ours: -1})
				if cb.Text != "" {
					blocks[i].ours, n = n, n+1
					if err := emit(llm.Event{Type: llm.EventTextDelta, Index: blocks[i].ours, Text: cb.Text}); err != nil {
						return events, nil, err
					}
				}
			case "tool_use":
				blocks = append(blocks, blockState{kind: llm.BlockToolUse, ours: n})
				n++
				if err := emit(llm.Event{Type: llm.EventToolUseStart, Index: n - 1, ToolUseID: cb.ID, ToolName: cb.Name}); err != nil {
					return events, nil, err
				}
			default:
				blocks = append(blocks, blockState{ours: -1})
			}
		case "content_block_delta":
			i := int(ev.Index)
			if i < 0 || i >= len(blocks) {
				return events, nil, fmt.Errorf("anthropic: malformed stream: delta for block %d of %d", i, len(blocks))
			}
			b := &blocks[i]
			switch {
			case ev.Delta.Type == "text_delta" && b.kind == llm.BlockText && ev.Delta.Text != "":
				if b.ours < 0 {
					b.ours, n = n, n+1
				}
				if err := emit(llm.Event{Type: llm.EventTextDelta, Index: b.ours, Text: ev.Delta.Text}); err != nil {
					return events, nil, err
				}
			case ev.Delta.Type == "input_json_delta" && b.kind == llm.BlockToolUse && ev.Delta.PartialJSON != "":
				if err := emit(llm.Event{Type: llm.EventToolInputDelta, Index: b.ours, PartialJSON: ev.Delta.PartialJSON}); err != nil {
					return events, nil, err
				}
			}
		case "message_delta":
			stop = llm.StopReason(ev.Delta.StopReason)
			usage.OutputTokens = int(ev.Usage.OutputTokens)
			if ev.Usage.JSON.InputTokens.Valid() {
				usage.InputTokens = int(ev.Usage.InputTokens)
			}
			if ev.Usage.JSON.CacheReadInputTokens.Valid() {
				usage.CacheReadInputTokens = int(ev.Usage.CacheReadInputTokens)
			}
			if ev.Usage.JSON.CacheCreationInputTokens.Valid() {
				usage.CacheCreationInputTokens = int(ev.Usage.CacheCreationInputTokens)
			}
		case "message_stop":
			if err := emit(llm.Event{Type: llm.EventMessageStop, StopReason: stop, Usage: usage}); err != nil {
				return events, nil, err
			}
		}
	}
	if err := stream.Err(); err != nil {
		var se *sdk.Error
		if !errors.As(err, &se) {
			return events, nil, fmt.Errorf("anthropic: %w", err)
		}
		apiErr := &llm.APIError{Provider: "anthropic", StatusCode: se.StatusCode, Type: string(se.Type()), Message: se.Message, RequestID: se.RequestID}
		if apiErr.StatusCode < 400 {
			apiErr.StatusCode = 0
		}
		if apiErr.Message == "" {
			apiErr.Message = truncate(se.RawJSON(), 300)
		}
		return events, nil, apiErr
	}
	if !acc.Stopped() {
		return events, nil, fmt.Errorf("anthropic: stream ended before message_stop: %w", io.ErrUnexpectedEOF)
	}
	resp := acc.Response()
	resp.Model, resp.ID = model, id
	return events, resp, nil
}
