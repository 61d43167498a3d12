package llm

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Role is the author of a [Message].
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Message is one entry of a conversation. Tool results travel in user
// messages, as in the Anthropic Messages API; adapters for other APIs
// translate.
type Message struct {
	Role    Role    `json:"role"`
	Content []Block `json:"content"`
}

// UserText returns a user message holding the single text block s.
func UserText(s string) Message {
	return Message{Role: RoleUser, Content: []Block{Text(s)}}
}

// Text returns the concatenation of the message's text blocks.
func (m Message) Text() string {
	var b strings.Builder
	for _, c := range m.Content {
		if c.Type == BlockText {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// ToolUses returns the message's tool_use blocks, in order.
func (m Message) ToolUses() []Block {
	var uses []Block
	for _, c := range m.Content {
		if c.Type == BlockToolUse {
			uses = append(uses, c)
		}
	}
	return uses
}

// BlockType names the kind of a [Block]; the values are the Anthropic wire
// names.
type BlockType string

const (
	BlockText       BlockType = "text"
	BlockToolUse    BlockType = "tool_use"
	BlockToolResult BlockType = "tool_result"
	BlockImage      BlockType = "image"
	// BlockThinking is the model's reasoning before it answers. Anthropic signs it
	// (Signature), and a conversation must send it back unchanged, signature and all, in
	// the assistant message it came in; a tool loop whose last assistant turn lost it is
	// rejected. Other providers' reasoning comes without a signature.
	BlockThinking BlockType = "thinking"
	// BlockRedactedThinking is reasoning the API encrypted (Data); it is opaque and goes
	// back unchanged like a thinking block.
	BlockRedactedThinking BlockType = "redacted_thinking"
)

// Block is one piece of message content. It is a tagged union: Type says
// which of the field groups below is meaningful, and the others stay zero so
// that they drop out of the JSON form. Use the constructors [Text],
// [ToolUse], [ToolResult] and [Image] rather than filling fields by hand.
type Block struct {
	Type BlockType `json:"type"`

	// BlockText.
	Text string `json:"text,omitempty"`

	// BlockToolUse. Input is a JSON object.
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`

	// BlockToolResult. Content holds text and image blocks only.
	ToolUseID string  `json:"tool_use_id,omitempty"`
	Content   []Block `json:"content,omitempty"`
	IsError   bool    `json:"is_error,omitempty"`

	// BlockImage. Data is base64-encoded (standard encoding, with padding).
	// BlockRedactedThinking: Data is the API's opaque text, kept byte for byte.
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`

	// BlockThinking. Signature is the provider's proof that Thinking is the model's own,
	// empty when the provider signs nothing.
	Thinking  string `json:"thinking,omitempty"`
	Signature string `json:"signature,omitempty"`
}

// Text returns a text block.
func Text(s string) Block { return Block{Type: BlockText, Text: s} }

// ToolUse returns a tool_use block. A nil or empty input becomes {}.
func ToolUse(id, name string, input json.RawMessage) Block {
	if len(input) == 0 {
		input = json.RawMessage(`{}`)
	}
	return Block{Type: BlockToolUse, ID: id, Name: name, Input: input}
}

// ToolResult returns a tool_result block answering the tool_use block with
// ID toolUseID. content should hold only text and image blocks.
func ToolResult(toolUseID string, content []Block, isError bool) Block {
	return Block{Type: BlockToolResult, ToolUseID: toolUseID, Content: content, IsError: isError}
}

// Image returns an image block; data is base64-encoded.
func Image(mediaType, data string) Block {
	return Block{Type: BlockImage, MediaType: mediaType, Data: data}
}

// Thinking returns a thinking block.
func Thinking(text, signature string) Block {
	return Block{Type: BlockThinking, Thinking: text, Signature: signature}
}

// RedactedThinking returns a redacted_thinking block holding the API's opaque data.
func RedactedThinking(data string) Block { return Block{Type: BlockRedactedThinking, Data: data} }

// IsThinking reports whether b is reasoning (a thinking or a redacted_thinking block).
func (b Block) IsThinking() bool { return b.Type == BlockThinking || b.Type == BlockRedactedThinking }

// Validate reports the first structural problem of b: an unknown type, a
// tool_use without ID, name or object input, a tool_result without
// tool_use_id or with content other than text and images, an image
// without media type or data, or a redacted_thinking block without data.
func (b Block) Validate() error {
	switch b.Type {
	case BlockText:
		return nil
	case BlockToolUse:
		if b.ID == "" || b.Name == "" {
			return fmt.Errorf("tool_use block needs id and name")
		}
		if !isJSONObject(b.Input) {
			return fmt.Errorf("tool_use block %s: input is not a JSON object", b.ID)
		}
		return nil
	case BlockToolResult:
		if b.ToolUseID == "" {
			return fmt.Errorf("tool_result block needs tool_use_id")
		}
		for _, c := range b.Content {
			if c.Type != BlockText && c.Type != BlockImage {
				return fmt.Errorf("tool_result block %s: content of type %q", b.ToolUseID, c.Type)
			}
			if err := c.Validate(); err != nil {
				return fmt.Errorf("tool_result block %s: %w", b.ToolUseID, err)
			}
		}
		return nil
	case BlockImage:
		if b.MediaType == "" || b.Data == "" {
			return fmt.Errorf("image block needs media_type and data")
		}
		return nil
	case BlockThinking:
		return nil
	case BlockRedactedThinking:
		if b.Data == "" {
			return fmt.Errorf("redacted_thinking block needs data")
		}
		return nil
	}
	return fmt.Errorf("unknown block type %q", b.Type)
}

// isJSONObject reports whether raw is a JSON object, ignoring surrounding
// white space.
func isJSONObject(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return len(s) >= 2 && s[0] == '{' && json.Valid([]byte(s))
}
