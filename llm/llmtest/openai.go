package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/reinsdev/reins/llm"
)

// created is the fixed "created" timestamp of every completion, so that
// recorded streams are reproducible.
const created = 1700000000

// serveOpenAI answers POST /v1/chat/completions with the next turn. With
// "stream": true it sends chat.completion.chunk objects as "data:" lines:
// a role chunk, content deltas, tool-call deltas (id, type and name in the
// first chunk of each call, then argument pieces, all keyed by index), a
// chunk with finish_reason, the usage chunk (empty choices) when
// stream_options.include_usage is set, and "data: [DONE]". Without stream it
// sends one chat.completion object.
func (s *Server) serveOpenAI(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readBody(w, r)
	if !ok {
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		s.record(r, body)
		openAIError(w, http.StatusNotFound, "invalid_request_error", fmt.Sprintf("Unknown request URL: %s %s.", r.Method, r.URL.Path), "", 0)
		return
	}
	var req struct {
		Model         string `json:"model"`
		Stream        bool   `json:"stream"`
		StreamOptions *struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		s.record(r, body)
		openAIError(w, http.StatusBadRequest, "invalid_request_error", "We could not parse the JSON body of your request.", "", 0)
		return
	}
	turn, n, ok := s.take(r, body)
	if !ok {
		s.exhausted(w, n)
		return
	}
	if f := turn.Error; f != nil && !f.InStream {
		openAIError(w, f.Status, f.Type, f.Message, f.RetryAfter, n)
		return
	}
	callIDs := make([]string, len(turn.ToolCalls))
	for i, call := range turn.ToolCalls {
		callIDs[i] = call.ID
		if callIDs[i] == "" {
			callIDs[i] = fmt.Sprintf("call_llmtest_%d_%d", n, i)
		}
	}
	w.Header().Set("x-request-id", fmt.Sprintf("req_llmtest_%d", n))
	if !req.Stream {
		writeCompletion(w, turn, n, req.Model, callIDs)
		return
	}

	includeUsage := req.StreamOptions != nil && req.StreamOptions.IncludeUsage
	usageField := ""
	if includeUsage {
		usageField = `,"usage":null`
	}
	prefix := fmt.Sprintf(`{"id":"chatcmpl-llmtest-%d","object":"chat.completion.chunk","created":%d,"model":%s,"system_fingerprint":"fp_llmtest","choices":[`,
		n, created, jsonString(req.Model))
	sse := newSSEWriter(w)
	chunk := func(delta, finish string) {
		sse.event("", prefix+`{"index":0,"delta":`+delta+`,"logprobs":null,"finish_reason":`+finish+`}]`+usageField+`}`)
	}
	chunk(`{"role":"assistant","content":"","refusal":null}`, "null")
	for _, t := range turn.Thinking {
		// DeepSeek's and vLLM's name; OpenRouter and Ollama's say "reasoning".
		chunk(`{"reasoning_content":`+jsonString(t)+`}`, "null")
	}
	for _, t := range turn.Text {
		chunk(`{"content":`+jsonString(t)+`}`, "null")
	}
	for i, call := range turn.ToolCalls {
		chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":%s,"type":"function","function":{"name":%s,"arguments":""}}]}`,
			i, jsonString(callIDs[i]), jsonString(call.Name)), "null")
		for _, piece := range splitRunes(call.Input, 16) {
			chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]}`, i, jsonString(piece)), "null")
		}
	}
	if f := turn.Error; f != nil {
		sse.event("", fmt.Sprintf(`{"error":{"message":%s,"type":%s,"param":null,"code":null}}`, jsonString(f.Message), jsonString(f.Type)))
		return
	}
	if turn.Stall {
		s.stall(r)
		return
	}
	chunk(`{}`, jsonString(finishReason(turn.stopReason())))
	if includeUsage {
		sse.event("", fmt.Sprintf(`{"id":"chatcmpl-llmtest-%d","object":"chat.completion.chunk","created":%d,"model":%s,"system_fingerprint":"fp_llmtest","choices":[],"usage":%s}`,
			n, created, jsonString(req.Model), openAIUsage(turn.usage())))
	}
	sse.event("", "[DONE]")
}

// writeCompletion writes a non-streamed chat.completion object.
func writeCompletion(w http.ResponseWriter, turn Turn, n int, model string, callIDs []string) {
	content := "null"
	if len(turn.Text) > 0 {
		content = jsonString(strings.Join(turn.Text, ""))
	}
	toolCalls := ""
	if len(turn.ToolCalls) > 0 {
		var calls []string
		for i, call := range turn.ToolCalls {
			calls = append(calls, fmt.Sprintf(`{"id":%s,"type":"function","function":{"name":%s,"arguments":%s}}`,
				jsonString(callIDs[i]), jsonString(call.Name), jsonString(call.Input)))
		}
		toolCalls = `,"tool_calls":[` + strings.Join(calls, ",") + `]`
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"chatcmpl-llmtest-%d","object":"chat.completion","created":%d,"model":%s,"choices":[{"index":0,`+
		`"message":{"role":"assistant","content":%s%s,"refusal":null},"logprobs":null,"finish_reason":%s}],"usage":%s,"system_fingerprint":"fp_llmtest"}`,
		n, created, jsonString(model), content, toolCalls, jsonString(finishReason(turn.stopReason())), openAIUsage(turn.usage()))
}

// finishReason maps a stop reason to Chat Completions' finish_reason.
func finishReason(r llm.StopReason) string {
	switch r {
	case llm.StopToolUse:
		return "tool_calls"
	case llm.StopMaxTokens:
		return "length"
	case llm.StopRefusal:
		return "content_filter"
	}
	return "stop"
}

// openAIUsage renders u the way Chat Completions counts: prompt_tokens
// includes the cached tokens.
func openAIUsage(u llm.Usage) string {
	prompt := u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens
	return fmt.Sprintf(`{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d,"prompt_tokens_details":{"cached_tokens":%d,"audio_tokens":0},`+
		`"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}`,
		prompt, u.OutputTokens, prompt+u.OutputTokens, u.CacheReadInputTokens)
}

// openAIError writes an error response in the API's format.
func openAIError(w http.ResponseWriter, status int, errType, message, retryAfter string, n int) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("x-request-id", fmt.Sprintf("req_llmtest_%d", n))
	if retryAfter != "" {
		h.Set("retry-after", retryAfter)
	}
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"message":%s,"type":%s,"param":null,"code":null}}`, jsonString(message), jsonString(errType))
}
