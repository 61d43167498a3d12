package agent

import (
	"strings"

	"github.com/reinsdev/reins/llm"
)

// price is a model's list price in US dollars per million tokens. Cache writes cost 1.25× the
// input price and cache reads 0.1× (Anthropic's five-minute cache).
type price struct {
	prefix        string
	input, output float64
}

// prices are Anthropic's published list prices; the first matching prefix wins, so longer
// prefixes come first. Models not listed (OpenAI-compatible servers, local models) have no
// known cost.
var prices = []price{
	{"claude-opus-4-5", 5, 25},
	{"claude-opus-4-6", 5, 25},
	{"claude-opus-4", 15, 75},
	{"claude-3-opus", 15, 75},
	{"claude-sonnet-4", 3, 15},
	{"claude-3-7-sonnet", 3, 15},
	{"claude-3-5-sonnet", 3, 15},
	{"claude-haiku-4", 1, 5},
	{"claude-3-5-haiku", 0.8, 4},
	{"claude-3-haiku", 0.25, 1.25},
}

// EstimateCost is the list-price cost of usage on model, and whether the price is known.
func EstimateCost(model string, u llm.Usage) (float64, bool) {
	for _, p := range prices {
		if strings.HasPrefix(model, p.prefix) {
			in := float64(u.InputTokens) + 1.25*float64(u.CacheCreationInputTokens) + 0.1*float64(u.CacheReadInputTokens)
			return (in*p.input + float64(u.OutputTokens)*p.output) / 1e6, true
		}
	}
	return 0, false
}
