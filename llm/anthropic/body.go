package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/reinsdev/reins/llm"
)

// The request body is built in two parts. The static part — the "system" and
// "tools" fields, about 26 KB with the built-in tools — is the same for every
// request of a session until the tool set changes, so it is encoded once and
// kept in a prefixCache; only the part that grows with the conversation
// (max_tokens, messages, model, stop_sequences) is encoded per request. The
// "thinking" field sits between "system" and "tools" in the SDK's order, so the
// thinking budget is part of the static part and of its key. Both
// parts are written by hand as the SDK would encode them, in the order of the
// fields of its params struct (max_tokens, messages, model, …,
// stop_sequences, system, …, tools), so the body is byte for byte the SDK's
// for the whole request: TestRequestBodyMatchesSDK and its property test hold
// the two equal, with the SDK as a test-only oracle.

// maxPrefixes bounds the cache. A provider is shared by the main agent and
// its sub-agents, each with its own tool set; a handful of sets is the most
// one session has in use at a time.
const maxPrefixes = 8

// prefixCache holds encoded static parts, newest first.
type prefixCache struct {
	mu      sync.Mutex
	entries []*prefix
}

// prefix is one encoded static part and a copy of what it was encoded from:
// a caller may change its slices in place after the request (a system block's
// text, say), and a kept reference would then match the changed request and
// send the old bytes.
type prefix struct {
	system  []llm.SystemBlock
	tools   []llm.ToolSpec
	cache   llm.CacheMode
	budget  int // breakpoints left for explicit system ones
	think   int // the thinking budget, 0 for none
	encoded []byte
}

// staticKey is what the static part is encoded from.
type staticKey struct {
	system []llm.SystemBlock
	tools  []llm.ToolSpec
	cache  llm.CacheMode
	budget int
	think  int
}

func (p *prefix) matches(st *staticKey) bool {
	system, tools := st.system, st.tools
	if p.cache != st.cache || p.budget != st.budget || p.think != st.think || !slices.Equal(p.system, system) || len(p.tools) != len(tools) {
		return false
	}
	for i, t := range tools {
		q := p.tools[i]
		if q.Name != t.Name || q.Description != t.Description || !bytes.Equal(q.InputSchema, t.InputSchema) {
			return false
		}
	}
	return true
}

// get returns the encoded static part for the request, encoding it on a miss.
func (c *prefixCache) get(st *staticKey) ([]byte, error) {
	c.mu.Lock()
	for i, e := range c.entries {
		if e.matches(st) {
			if i > 0 {
				copy(c.entries[1:i+1], c.entries[:i])
				c.entries[0] = e
			}
			c.mu.Unlock()
			return e.encoded, nil
		}
	}
	c.mu.Unlock()
	encoded, err := encodeStatic(st)
	if err != nil {
		return nil, err
	}
	e := &prefix{system: slices.Clone(st.system), tools: slices.Clone(st.tools), cache: st.cache, budget: st.budget, think: st.think, encoded: encoded}
	for i := range e.tools {
		e.tools[i].InputSchema = bytes.Clone(e.tools[i].InputSchema)
	}
	c.mu.Lock()
	c.entries = slices.Insert(c.entries, 0, e)
	if len(c.entries) > maxPrefixes {
		c.entries = c.entries[:maxPrefixes]
	}
	c.mu.Unlock()
	return encoded, nil
}

