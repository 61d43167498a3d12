package llm

import "strings"

// DefaultMaxOutputTokens is the reply bound assumed for a model the table does not know: the
// largest any model in use offers, so that only a bound no model could take is refused.
const DefaultMaxOutputTokens = 128_000

// maxOutputTokens maps a model name prefix to the most output tokens (max_tokens) its API
// takes, thinking included. The longest matching prefix wins. Knowledge is data: a new model
// is a row here (and in the test).
var maxOutputTokens = []struct {
	prefix string
	tokens int
}{
	{"claude-", 64_000},
	{"claude-opus-4", 32_000},
	{"claude-opus-4-5", 64_000},
	{"claude-sonnet-4", 64_000},
	{"claude-haiku-4", 64_000},
	{"claude-3-7-sonnet", 64_000},
	{"claude-3-5-", 8_192},
	{"claude-3-opus", 4_096},
	{"claude-3-haiku", 4_096},
}

// MaxOutputTokens returns the most output tokens model's API takes in one reply: the table's
// longest matching prefix (case-insensitive; a provider's prefix such as Bedrock's
// "us.anthropic." does not change the model), else [DefaultMaxOutputTokens].
func MaxOutputTokens(model string) int {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.Index(m, "claude-"); i > 0 {
		m = m[i:]
	}
	best, tokens := -1, DefaultMaxOutputTokens
	for _, w := range maxOutputTokens {
		if strings.HasPrefix(m, w.prefix) && len(w.prefix) > best {
			best, tokens = len(w.prefix), w.tokens
		}
	}
	return tokens
}
