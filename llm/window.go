package llm

import (
	"errors"
	"net/http"
	"strings"
)

// DefaultContextWindow is the window assumed for a model the table does not know: the
// smallest window of the models people run Reins with, so that an unknown model compacts
// early rather than fails at its limit.
const DefaultContextWindow = 128_000

// contextWindows maps a model name prefix to its context window in tokens. The longest
// matching prefix wins. Knowledge is data: a new model is a row here (and in the test).
var contextWindows = []struct {
	prefix string
	tokens int
}{
	{"claude-", 200_000},
	{"claude-sonnet-4", 200_000},
	{"claude-opus-4", 200_000},
	{"claude-haiku-4", 200_000},
	{"gpt-4o", 128_000},
	{"gpt-4.1", 1_047_576},
	{"gpt-5", 400_000},
	{"o1", 200_000},
	{"o3", 200_000},
	{"o4-mini", 200_000},
	{"qwen3-coder", 262_144},
	{"deepseek-", 128_000},
	{"llama3", 128_000},
	{"mistral", 32_000},
	{"gemma3", 128_000},
}

// ContextWindow returns the context window of model in tokens: the table's longest matching
// prefix (case-insensitive), one million for a name marked "[1m]" as Claude Code marks the
// long-context variants, else [DefaultContextWindow].
func ContextWindow(model string) int {
	m := strings.ToLower(strings.TrimSpace(model))
	if strings.HasSuffix(m, "[1m]") {
		return 1_000_000
	}
	// A provider prefix ("anthropic/claude-…", "openai/gpt-4o") does not change the model.
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	best, tokens := -1, DefaultContextWindow
	for _, w := range contextWindows {
		if strings.HasPrefix(m, w.prefix) && len(w.prefix) > best {
			best, tokens = len(w.prefix), w.tokens
		}
	}
	return tokens
}

// IsPromptTooLong reports whether err is the API refusing a request because its prompt does
// not fit the model's context window: Anthropic's 400 invalid_request_error "prompt is too
// long: N tokens > M maximum", an OpenAI-compatible server's context_length_exceeded
// ("maximum context length"), or llama.cpp's exceed_context_size_error.
func IsPromptTooLong(err error) bool {
	apiErr, ok := errors.AsType[*APIError](err)
	if !ok || (apiErr.StatusCode != http.StatusBadRequest && apiErr.StatusCode != 0 && apiErr.StatusCode != http.StatusRequestEntityTooLarge) {
		return false
	}
	msg := strings.ToLower(apiErr.Message)
	return strings.Contains(msg, "prompt is too long") ||
		strings.Contains(msg, "context_length_exceeded") || apiErr.Type == "context_length_exceeded" ||
		strings.Contains(msg, "maximum context length") ||
		apiErr.Type == "exceed_context_size_error" || strings.Contains(msg, "exceeds the available context size")
}

// EstimateTokens is a local estimate of the tokens of text, for what no response has
// measured yet: about four characters a token, rounded up, as Claude Code estimates.
func EstimateTokens(text string) int { return (len(text) + 3) / 4 }

// EstimateMessageTokens estimates the tokens messages add to a request: their text, tool
// inputs and results, and a small overhead per block.
func EstimateMessageTokens(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		for _, b := range m.Content {
			n += 4 + blockTokens(b)
		}
	}
	return n
}

func blockTokens(b Block) int {
	n := EstimateTokens(b.Text) + EstimateTokens(string(b.Input)) + EstimateTokens(b.Name)
	for _, c := range b.Content {
		n += blockTokens(c)
	}
	if b.Type == BlockImage {
		// An image costs about what Anthropic's formula gives a large picture, not its
		// base64 length.
		n += 1600 - EstimateTokens(b.Data)
	}
	n += EstimateTokens(b.Data)
	return n
}
