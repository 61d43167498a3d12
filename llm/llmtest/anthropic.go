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
	model, turn, n, ok := s.acceptAnthropic(w, r)
	if !ok {
		return
	}
	w.Header().Set("request-id", fmt.Sprintf("req_llmtest_%d", n))
	b := &blockWriter{sse: newSSEWriter(w)}
	u := turn.usage()
	b.sse.event("message_start", fmt.Sprintf(
		`{"type":"message_start","message":{"id":"msg_llmtest_%d","type":"message","role":"assistant","model":%s,`+
			`"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,`+
			`"cache_read_input_tokens":%d,"output_tokens":1}}}`,
		n, jsonString(model), u.InputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens))
	thinking := turn.thinkingBlocks(n)
	b.thinking(turn, thinking)
	b.text(turn.Text)
	s.rememberThinking(thinking, b.toolCalls(turn.ToolCalls, n))
	if f := turn.Error; f != nil {
		b.sse.event("error", fmt.Sprintf(`{"type":"error","error":{"type":%s,"message":%s}}`, jsonString(f.Type), jsonString(f.Message)))
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
	b.sse.event("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%s,"stop_sequence":%s},"usage":{"output_tokens":%d}}`,
		jsonString(string(turn.stopReason())), stopSeq, u.OutputTokens))
	b.sse.event("message_stop", `{"type":"message_stop"}`)
}

// acceptAnthropic checks a request as the API would and takes its turn; a request it refuses
// is answered here with the API's error.
func (s *Server) acceptAnthropic(w http.ResponseWriter, r *http.Request) (model string, turn Turn, n int, ok bool) {
	body, ok := s.readBody(w, r)
	if !ok {
		return "", Turn{}, 0, false
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		s.record(r, body)
		anthropicError(w, http.StatusNotFound, "not_found_error", fmt.Sprintf("Not found: %s %s", r.Method, r.URL.Path), "", 0)
		return "", Turn{}, 0, false
	}
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		s.record(r, body)
		anthropicError(w, http.StatusBadRequest, "invalid_request_error", "invalid JSON body: "+err.Error(), "", 0)
		return "", Turn{}, 0, false
	}
	turn, n, ok = s.take(r, body)
	switch {
	case !ok:
		s.exhausted(w, n)
	case !req.Stream:
		anthropicError(w, http.StatusBadRequest, "invalid_request_error", "llmtest: only streaming requests are supported", "", n)
	default:
		if msg := s.checkThinking(body, turn); msg != "" {
			thinkingError(w, msg, n)
		} else if f := turn.Error; f != nil && !f.InStream {
			anthropicError(w, f.Status, f.Type, f.Message, f.RetryAfter, n)
		} else {
			return req.Model, turn, n, true
		}
	}
	return "", Turn{}, 0, false
}

// blockWriter writes a reply's content blocks as the API streams them, the first start
// followed by a ping.
type blockWriter struct {
	sse    *sseWriter
	index  int
	pinged bool
}

func (b *blockWriter) start(block string) {
	b.sse.event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":%s}`, b.index, block))
	if !b.pinged {
		b.sse.event("ping", `{"type": "ping"}`)
		b.pinged = true
	}
}

func (b *blockWriter) delta(d string) {
	b.sse.event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":%s}`, b.index, d))
}

func (b *blockWriter) stop() {
	b.sse.event("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, b.index))
	b.index++
}

// thinking writes the turn's thinking blocks: deltas, then the signature; redacted ones whole.
func (b *blockWriter) thinking(turn Turn, blocks []reasonBlock) {
	for _, tb := range blocks {
		if tb.Type == "redacted_thinking" {
			b.start(`{"type":"redacted_thinking","data":` + jsonString(tb.Data) + `}`)
			b.stop()
			continue
		}
		b.start(`{"type":"thinking","thinking":"","signature":""}`)
		for _, t := range turn.Thinking {
			b.delta(`{"type":"thinking_delta","thinking":` + jsonString(t) + `}`)
		}
		b.delta(`{"type":"signature_delta","signature":` + jsonString(tb.Signature) + `}`)
		b.stop()
	}
}

// text writes one text block of the deltas, if any.
func (b *blockWriter) text(deltas []string) {
	if len(deltas) == 0 {
		return
	}
	b.start(`{"type":"text","text":""}`)
	for _, t := range deltas {
		b.delta(`{"type":"text_delta","text":` + jsonString(t) + `}`)
	}
	b.stop()
}

// toolCalls writes a tool_use block per call, its input in pieces, and returns their ids.
func (b *blockWriter) toolCalls(calls []ToolCall, n int) []string {
	var ids []string
	for i, call := range calls {
		id := call.ID
		if id == "" {
			id = fmt.Sprintf("toolu_llmtest_%d_%d", n, i)
		}
		ids = append(ids, id)
		b.start(fmt.Sprintf(`{"type":"tool_use","id":%s,"name":%s,"input":{}}`, jsonString(id), jsonString(call.Name)))
		b.delta(`{"type":"input_json_delta","partial_json":""}`)
		for _, piece := range splitRunes(call.Input, 16) {
			b.delta(`{"type":"input_json_delta","partial_json":` + jsonString(piece) + `}`)
		}
		b.stop()
	}
	return ids
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
