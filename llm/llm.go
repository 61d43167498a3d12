// Package llm defines the provider-neutral types that the agent loop uses to
// talk to language models: conversation [Message]s made of [Block]s, the
// [Request] and [Response] of one model turn, the streamed [Event]s of that
// turn, the [Provider] interface that adapters implement, the [APIError] they
// return, and a [RetryPolicy] shared by all adapters.
//
// The package uses only the standard library. Adapters for concrete APIs live
// in sub-packages (llm/anthropic, llm/openaicompat) and are the only code that
// sees third-party SDK or wire types; everything crossing the package boundary
// is one of the types declared here.
//
// A turn looks like this:
//
//	resp, err := provider.Stream(ctx, &llm.Request{
//		Model:     "claude-sonnet-4-5",
//		System:    llm.SystemText("You are a coding agent."),
//		Messages:  history,
//		Tools:     specs,
//		MaxTokens: 8192,
//	}, func(ev llm.Event) {
//		if ev.Type == llm.EventTextDelta {
//			ui.Print(ev.Text)
//		}
//	})
//	if err != nil {
//		var apiErr *llm.APIError
//		if errors.As(err, &apiErr) { ... apiErr.StatusCode ... }
//	}
//	history = append(history, resp.Message)
//	for _, use := range resp.Message.ToolUses() { ... }
//
// Messages, blocks and responses are plain JSON-serialisable values, so a
// session can be stored as JSONL and read back unchanged.
package llm

import (
	"context"
	"encoding/json"
)

// Provider streams one model turn.
//
// Stream sends req and calls onEvent for each increment of the reply, in
// order, on the goroutine that called Stream; onEvent may be nil and must not
// retain the Event past the call (it holds no pointers, so copying is fine).
// When the message has ended Stream returns the complete Response, whose
// Message holds the same content that the events described.
//
// On failure Stream returns a nil Response and an error: an [*APIError] when
// the API answered with an error (check it with errors.As), or the context's
// error (errors.Is(err, context.Canceled)) when ctx ended first. Adapters
// retry transient failures themselves according to their [RetryPolicy], but
// only while no event has been delivered for the attempt, so a caller never
// sees the same text twice.
//
// Implementations are safe for concurrent use by multiple goroutines.
type Provider interface {
	Stream(ctx context.Context, req *Request, onEvent func(Event)) (*Response, error)
	// Name identifies the provider in logs and errors, e.g. "anthropic".
	Name() string
}

// Request is one model turn.
type Request struct {
	Model    string
	System   []SystemBlock
	Messages []Message
	Tools    []ToolSpec
	// MaxTokens bounds the length of the reply; it must be positive.
	MaxTokens int
	// Temperature is sent only when non-nil.
	Temperature   *float64
	StopSequences []string
	// ThinkingBudget, when positive, asks for extended thinking with this many tokens at
	// most for the model's reasoning; zero asks for none. See [Request.CheckThinking].
	ThinkingBudget int
	// Cache selects how prompt-caching breakpoints are placed. Only the
	// Anthropic adapter acts on it; OpenAI-compatible servers cache on their own.
	Cache CacheMode
}

// CacheMode selects the placement of prompt-caching breakpoints.
type CacheMode uint8

const (
	// CacheAuto marks the last tool, the last system block and the last user
	// message as cache breakpoints, plus any [SystemBlock] with
	// CacheBreakpoint set, within the API's limit of four.
	CacheAuto CacheMode = iota
	// CacheOff sends no cache breakpoints.
	CacheOff
)

// SystemBlock is one part of the system prompt. Splitting the prompt lets a
// caller put a cache breakpoint between a stable prefix and a part that
// changes from session to session.
type SystemBlock struct {
	Text string `json:"text"`
	// CacheBreakpoint asks for a cache breakpoint after this block in
	// addition to the automatic ones (see [CacheAuto]).
	CacheBreakpoint bool `json:"cache_breakpoint,omitempty"`
	// Memory marks a block whose text comes from memory files (CLAUDE.md, AGENTS.md), so
	// that context accounting can show it apart. Adapters ignore it.
	Memory bool `json:"memory,omitempty"`
}

