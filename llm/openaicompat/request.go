package openaicompat

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/reinsdev/reins/llm"
)

// chatRequest is the body of POST /chat/completions.
type chatRequest struct {
	Model               string         `json:"model"`
	Messages            []chatMessage  `json:"messages"`
	Tools               []chatTool     `json:"tools,omitempty"`
	Stream              bool           `json:"stream"`
	StreamOptions       *streamOptions `json:"stream_options,omitempty"`
	MaxTokens           int            `json:"max_tokens,omitempty"`
	MaxCompletionTokens int            `json:"max_completion_tokens,omitempty"`
	Temperature         *float64       `json:"temperature,omitempty"`
	Stop                []string       `json:"stop,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// chatMessage is a request message. Content is a string or a []contentPart.
type chatMessage struct {
	Role       string         `json:"role"`
	Content    any            `json:"content"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type contentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function functionCall `json:"function"`
}

type functionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chatTool struct {
	Type     string       `json:"type"`
	Function toolFunction `json:"function"`
}

type toolFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

func (p *Provider) encodeRequest(req *llm.Request) ([]byte, error) {
	if req.MaxTokens <= 0 {
		return nil, fmt.Errorf("max tokens must be positive, got %d", req.MaxTokens)
	}
	msgs, err := convertMessages(req.System, req.Messages)
	if err != nil {
		return nil, err
	}
	cr := chatRequest{
		Model:         req.Model,
		Messages:      msgs,
		Stream:        true,
		StreamOptions: &streamOptions{IncludeUsage: true},
		Temperature:   req.Temperature,
		Stop:          req.StopSequences,
	}
	if p.maxTokensParam == "max_completion_tokens" {
		cr.MaxCompletionTokens = req.MaxTokens
	} else {
		cr.MaxTokens = req.MaxTokens
	}
	for _, t := range req.Tools {
		schema := t.InputSchema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		cr.Tools = append(cr.Tools, chatTool{Type: "function", Function: toolFunction{
			Name: t.Name, Description: t.Description, Parameters: schema,
		}})
	}
	data, err := json.Marshal(cr)
	if err != nil {
		return nil, fmt.Errorf("encoding request: %w", err)
	}
	return data, nil
}

// convertMessages translates the system prompt and conversation into Chat
// Completions messages.
func convertMessages(system []llm.SystemBlock, msgs []llm.Message) ([]chatMessage, error) {
	var out []chatMessage
	var sys []string
	for _, b := range system {
		if b.Text != "" {
			sys = append(sys, b.Text)
		}
	}
	if len(sys) > 0 {
		// One system message: several confuse some local servers' chat
		// templates.
		out = append(out, chatMessage{Role: "system", Content: strings.Join(sys, "\n\n")})
	}
	for i, m := range msgs {
		var err error
		switch m.Role {
		case llm.RoleUser:
			out, err = appendUser(out, m.Content)
		case llm.RoleAssistant:
			out, err = appendAssistant(out, m.Content)
		default:
			err = fmt.Errorf("unknown role %q", m.Role)
		}
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
	}
	return out, nil
}

// appendUser adds a user message: its tool results first, as tool messages
// (they must directly follow the assistant's tool_calls), then the rest,
// with any images from tool results, as one user message.
func appendUser(out []chatMessage, blocks []llm.Block) ([]chatMessage, error) {
	var parts []contentPart
	var resultImages []contentPart
	for _, b := range blocks {
		switch b.Type {
		case llm.BlockText:
			if b.Text != "" {
				parts = append(parts, contentPart{Type: "text", Text: b.Text})
			}
		case llm.BlockImage:
			parts = append(parts, imagePart(b))
		case llm.BlockToolResult:
			var text []string
			for _, c := range b.Content {
				switch c.Type {
				case llm.BlockText:
					text = append(text, c.Text)
				case llm.BlockImage:
					resultImages = append(resultImages, imagePart(c))
				default:
					return nil, fmt.Errorf("tool_result %s: unsupported content block %q", b.ToolUseID, c.Type)
				}
			}
			out = append(out, chatMessage{Role: "tool", ToolCallID: b.ToolUseID, Content: strings.Join(text, "\n")})
		default:
			return nil, fmt.Errorf("unsupported block type %q in user message", b.Type)
		}
	}
	parts = append(resultImages, parts...)
	if len(parts) == 0 {
		return out, nil
	}
	if allText(parts) {
		// Plain string content is what every server understands.
		var text []string
		for _, p := range parts {
			text = append(text, p.Text)
		}
		return append(out, chatMessage{Role: "user", Content: strings.Join(text, "\n")}), nil
	}
	return append(out, chatMessage{Role: "user", Content: parts}), nil
}

func appendAssistant(out []chatMessage, blocks []llm.Block) ([]chatMessage, error) {
	m := chatMessage{Role: "assistant"}
	var text []string
	for _, b := range blocks {
		switch b.Type {
		case llm.BlockText:
			if b.Text != "" {
				text = append(text, b.Text)
			}
		case llm.BlockToolUse:
			args := string(b.Input)
			if args == "" {
				args = "{}"
			}
			m.ToolCalls = append(m.ToolCalls, chatToolCall{ID: b.ID, Type: "function", Function: functionCall{Name: b.Name, Arguments: args}})
		case llm.BlockThinking, llm.BlockRedactedThinking:
			// Reasoning is not sent back: DeepSeek refuses a request whose messages carry
			// reasoning_content, and the other servers ignore it. A thinking block that came
			// from Anthropic (a session resumed on another provider) is dropped the same way.
		default:
			return nil, fmt.Errorf("unsupported block type %q in assistant message", b.Type)
		}
	}
	// Content is a string even when empty: some chat templates fail on null.
	m.Content = strings.Join(text, "")
	return append(out, m), nil
}

func imagePart(b llm.Block) contentPart {
	return contentPart{Type: "image_url", ImageURL: &imageURL{URL: "data:" + b.MediaType + ";base64," + b.Data}}
}

func allText(parts []contentPart) bool {
	for _, p := range parts {
		if p.Type != "text" {
			return false
		}
	}
	return true
}
