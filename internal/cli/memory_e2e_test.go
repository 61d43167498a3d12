package cli

import (
	"testing"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
)

// requestText is a request's system prompt and the text of its messages.
func requestText(t *testing.T, r llmtest.Request) (system, messages string) {
	t.Helper()
	var body struct {
		Messages []llm.Message `json:"messages"`
		System   []struct {
			Text string `json:"text"`
		} `json:"system"`
	}
	if err := r.Decode(&body); err != nil {
		t.Fatal(err)
	}
	for _, s := range body.System {
		system += s.Text + "\n"
	}
	for _, m := range body.Messages {
		for _, c := range m.Content {
			messages += c.Text + "\n"
		}
	}
	return system, messages
}