// SystemText returns a system prompt made of the single block s, or nil if s
// is empty.
func SystemText(s string) []SystemBlock {
	if s == "" {
		return nil
	}
	return []SystemBlock{{Text: s}}
}

// ToolSpec describes a tool the model may call. InputSchema is a JSON Schema
// object, sent to the API unchanged.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// StopReason says why the model stopped. Values other than the constants
// below (for example "pause_turn" or "refusal" from Anthropic) are passed
// through unchanged.
type StopReason string

const (
	StopEndTurn      StopReason = "end_turn"
	StopToolUse      StopReason = "tool_use"
	StopMaxTokens    StopReason = "max_tokens"
	StopStopSequence StopReason = "stop_sequence"
	StopRefusal      StopReason = "refusal"
)

// Usage counts the tokens of one turn, with Anthropic's meaning:
// InputTokens excludes the tokens read from or written to the prompt cache,
// so the whole prompt is InputTokens + CacheReadInputTokens +
// CacheCreationInputTokens.
type Usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens,omitempty"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens,omitempty"`
}

// Add returns the sum of u and v, for totals over a session.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:              u.InputTokens + v.InputTokens,
		OutputTokens:             u.OutputTokens + v.OutputTokens,
		CacheReadInputTokens:     u.CacheReadInputTokens + v.CacheReadInputTokens,
		CacheCreationInputTokens: u.CacheCreationInputTokens + v.CacheCreationInputTokens,
	}
}

// Response is the result of one model turn.
type Response struct {
	// Message has role assistant.
	Message    Message    `json:"message"`
	StopReason StopReason `json:"stop_reason"`
	Usage      Usage      `json:"usage"`
	// Model is the model that answered, as the API reported it.
	Model string `json:"model,omitempty"`
	// ID is the API's identifier of the message, if it sent one.
	ID string `json:"id,omitempty"`
}

// EventType distinguishes the kinds of [Event].
type EventType uint8

const (
	// EventTextDelta carries Text to append to the text block at Index.
	EventTextDelta EventType = iota + 1
	// EventToolUseStart opens a tool_use block at Index with ToolUseID and
	// ToolName; its input follows as EventToolInputDelta events.
	EventToolUseStart
	// EventToolInputDelta carries PartialJSON to append to the input of the
	// tool_use block at Index. The pieces only form valid JSON once joined.
	EventToolInputDelta
	// EventMessageStop ends the message and carries StopReason and Usage.
	EventMessageStop
	// EventThinkingDelta carries Text to append to the thinking block at Index; the
	// first one for an Index opens the block, even with empty Text (its signature may be
	// all it holds).
	EventThinkingDelta
	// EventSignatureDelta carries Signature to append to the signature of the thinking
	// block at Index.
	EventSignatureDelta
	// EventRedactedThinking is a whole redacted_thinking block at Index, its opaque data in
	// Data.
	EventRedactedThinking
	// EventMessageStart opens the message, before any block: MessageID and Model are the
	// API's, Usage the counts it reported so far (the input tokens). Adapters whose API
	// reports neither need not send it.
	EventMessageStart
)

func (t EventType) String() string {
	switch t {
	case EventTextDelta:
		return "text_delta"
	case EventToolUseStart:
		return "tool_use_start"
	case EventToolInputDelta:
		return "tool_input_delta"
	case EventMessageStop:
		return "message_stop"
	case EventThinkingDelta:
		return "thinking_delta"
	case EventSignatureDelta:
		return "signature_delta"
	case EventRedactedThinking:
		return "redacted_thinking"
	case EventMessageStart:
		return "message_start"
	}
	return "unknown"
}

// Event is one increment of a streamed reply. Index is the position of the
// block in the final Response.Message.Content; blocks are opened in index
// order, so an event for a new block always has Index equal to the number of
// blocks seen so far.
type Event struct {
	Type        EventType
	Index       int
	Text        string
	ToolUseID   string
	ToolName    string
	PartialJSON string
	Signature   string
	Data        string
	StopReason  StopReason
	Usage       Usage
	// MessageID and Model are set for EventMessageStart.
	MessageID string
	Model     string
}
