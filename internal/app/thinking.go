package app

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/settings"
)

// DefaultThinkingBudget is the thinking budget of a session that turns thinking on without
// a number (alwaysThinkingEnabled): Claude Code's largest, which its "ultrathink" asks for.
const DefaultThinkingBudget = 31999

// thinkingBudget is the session's thinking budget, 0 for none. The first that says anything
// wins: the --max-thinking-tokens flag (the Agent SDK's maxThinkingTokens), the
// MAX_THINKING_TOKENS variable, the alwaysThinkingEnabled setting. 0 from the flag or the
// variable turns thinking off. A value that is not a whole number, or that the API would
// refuse with the session's max tokens and model (below 1024, not below max tokens, more
// than the model's output), is a UsageError naming where it came from, the value and the
// limit.
func thinkingBudget(flag *int, getenv func(string) string, s *settings.Loaded, model string, maxTokens int) (int, error) {
	budget, from := 0, ""
	switch env := strings.TrimSpace(getenv("MAX_THINKING_TOKENS")); {
	case flag != nil:
		budget, from = *flag, "--max-thinking-tokens"
	case env != "":
		n, err := strconv.Atoi(env)
		if err != nil {
			return 0, &UsageError{Err: fmt.Errorf("MAX_THINKING_TOKENS=%q is not a whole number of tokens", env)}
		}
		budget, from = n, "MAX_THINKING_TOKENS"
	default:
		if on := s.AlwaysThinking(); on != nil && *on {
			budget, from = DefaultThinkingBudget, "alwaysThinkingEnabled"
		}
	}
	if budget == 0 {
		return 0, nil
	}
	req := llm.Request{Model: model, ThinkingBudget: budget, MaxTokens: (&agent.Agent{Model: model, MaxTokens: maxTokens, ThinkingBudget: budget}).ReplyBound()}
	if err := req.CheckThinkingLimit(); err != nil {
		return 0, &UsageError{Err: fmt.Errorf("%s: %w", from, err)}
	}
	return budget, nil
}
