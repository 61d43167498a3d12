package llm

import (
	"fmt"
	"net/http"
	"testing"
)

func TestContextWindow(t *testing.T) {
	for _, tc := range []struct {
		model string
		want  int
	}{
		{"claude-sonnet-4-5", 200_000},
		{"claude-sonnet-4-5-20250929", 200_000},
		{"claude-opus-4-1", 200_000},
		{"claude-haiku-4-5", 200_000},
		{"claude-3-5-haiku-latest", 200_000},
		{"claude-sonnet-4-5[1m]", 1_000_000},
		{"Claude-Sonnet-4-5[1M]", 1_000_000},
		{"gpt-4o-mini", 128_000},
		{"gpt-4.1", 1_047_576},
		{"gpt-5-codex", 400_000},
		{"o3-mini", 200_000},
		{"openai/gpt-4o", 128_000},
		{"qwen3-coder:30b", 262_144},
		{"mistral:7b", 32_000},
		{"some-local-model", DefaultContextWindow},
		{"", DefaultContextWindow},
	} {
		if got := ContextWindow(tc.model); got != tc.want {
			t.Errorf("ContextWindow(%q) = %d, want %d", tc.model, got, tc.want)
		}
	}
}

func TestIsPromptTooLong(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&APIError{StatusCode: 400, Type: "invalid_request_error", Message: "prompt is too long: 210345 tokens > 200000 maximum"}, true},
		{fmt.Errorf("calling the model: %w", &APIError{StatusCode: 400, Message: "Prompt is too long"}), true},
		{&APIError{StatusCode: 400, Type: "invalid_request_error", Message: "This model's maximum context length is 128000 tokens"}, true},
		{&APIError{StatusCode: 400, Type: "context_length_exceeded"}, true},
		{&APIError{StatusCode: 400, Type: "exceed_context_size_error", Message: "the request exceeds the available context size, try increasing it"}, true},
		{&APIError{StatusCode: 400, Type: "invalid_request_error", Message: "max_tokens: must be positive"}, false},
		{&APIError{StatusCode: http.StatusTooManyRequests, Message: "prompt is too long"}, false},
		{fmt.Errorf("prompt is too long"), false},
		{nil, false},
	} {
		if got := IsPromptTooLong(tc.err); got != tc.want {
			t.Errorf("IsPromptTooLong(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestEstimateMessageTokens(t *testing.T) {
	small := EstimateMessageTokens([]Message{UserText("hi")})
	big := EstimateMessageTokens([]Message{UserText(string(make([]byte, 4000)))})
	if small <= 0 || big < 1000 || big > 1010 {
		t.Errorf("estimates %d (2 chars) and %d (4000 chars), want positive and about 1000", small, big)
	}
	img := EstimateMessageTokens([]Message{{Role: RoleUser, Content: []Block{Image("image/png", string(make([]byte, 400000)))}}})
	if img > 2000 {
		t.Errorf("an image estimates %d tokens, want its picture cost, not its base64 length", img)
	}
}

func TestMaxOutputTokens(t *testing.T) {
	for _, tc := range []struct {
		model string
		want  int
	}{
		{"claude-sonnet-4-5", 64_000},
		{"claude-sonnet-4-5-20250929", 64_000},
		{"claude-opus-4-1-20250805", 32_000},
		{"claude-opus-4-20250514", 32_000},
		{"claude-opus-4-5", 64_000},
		{"claude-haiku-4-5", 64_000},
		{"claude-3-7-sonnet-latest", 64_000},
		{"claude-3-5-haiku-20241022", 8_192},
		{"claude-3-haiku-20240307", 4_096},
		{"us.anthropic.claude-opus-4-1-20250805-v1:0", 32_000},
		{"claude-opus-4-1@20250805", 32_000},
		{"CLAUDE-SONNET-4", 64_000},
		{"qwen3-coder", DefaultMaxOutputTokens},
	} {
		if got := MaxOutputTokens(tc.model); got != tc.want {
			t.Errorf("MaxOutputTokens(%q) = %d, want %d", tc.model, got, tc.want)
		}
	}
}
