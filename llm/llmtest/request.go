package llmtest

import (
	"encoding/json"
	"fmt"

	"github.com/reinsdev/reins/llm"
)

// ToolResults returns the tool results that the request sends back to the
// model, as llm tool_result blocks, whatever the wire format: for the
// Anthropic API the tool_result blocks of the last user message, for Chat
// Completions the role "tool" messages at the end of the conversation (which
// cannot carry is_error or images, so those stay unset).
func (r Request) ToolResults() ([]llm.Block, error) {
	if r.api == "openai" {
		return r.openAIToolResults()
	}
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := r.Decode(&req); err != nil {
		return nil, fmt.Errorf("decoding request: %w", err)
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role != "user" {
			continue
		}
		var blocks []wireBlock
		if json.Unmarshal(m.Content, &blocks) != nil {
			return nil, nil // string content: no tool results
		}
		var results []llm.Block
		for _, b := range blocks {
			if b.Type != "tool_result" {
				continue
			}
			content, err := b.resultContent()
			if err != nil {
				return nil, err
			}
			results = append(results, llm.ToolResult(b.ToolUseID, content, b.IsError))
		}
		return results, nil
	}
	return nil, nil
}

// wireBlock is an Anthropic content block as sent on the wire.
type wireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
	Source    struct {
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"source"`
}

func (b wireBlock) resultContent() ([]llm.Block, error) {
	if len(b.Content) == 0 {
		return nil, nil
	}
	var s string
	if json.Unmarshal(b.Content, &s) == nil {
		return []llm.Block{llm.Text(s)}, nil
	}
	var parts []wireBlock
	if err := json.Unmarshal(b.Content, &parts); err != nil {
		return nil, fmt.Errorf("tool_result %s: content: %w", b.ToolUseID, err)
	}
	var out []llm.Block
	for _, p := range parts {
		switch p.Type {
		case "text":
			out = append(out, llm.Text(p.Text))
		case "image":
			out = append(out, llm.Image(p.Source.MediaType, p.Source.Data))
		default:
			return nil, fmt.Errorf("tool_result %s: content block of type %q", b.ToolUseID, p.Type)
		}
	}
	return out, nil
}

func (r Request) openAIToolResults() ([]llm.Block, error) {
	var req struct {
		Messages []struct {
			Role       string          `json:"role"`
			ToolCallID string          `json:"tool_call_id"`
			Content    json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := r.Decode(&req); err != nil {
		return nil, fmt.Errorf("decoding request: %w", err)
	}
	end := len(req.Messages)
	// Images of tool results follow the tool messages in a user message.
	for end > 0 && req.Messages[end-1].Role == "user" {
		end--
	}
	start := end
	for start > 0 && req.Messages[start-1].Role == "tool" {
		start--
	}
	var results []llm.Block
	for _, m := range req.Messages[start:end] {
		var text string
		if err := json.Unmarshal(m.Content, &text); err != nil {
			var parts []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}
			if err := json.Unmarshal(m.Content, &parts); err != nil {
				return nil, fmt.Errorf("tool message %s: content: %w", m.ToolCallID, err)
			}
			for _, p := range parts {
				text += p.Text
			}
		}
		results = append(results, llm.ToolResult(m.ToolCallID, []llm.Block{llm.Text(text)}, false))
	}
	return results, nil
}