// encodeStatic encodes the "system", "thinking" and "tools" fields, without
// braces and without a leading comma; nil when there are none. It writes what the
// SDK writes for these params — fields in the order of its structs, strings
// escaped as encoding/json escapes them, schemas compacted and
// HTML-escaped as encoding/json writes a RawMessage — and
// TestRequestBodyMatchesSDK holds the two equal; the SDK's reflective
// encoder made this the costliest part of a session's first request.
func encodeStatic(st *staticKey) ([]byte, error) {
	system, tools, cache, budget := st.system, st.tools, st.cache, st.budget
	var texts []string
	var explicit []bool
	for _, b := range system {
		if b.Text == "" {
			continue // the API rejects empty text blocks
		}
		texts = append(texts, b.Text)
		explicit = append(explicit, b.CacheBreakpoint)
	}
	if len(texts) == 0 && len(tools) == 0 && st.think == 0 {
		return nil, nil
	}
	marks := make([]bool, len(texts)) // a cache breakpoint on the block
	if cache == llm.CacheAuto && len(texts) > 0 {
		marks[len(texts)-1] = true
		for i := len(texts) - 2; i >= 0 && budget > 0; i-- {
			if explicit[i] {
				marks[i] = true
				budget--
			}
		}
	}
	size := 32
	for _, text := range texts {
		size += 48 + len(text)
	}
	for _, t := range tools {
		size += 96 + 2*len(t.InputSchema) + len(t.Name) + len(t.Description) // appendRaw escapes after the compact schema
	}
	size += size / 8 // escapes
	out := make([]byte, 0, size)
	if len(texts) > 0 {
		out = append(out, `"system":[`...)
		for i, text := range texts {
			if i > 0 {
				out = append(out, ',')
			}
			out = appendText(out, text, marks[i])
		}
		out = append(out, ']')
	}
	if st.think > 0 {
		if len(out) > 0 {
			out = append(out, ',')
		}
		out = append(out, `"thinking":{"budget_tokens":`...)
		out = strconv.AppendInt(out, int64(st.think), 10)
		out = append(out, `,"type":"enabled"}`...)
	}
	if len(tools) > 0 {
		if len(out) > 0 {
			out = append(out, ',')
		}
		out = append(out, `"tools":[`...)
		for i, t := range tools {
			if i > 0 {
				out = append(out, ',')
			}
			schema := t.InputSchema
			if len(schema) == 0 {
				schema = json.RawMessage(`{"type":"object"}`)
			}
			var err error
			out = append(out, `{"input_schema":`...)
			if out, err = appendRaw(out, schema); err != nil {
				return nil, fmt.Errorf("tool %s: input schema: %w", t.Name, err)
			}
			out = append(out, `,"name":`...)
			out = appendString(out, t.Name)
			if t.Description != "" {
				out = append(out, `,"description":`...)
				out = appendString(out, t.Description)
			}
			if cache == llm.CacheAuto && i == len(tools)-1 {
				out = append(out, breakpoint...)
			}
			out = append(out, '}')
		}
		out = append(out, ']')
	}
	return out, nil
}

// requestBody encodes req as a streaming Messages API request.
func (p *Provider) requestBody(req *llm.Request) ([]byte, error) {
	if req.MaxTokens <= 0 {
		return nil, fmt.Errorf("max tokens must be positive, got %d", req.MaxTokens)
	}
	if err := req.CheckThinking(); err != nil {
		return nil, err
	}
	markMsg, markBlock, size, err := checkMessages(req.Messages)
	if err != nil {
		return nil, err
	}
	budget := maxBreakpoints
	if req.Cache == llm.CacheAuto {
		if hasTool(req.Tools) {
			budget--
		}
		if hasSystem(req.System) {
			budget--
		}
		if markMsg >= 0 {
			budget--
		}
	} else {
		markMsg = -1
	}
	static, err := p.prefixes.get(&staticKey{system: req.System, tools: req.Tools, cache: req.Cache, budget: budget, think: req.ThinkingBudget})
	if err != nil {
		return nil, err
	}
	body := make([]byte, 0, len(static)+size+128)
	body = append(body, `{"max_tokens":`...)
	body = strconv.AppendInt(body, int64(req.MaxTokens), 10)
	if len(req.Messages) > 0 {
		body = append(body, ',')
		if body, err = appendMessages(body, req.Messages, markMsg, markBlock); err != nil {
			return nil, err
		}
	}
	if req.Model != "" {
		body = append(body, `,"model":`...)
		body = appendString(body, req.Model)
	}
	if req.StopSequences != nil { // the SDK writes an empty list, leaving out only nil
		body = append(body, `,"stop_sequences":[`...)
		for i, s := range req.StopSequences {
			if i > 0 {
				body = append(body, ',')
			}
			body = appendString(body, s)
		}
		body = append(body, ']')
	}
	if len(static) > 0 {
		body = append(body, ',')
		body = append(body, static...)
	}
	if req.Temperature != nil {
		// The 2026-10-21 API version's params have no temperature field;
		// an explicit request for one is still passed on, and the API
		// decides. Written as the SDK's WithJSONSet writes it.
		body = append(body, `,"temperature":`...)
		body = strconv.AppendFloat(body, *req.Temperature, 'f', -1, 64)
	}
	body = append(body, `,"stream":true}`...)
	return body, nil
}

func hasTool(tools []llm.ToolSpec) bool { return len(tools) > 0 }

func hasSystem(system []llm.SystemBlock) bool {
	for _, b := range system {
		if b.Text != "" {
			return true
		}
	}
	return false
}
