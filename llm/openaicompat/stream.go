package openaicompat

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/internal/sse"
)

// chunk is a chat.completion.chunk, or a chat.completion when the server
// did not stream; every field is optional.
type chunk struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Choices []choice        `json:"choices"`
	Usage   *usage          `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type choice struct {
	Index        int     `json:"index"`
	Delta        delta   `json:"delta"`
	Message      *delta  `json:"message"` // non-streamed completions
	FinishReason *string `json:"finish_reason"`
}

type delta struct {
	Content textValue `json:"content"`
	// The model's reasoning, where a server streams it: reasoning_content (DeepSeek,
	// vLLM, llama.cpp) or reasoning (OpenRouter, Ollama).
	ReasoningContent textValue       `json:"reasoning_content"`
	Reasoning        textValue       `json:"reasoning"`
	ToolCalls        []toolCallDelta `json:"tool_calls"`
}

type toolCallDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string    `json:"name"`
		Arguments textValue `json:"arguments"`
	} `json:"function"`
}

type usage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

// textValue decodes a string leniently: null is empty, an array of
// {"type":"text","text":...} parts is joined, and any other JSON value
// (such as tool arguments sent as an object) is kept as its JSON text.
type textValue string

func (t *textValue) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case len(data) == 0 || string(data) == "null":
		*t = ""
	case data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*t = textValue(s)
	case data[0] == '[':
		var parts []struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(data, &parts) == nil {
			var b []byte
			for _, p := range parts {
				b = append(b, p.Text...)
			}
			*t = textValue(b)
			return nil
		}
		*t = textValue(data)
	default:
		*t = textValue(data)
	}
	return nil
}

// decoder turns chunks into events and assembles the reply.
type decoder struct {
	name    string
	onEvent func(llm.Event)
	acc     llm.Accumulator
	n       int // blocks opened so far
	text    int // index of the open text block, or -1
	think   int // index of the open thinking block, or -1
	calls   []*call
	byIndex map[int]*call
	finish  string
	usage   *usage
	model   string
	id      string
	done    bool // [DONE] seen
	idBase  string
	synth   int // synthetic ids handed out
}

// call is a tool call being assembled.
type call struct {
	ours    int // block index, -1 until started
	id      string
	name    string
	pending []byte // arguments that arrived before the name
}

func newDecoder(name string, onEvent func(llm.Event)) *decoder {
	return &decoder{name: name, onEvent: onEvent, text: -1, think: -1, byIndex: map[int]*call{}}
}

func (d *decoder) emit(ev llm.Event) error {
	if err := d.acc.Add(ev); err != nil {
		return fmt.Errorf("%s: %w", d.name, err)
	}
	if d.onEvent != nil {
		d.onEvent(ev)
	}
	return nil
}

// decodeStream reads an SSE body up to [DONE] or the end of input.
func (d *decoder) decodeStream(body io.Reader) error {
	sr := sse.NewReader(body, sse.Options{BareJSON: true, Unterminated: true})
	for {
		event, data, err := sr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: reading stream: %w", d.name, err)
		}
		data = bytes.TrimSpace(data)
		if string(data) == "[DONE]" {
			d.done = true
			break
		}
		if len(data) == 0 {
			continue
		}
		if string(event) == "error" {
			return d.streamError(data)
		}
		var c chunk
		if err := json.Unmarshal(data, &c); err != nil {
			return fmt.Errorf("%s: decoding chunk %.200q: %w", d.name, data, err)
		}
		if err := d.apply(&c, false); err != nil {
			return err
		}
	}
	if !d.done && d.finish == "" {
		return fmt.Errorf("%s: stream ended without finish_reason or [DONE]: %w", d.name, io.ErrUnexpectedEOF)
	}
	return d.stop()
}

// decodeCompletion reads a non-streamed chat.completion.
func (d *decoder) decodeCompletion(body io.Reader) error {
	data, err := io.ReadAll(body)
	if err != nil {
		return fmt.Errorf("%s: reading response: %w", d.name, err)
	}
	var c chunk
	if err := json.Unmarshal(data, &c); err != nil {
		return fmt.Errorf("%s: decoding response: %w", d.name, err)
	}
	if err := d.apply(&c, true); err != nil {
		return err
	}
	return d.stop()
}

// streamError returns the APIError for an error object in the stream.
func (d *decoder) streamError(data []byte) error {
	apiErr := &llm.APIError{Provider: d.name}
	var wrapper struct {
		Error json.RawMessage `json:"error"`
	}
	raw := json.RawMessage(data)
	if json.Unmarshal(data, &wrapper) == nil && len(wrapper.Error) > 0 {
		raw = wrapper.Error
	}
	var ok bool
	if apiErr.Type, apiErr.Message, ok = parseErrorValue(raw); !ok {
		apiErr.Message = sse.Truncate(string(data), 300)
	}
	return apiErr
}

func (d *decoder) apply(c *chunk, whole bool) error {
	if len(c.Error) > 0 && string(c.Error) != "null" {
		return d.streamError(c.Error)
	}
	if c.Model != "" {
		d.model = c.Model
	}
	if c.ID != "" && d.id == "" {
		d.id = c.ID
	}
	if c.Usage != nil {
		d.usage = c.Usage
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue // only one choice is requested
		}
		dl := &ch.Delta
		if whole && ch.Message != nil {
			dl = ch.Message
		}
		if r := cmp.Or(dl.ReasoningContent, dl.Reasoning); r != "" {
			if err := d.addThinking(string(r)); err != nil {
				return err
			}
		}
		if dl.Content != "" {
			if err := d.addText(string(dl.Content)); err != nil {
				return err
			}
		}
		for j := range dl.ToolCalls {
			tc := &dl.ToolCalls[j]
			if whole && tc.Index == nil {
				k := j
				tc.Index = &k // whole calls, one per array element
			}
			if err := d.addToolCall(tc); err != nil {
				return err
			}
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			d.finish = *ch.FinishReason
		}
	}
	return nil
}

// addThinking adds reasoning to the open thinking block, opening one when there is none
// (reasoning after text or a tool call opens a new block, and text after reasoning
// does too, so the blocks follow the stream). It carries no
// signature: these servers sign nothing.
func (d *decoder) addThinking(s string) error {
	d.text = -1
	if d.think < 0 {
		d.think = d.n
		d.n++
	}
	return d.emit(llm.Event{Type: llm.EventThinkingDelta, Index: d.think, Text: s})
}

func (d *decoder) addText(s string) error {
	d.think = -1
	if d.text < 0 {
		d.text = d.n
		d.n++
	}
	return d.emit(llm.Event{Type: llm.EventTextDelta, Index: d.text, Text: s})
}

// addToolCall applies one tool-call delta. The call it belongs to is found
// by index; servers that send no index are handled by id, and otherwise a
// delta with a name opens a new call while one without continues the last.
// A delta whose index names a call that already has a different id opens a
// new call too: some servers reuse index 0 for every call.
func (d *decoder) addToolCall(tc *toolCallDelta) error {
	var c *call
	switch {
	case tc.Index != nil:
		c = d.byIndex[*tc.Index]
		if c != nil && tc.ID != "" && c.id != "" && tc.ID != c.id {
			c = nil
		}
	case tc.ID != "":
		for _, prev := range d.calls {
			if prev.id == tc.ID {
				c = prev
			}
		}
	case tc.Function.Name == "" && len(d.calls) > 0:
		c = d.calls[len(d.calls)-1]
	}
	if c == nil {
		c = &call{ours: -1}
		d.calls = append(d.calls, c)
		if tc.Index != nil {
			d.byIndex[*tc.Index] = c
		}
	}
	if c.id == "" {
		c.id = tc.ID
	}
	if c.name == "" {
		c.name = tc.Function.Name
	}
	args := string(tc.Function.Arguments)
	if c.ours < 0 {
		if c.name == "" {
			c.pending = append(c.pending, args...)
			return nil
		}
		if err := d.start(c); err != nil {
			return err
		}
	}
	if args == "" {
		return nil
	}
	return d.emit(llm.Event{Type: llm.EventToolInputDelta, Index: c.ours, PartialJSON: args})
}

// start opens the block of c, giving it an id if the server sent none or
// one that another call already has, and flushes arguments that came before
// its name.
func (d *decoder) start(c *call) error {
	if c.id == "" || d.idTaken(c) {
		c.id = d.syntheticID()
	}
	c.ours = d.n
	d.n++
	d.text, d.think = -1, -1 // text or reasoning after a tool call opens a new block
	if err := d.emit(llm.Event{Type: llm.EventToolUseStart, Index: c.ours, ToolUseID: c.id, ToolName: c.name}); err != nil {
		return err
	}
	if len(c.pending) > 0 {
		args := string(c.pending)
		c.pending = nil
		return d.emit(llm.Event{Type: llm.EventToolInputDelta, Index: c.ours, PartialJSON: args})
	}
	return nil
}

func (d *decoder) idTaken(c *call) bool {
	for _, other := range d.calls {
		if other != c && other.ours >= 0 && other.id == c.id {
			return true
		}
	}
	return false
}

// syntheticID returns a unique id for a tool call the server left without
// one; the id must be unique within the conversation, not just the reply.
func (d *decoder) syntheticID() string {
	if d.idBase == "" {
		var b [6]byte
		rand.Read(b[:])
		d.idBase = "call_" + hex.EncodeToString(b[:])
	}
	d.synth++
	return fmt.Sprintf("%s_%d", d.idBase, d.synth)
}

// stop opens calls that never got a name (so that their input is not lost
// and the agent can report the bad call) and ends the message.
func (d *decoder) stop() error {
	for _, c := range d.calls {
		if c.ours < 0 {
			if err := d.start(c); err != nil {
				return err
			}
		}
	}
	var u llm.Usage
	if d.usage != nil {
		cached := 0
		if d.usage.PromptTokensDetails != nil {
			cached = d.usage.PromptTokensDetails.CachedTokens
		}
		u = llm.Usage{
			InputTokens:          max(0, d.usage.PromptTokens-cached),
			OutputTokens:         d.usage.CompletionTokens,
			CacheReadInputTokens: cached,
		}
	}
	return d.emit(llm.Event{Type: llm.EventMessageStop, StopReason: d.stopReason(), Usage: u})
}

// stopReason maps finish_reason, in the spellings servers use, to a stop
// reason. A reply with tool calls is a tool_use stop unless it was cut
// short: some servers say "stop" even then.
func (d *decoder) stopReason() llm.StopReason {
	var r llm.StopReason
	switch d.finish {
	case "stop", "eos", "eos_token", "end_turn", "":
		r = llm.StopEndTurn
	case "tool_calls", "function_call", "tool_use":
		r = llm.StopToolUse
	case "length", "max_tokens", "model_length":
		r = llm.StopMaxTokens
	case "stop_sequence":
		r = llm.StopStopSequence
	case "content_filter":
		r = llm.StopRefusal
	default:
		r = llm.StopReason(d.finish)
	}
	if len(d.calls) > 0 && r != llm.StopMaxTokens {
		r = llm.StopToolUse
	}
	return r
}

func (d *decoder) response() *llm.Response {
	resp := d.acc.Response()
	resp.Model, resp.ID = d.model, d.id
	return resp
}
