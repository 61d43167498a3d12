package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// The Messages API takes back the thinking blocks of a tool loop: a request that continues
// after a tool_use whose assistant turn began with thinking must carry those blocks again,
// unchanged and in order, or it is refused with 400. The fake keeps what it sent and holds
// every request to it, so that a test against it proves the client's round trip.

// sentThinking is the thinking blocks the fake streamed before the tool calls of one turn.
type sentThinking struct {
	blocks []reasonBlock
}

// reasonBlock is a content block of a request, as far as the check needs it.
type reasonBlock struct {
	Type      string `json:"type"`
	Thinking  string `json:"thinking,omitempty"`
	Signature string `json:"signature,omitempty"`
	Data      string `json:"data,omitempty"`
	ID        string `json:"id,omitempty"`
}

// thinkingBlocks is what turn n streams as reasoning: its Thinking as one signed block (the
// signature defaults to one naming the turn), then its RedactedThinking.
func (t Turn) thinkingBlocks(n int) []reasonBlock {
	var out []reasonBlock
	if len(t.Thinking) > 0 {
		sig := t.Signature
		if sig == "" {
			sig = fmt.Sprintf("sig_llmtest_%d", n)
		}
		var text string
		for _, d := range t.Thinking {
			text += d
		}
		out = append(out, reasonBlock{Type: "thinking", Thinking: text, Signature: sig})
	}
	if t.RedactedThinking != "" {
		out = append(out, reasonBlock{Type: "redacted_thinking", Data: t.RedactedThinking})
	}
	return out
}

// rememberThinking notes the thinking blocks sent before the tool calls with ids, under s.mu.
func (s *Server) rememberThinking(blocks []reasonBlock, ids []string) {
	if len(blocks) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.thinking == nil {
		s.thinking = map[string]sentThinking{}
	}
	for _, id := range ids {
		s.thinking[id] = sentThinking{blocks: blocks}
	}
}

// checkThinking returns the API's refusal of a request body whose assistant message with a
// tool_use the fake answered after thinking does not start with that thinking, unchanged;
// "" when it does, or when the request holds no such message. A turn that thinks also needs
// thinking enabled in the request, as the API streams no thinking otherwise.
func (s *Server) checkThinking(body []byte, turn Turn) string {
	var req struct {
		Thinking *struct {
			Type         string `json:"type"`
			BudgetTokens int    `json:"budget_tokens"`
		} `json:"thinking"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return "invalid JSON body: " + err.Error()
	}
	if (len(turn.Thinking) > 0 || turn.RedactedThinking != "") && (req.Thinking == nil || req.Thinking.Type != "enabled") {
		return "llmtest: this turn thinks, but the request does not enable thinking"
	}
	s.mu.Lock()
	sent := s.thinking
	s.mu.Unlock()
	for i, m := range req.Messages {
		var content []reasonBlock
		if m.Role != "assistant" || json.Unmarshal(m.Content, &content) != nil {
			continue
		}
		for _, b := range content {
			want, ok := sent[b.ID]
			if b.Type != "tool_use" || !ok {
				continue
			}
			if len(content) < len(want.blocks) {
				return fmt.Sprintf("messages.%d.content: Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final `assistant` message must start with a thinking block", i, content[0].Type)
			}
			for j, w := range want.blocks {
				if content[j] != w {
					return fmt.Sprintf("messages.%d.content.%d: Invalid `signature` in `thinking` block (the block was changed or is missing)", i, j)
				}
			}
			break
		}
	}
	return ""
}

// thinkingError answers a request that lost its thinking as the API does.
func thinkingError(w http.ResponseWriter, message string, n int) {
	anthropicError(w, http.StatusBadRequest, "invalid_request_error", message, "", n)
}
