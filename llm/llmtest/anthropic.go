package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// serveAnthropic answers POST /v1/messages with the next turn, as a stream
// of the events the Messages API sends:
//
//	message_start, then per block content_block_start, content_block_delta
//	(thinking_delta and signature_delta, text_delta or input_json_delta)...,
//	content_block_stop, with a ping after
//	the first block start, then message_delta (stop_reason, usage) and
//	message_stop.
func (s *Server) serveAnthropic(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readBody(w, r)
	if !ok {
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		s.record(r, body)
		anthropicError(w, http.StatusNotFound, "not_found_error", fmt.Sprintf("Not found: %s %s", r.Method, r.URL.Path), "", 0)
		return
	}
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		s.record(r, body)
		anthropicError(w, http.StatusBadRequest, "invalid_request_error", "invalid JSON body: "+err.Error(), "", 0)
		return
	}
	turn, n, ok := s.take(r, body)
	if !ok {
		s.exhausted(w, n)
		return
	}
	if !req.Stream {
		anthropicError(w, http.StatusBadRequest, "invalid_request_error", "llmtest: only streaming requests are supported", "", n)
		return
	}
	if msg := s.checkThinking(body, turn); msg != "" {
		thinkingError(w, msg, n)
		return
	}
	if f := turn.Error; f != nil && !f.InStream {
		anthropicError(w, f.Status, f.Type, f.Message, f.RetryAfter, n)
		return
	}

	w.Header().Set("request-id", fmt.Sprintf("req_llmtest_%d", n))
	sse := newSSEWriter(w)
	u := turn.usage()
	sse.event("message_start", fmt.Sprintf(
		`{"type":"message_start","message":{"id":"msg_llmtest_%d","type":"message","role":"assistant","model":%s,`+
			`"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,`+
			`"cache_read_input_tokens":%d,"output_tokens":1}}}`,
		n, jsonString(req.Model), u.InputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens))

	index := 0
	pinged := false
	blockStart := func(block string) {
		sse.event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":%s}`, index, block))
		if !pinged {
			sse.event("ping", `{"type": "ping"}`)
			pinged = true
		}
	}
	delta := func(d string) {
		sse.event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":%s}`, index, d))
	}
	blockStop := func() {
		sse.event("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, index))
		index++
	}
	thinking := turn.thinkingBlocks(n)
	for _, b := range thinking {
		if b.Type == "redacted_thinking" {
			blockStart(`{"type":"redacted_thinking","data":` + jsonString(b.Data) + `}`)
			blockStop()
			continue
		}
		blockStart(`{"type":"thinking","thinking":"","signature":""}`)
		for _, t := range turn.Thinking {
			delta(`{"type":"thinking_delta","thinking":` + jsonString(t) + `}`)
		}
		delta(`{"type":"signature_delta","signature":` + jsonString(b.Signature) + `}`)
		blockStop()
	}
	var ids []string
	if len(turn.Text) > 0 {
		blockStart(`{"type":"text","text":""}`)
		for _, t := range turn.Text {
			delta(`{"type":"text_delta","text":` + jsonString(t) + `}`)
		}
		blockStop()
	}
	for i, call := range turn.ToolCalls {
		id := call.ID
		if id == "" {
			id = fmt.Sprintf("toolu_llmtest_%d_%d", n, i)
		}
		ids = append(ids, id)
		blockStart(fmt.Sprintf(`{"type":"tool_use","id":%s,"name":%s,"input":{}}`, jsonString(id), jsonString(call.Name)))
		delta(`{"type":"input_json_delta","partial_json":""}`)
		for _, piece := range splitRunes(call.Input, 16) {
			delta(`{"type":"input_json_delta","partial_json":` + jsonString(piece) + `}`)
		}
		blockStop()
	}
	s.rememberThinking(thinking, ids)
	if f := turn.Error; f != nil {
		sse.event("error", fmt.Sprintf(`{"type":"error","error":{"type":%s,"message":%s}}`, jsonString(f.Type), jsonString(f.Message)))
		return
	}
	if turn.Stall {
		s.stall(r)
		return
	}
	stopSeq := "null"
	if turn.stopReason() == "stop_sequence" {
		stopSeq = `"\n\nHuman:"`
	}
	sse.event("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%s,"stop_sequence":%s},"usage":{"output_tokens":%d}}`,
		jsonString(string(turn.stopReason())), stopSeq, u.OutputTokens))
	sse.event("message_stop", `{"type":"message_stop"}`)
}

// anthropicError writes an error response in the API's format.
func anthropicError(w http.ResponseWriter, status int, errType, message, retryAfter string, n int) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("request-id", fmt.Sprintf("req_llmtest_%d", n))
	if retryAfter != "" {
		h.Set("retry-after", retryAfter)
	}
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"type":"error","error":{"type":%s,"message":%s},"request_id":"req_llmtest_%d"}`,
		jsonString(errType), jsonString(message), n)
}
