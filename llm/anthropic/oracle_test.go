package anthropic

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/internal/sse"
)

// convertBlocks is the adapter's former translation of content blocks into the SDK's
// params, kept as the oracle the hand-written encoder is compared with.
func convertBlocks(role llm.Role, blocks []llm.Block) ([]sdk.ContentBlockParamUnion, error) {
	out := make([]sdk.ContentBlockParamUnion, 0, len(blocks))
	for _, b := range blocks {
		if b.IsThinking() && role != llm.RoleAssistant {
			return nil, fmt.Errorf("%s block in a %s message", b.Type, role)
		}
		switch b.Type {
		case llm.BlockThinking:
			out = append(out, sdk.NewThinkingBlock(b.Signature, b.Thinking))
		case llm.BlockRedactedThinking:
			out = append(out, sdk.NewRedactedThinkingBlock(b.Data))
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

// sdkDecode is the oracle decodeStream is compared with. It shares no block logic with
// decodeStream: the SDK's ssestream decoder reads the events, the SDK's own
// Message.Accumulate assembles the message, and our events and response are read off
// that message. A block of ours is a tool_use, thinking or redacted_thinking block or a
// text block that has text, and
// its index is the number of such blocks before it in the SDK's message; this holds
// because the API streams blocks one after another, which streamGen does too.
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
		msg     sdk.Message
		events  []llm.Event // Index is the SDK's block index until the end
		inputs  = map[int]string{}
		stopped bool
		err     error
	)
	for err == nil && stream.Next() {
		ev := stream.Current()
		if ev.Type == "content_block_stop" {
			continue // carries nothing; the adapter does not look at it
		}
		if err = msg.Accumulate(ev); err != nil {
			err = fmt.Errorf("anthropic: malformed stream: %w", err)
			break
		}
		i := int(ev.Index)
		switch ev.Type {
		case "content_block_start":
			switch cb := ev.ContentBlock; cb.Type {
			case "text":
				if cb.Text != "" {
					events = append(events, llm.Event{Type: llm.EventTextDelta, Index: i, Text: cb.Text})
				}
			case "tool_use":
				events = append(events, llm.Event{Type: llm.EventToolUseStart, Index: i, ToolUseID: cb.ID, ToolName: cb.Name})
			case "thinking":
				events = append(events, llm.Event{Type: llm.EventThinkingDelta, Index: i, Text: cb.Thinking})
				if cb.Signature != "" {
					events = append(events, llm.Event{Type: llm.EventSignatureDelta, Index: i, Signature: cb.Signature})
				}
			case "redacted_thinking":
				events = append(events, llm.Event{Type: llm.EventRedactedThinking, Index: i, Data: cb.Data})
			}
		case "content_block_delta":
			switch d, kind := ev.Delta, msg.Content[i].Type; {
			case d.Type == "text_delta" && kind == "text" && d.Text != "":
				events = append(events, llm.Event{Type: llm.EventTextDelta, Index: i, Text: d.Text})
			case d.Type == "input_json_delta" && kind == "tool_use" && d.PartialJSON != "":
				events = append(events, llm.Event{Type: llm.EventToolInputDelta, Index: i, PartialJSON: d.PartialJSON})
				// Accumulate takes a delta that follows an input of exactly {} as the
				// whole input; the adapter appends every delta.
				inputs[i] += d.PartialJSON
			case d.Type == "thinking_delta" && kind == "thinking" && d.Thinking != "":
				events = append(events, llm.Event{Type: llm.EventThinkingDelta, Index: i, Text: d.Thinking})
			case d.Type == "signature_delta" && kind == "thinking" && d.Signature != "":
				events = append(events, llm.Event{Type: llm.EventSignatureDelta, Index: i, Signature: d.Signature})
			}
		case "message_start":
			events = append(events, llm.Event{Type: llm.EventMessageStart, MessageID: msg.ID, Model: string(msg.Model), Usage: sdkUsage(msg.Usage)})
		case "message_stop":
			stopped = true
			events = append(events, llm.Event{Type: llm.EventMessageStop, StopReason: llm.StopReason(msg.StopReason), Usage: sdkUsage(msg.Usage)})
		}
	}
	ours := make([]int, len(msg.Content)) // our index of each SDK block
	content := make([]llm.Block, 0, len(msg.Content))
	for i, b := range msg.Content {
		ours[i] = len(content)
		switch {
		case b.Type == "text" && b.Text != "":
			content = append(content, llm.Text(b.Text))
		case b.Type == "thinking":
			content = append(content, llm.Thinking(b.Thinking, b.Signature))
		case b.Type == "redacted_thinking":
			content = append(content, llm.RedactedThinking(b.Data))
		case b.Type == "tool_use":
			input := json.RawMessage(inputs[i])
			if s := strings.TrimSpace(inputs[i]); !strings.HasPrefix(s, "{") || !json.Valid([]byte(s)) {
				input = json.RawMessage(`{}`)
			}
			content = append(content, llm.ToolUse(b.ID, b.Name, input))
		}
	}
	for k := range events {
		if events[k].Type != llm.EventMessageStop && events[k].Type != llm.EventMessageStart {
			events[k].Index = ours[events[k].Index]
		}
	}
	if err == nil {
		err = stream.Err()
	}
	if err != nil {
		var se *sdk.Error
		if !errors.As(err, &se) {
			return events, nil, fmt.Errorf("anthropic: %w", err)
		}
		apiErr := &llm.APIError{Provider: "anthropic", StatusCode: se.StatusCode, Type: string(se.Type()), Message: se.Message, RequestID: se.RequestID}
		if apiErr.StatusCode < 400 {
			apiErr.StatusCode = 0
		}
		if apiErr.Message == "" {
			apiErr.Message = sse.Truncate(se.RawJSON(), 300)
		}
		return events, nil, apiErr
	}
	if !stopped {
		return events, nil, fmt.Errorf("anthropic: stream ended before message_stop: %w", io.ErrUnexpectedEOF)
	}
	return events, &llm.Response{
		Message:    llm.Message{Role: llm.RoleAssistant, Content: content},
		StopReason: llm.StopReason(msg.StopReason),
		Usage:      sdkUsage(msg.Usage),
		Model:      string(msg.Model),
		ID:         msg.ID,
	}, nil
}

func sdkUsage(u sdk.Usage) llm.Usage {
	return llm.Usage{
		InputTokens:              int(u.InputTokens),
		OutputTokens:             int(u.OutputTokens),
		CacheReadInputTokens:     int(u.CacheReadInputTokens),
		CacheCreationInputTokens: int(u.CacheCreationInputTokens),
	}
}
