package tui

import (
	"fmt"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
)

// tally is what the session's turns spent.
type tally struct {
	usage       llm.Usage
	costUSD     float64
	costUnknown bool
	turns       int
}

func (t *tally) add(res *agent.Result) {
	t.usage = t.usage.Add(res.Usage)
	t.costUSD += res.CostUSD
	t.costUnknown = t.costUnknown || !res.CostKnown
	t.turns += res.NumTurns
}

// report is /cost: the session's replies, tokens and estimated price.
func (t *tally) report() string {
	price := fmt.Sprintf("$%.4f", t.costUSD)
	if t.costUnknown {
		price += " (prices of some models are unknown)"
	}
	return fmt.Sprintf("Session: %d model replies · input %d · output %d · cache read %d · cache write %d tokens · %s",
		t.turns, t.usage.InputTokens, t.usage.OutputTokens, t.usage.CacheReadInputTokens, t.usage.CacheCreationInputTokens, price)
}
