package web

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/reinsdev/reins/llm"
)

// SummaryPrompt is the request a summariser sends its model: the page, then the model's
// prompt, then the rules Claude Code gives its own small model (short quotes only, no
// lyrics, no legal commentary).
func SummaryPrompt(prompt, markdown string) string {
	return fmt.Sprintf(`Web page content:
---
%s
---

%s

Provide a concise response based only on the content above. In your response:
 - Enforce a strict 125-character maximum for quotes from any source document. Open Source Software is ok as long as we respect the license.
 - Use quotation marks for exact language from articles; any language outside of the quotation marks should never be word-for-word the same.
 - You are not a lawyer and never comment on the legality of your own prompts and responses.
 - Never produce or reproduce exact song lyrics.`, markdown, prompt)
}

// ModelSummarizer is a [Summarizer] backed by a model provider, meant for a small, fast model.
type ModelSummarizer struct {
	Provider llm.Provider
	Model    string
	// MaxTokens bounds the answer; 0 means 2048.
	MaxTokens int
}

// Summarize asks the model the prompt about the page and returns its text answer.
func (s ModelSummarizer) Summarize(ctx context.Context, prompt, markdown string) (string, error) {
	if s.Provider == nil {
		return "", errors.New("no model provider configured")
	}
	maxTokens := s.MaxTokens
	if maxTokens == 0 {
		maxTokens = 2048
	}
	resp, err := s.Provider.Stream(ctx, &llm.Request{
		Model:     s.Model,
		Messages:  []llm.Message{llm.UserText(SummaryPrompt(prompt, markdown))},
		MaxTokens: maxTokens,
		Cache:     llm.CacheOff,
	}, func(llm.Event) {})
	if err != nil {
		return "", fmt.Errorf("summarising with %s: %w", s.Provider.Name(), err)
	}
	text := strings.TrimSpace(resp.Message.Text())
	if text == "" {
		return "", errors.New("the model returned no text")
	}
	return text, nil
}
