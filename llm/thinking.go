package llm

import "fmt"

// MinThinkingBudget is the smallest thinking budget the Messages API accepts.
const MinThinkingBudget = 1024

// CheckThinking reports a request whose extended thinking the API would refuse, in words a
// person can act on: a budget under [MinThinkingBudget], a budget not below MaxTokens (the
// reasoning counts towards the reply's tokens; named with the model's output limit when that
// is what bounds MaxTokens), or a temperature other than 1 (the API takes none with thinking
// on). A request without thinking passes.
func (r *Request) CheckThinking() error {
	if r.ThinkingBudget == 0 {
		return nil
	}
	if r.ThinkingBudget < MinThinkingBudget {
		return fmt.Errorf("thinking budget %d is below the minimum of %d tokens", r.ThinkingBudget, MinThinkingBudget)
	}
	limit, model := MaxOutputTokens(r.Model), r.Model
	if model == "" {
		model = "the model"
	}
	switch {
	case r.ThinkingBudget >= r.MaxTokens && r.MaxTokens >= limit:
		return fmt.Errorf("thinking budget %d is more than %s takes: a reply of at most %d output tokens, thinking included, so the budget must be below %d", r.ThinkingBudget, model, limit, limit)
	case r.ThinkingBudget >= r.MaxTokens:
		return fmt.Errorf("thinking budget %d must be less than max tokens %d (thinking counts towards the reply)", r.ThinkingBudget, r.MaxTokens)
	}
	if r.Temperature != nil && *r.Temperature != 1 {
		return fmt.Errorf("temperature %g cannot be set with extended thinking (only 1 is allowed)", *r.Temperature)
	}
	return nil
}

// CheckThinkingLimit is CheckThinking for a budget a person configures (--max-thinking-tokens,
// MAX_THINKING_TOKENS, the SDK's set_max_thinking_tokens): the reply's max tokens must also be
// within what the model takes ([MaxOutputTokens]), since a bound no model takes (a budget of
// 10^12) would make every request of the session fail. It is not a check of every request:
// the table may not know a new model's limit, and the API names its own.
func (r *Request) CheckThinkingLimit() error {
	if err := r.CheckThinking(); err != nil || r.ThinkingBudget == 0 {
		return err
	}
	if limit := MaxOutputTokens(r.Model); r.MaxTokens > limit {
		model := r.Model
		if model == "" {
			model = "the model"
		}
		return fmt.Errorf("thinking budget %d needs max tokens of %d, over the %d output tokens of %s: the budget must be below %d", r.ThinkingBudget, r.MaxTokens, limit, model, limit)
	}
	return nil
}
