package sdkproto

import (
	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
)

// compactCommand is the slash command a prompt may be: "/compact [instructions]" compacts
// the conversation instead of taking a turn (app.RunTurn).
var compactCommand = SlashCommand{Name: "compact", Description: "Clear conversation history but keep a summary in context. Optional: /compact [instructions for summarization]",
	ArgumentHint: "<optional custom summarization instructions>"}

// ContextCategory is one row of get_context_usage's breakdown.
type ContextCategory struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Tokens int    `json:"tokens"`
	Color  string `json:"color"`
	Kind   string `json:"kind"`
}

// ContextUsageResponse answers get_context_usage, in the shape of the SDK's
// SDKControlGetContextUsageResponse. The per-category figures are local estimates; the total
// comes from the last response's usage when there is one (as the SDK's detail "summary").
type ContextUsageResponse struct {
	Categories           []ContextCategory `json:"categories"`
	TotalTokens          int               `json:"totalTokens"`
	MaxTokens            int               `json:"maxTokens"`
	RawMaxTokens         int               `json:"rawMaxTokens"`
	Percentage           int               `json:"percentage"`
	GridRows             [][]any           `json:"gridRows"`
	Model                string            `json:"model"`
	MemoryFiles          []any             `json:"memoryFiles"`
	MCPTools             []any             `json:"mcpTools"`
	Agents               []any             `json:"agents"`
	AutoCompactThreshold int               `json:"autoCompactThreshold"`
	IsAutoCompactEnabled bool              `json:"isAutoCompactEnabled"`
	APIUsage             *apiUsage         `json:"apiUsage"`
}

type apiUsage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

// contextUsageResponse builds the answer from the agent's accounting.
func contextUsageResponse(u agent.ContextUsage) ContextUsageResponse {
	cats := []ContextCategory{
		{ID: "system_prompt", Name: "System prompt", Tokens: u.System - u.Memory, Color: "promptBorder", Kind: "used"},
		{ID: "system_tools", Name: "System tools", Tokens: u.Tools, Color: "inactive", Kind: "used"},
		{ID: "memory_files", Name: "Memory files", Tokens: u.Memory, Color: "claude", Kind: "used"},
		{ID: "messages", Name: "Messages", Tokens: u.Messages, Color: "purple", Kind: "used"},
	}
	if u.AutoCompact {
		cats = append(cats, ContextCategory{ID: "autocompact_buffer", Name: "Autocompact buffer", Tokens: u.Window - u.Threshold, Color: "inactive", Kind: "buffer"})
	}
	free := u.Window - u.Tokens
	if u.AutoCompact {
		free -= u.Window - u.Threshold
	}
	cats = append(cats, ContextCategory{ID: "free_space", Name: "Free space", Tokens: max(0, free), Color: "promptBorder", Kind: "free"})
	r := ContextUsageResponse{Categories: cats, TotalTokens: u.Tokens, MaxTokens: u.Window, RawMaxTokens: u.Window,
		Percentage: u.Percent(), GridRows: [][]any{}, Model: u.Model, MemoryFiles: []any{}, MCPTools: []any{}, Agents: []any{},
		AutoCompactThreshold: u.Threshold, IsAutoCompactEnabled: u.AutoCompact}
	if u.Measured {
		r.APIUsage = &apiUsage{InputTokens: u.Last.InputTokens, OutputTokens: u.Last.OutputTokens,
			CacheCreationInputTokens: u.Last.CacheCreationInputTokens, CacheReadInputTokens: u.Last.CacheReadInputTokens}
	}
	return r
}

// setHistory keeps the conversation after a turn, for get_context_usage.
func (s *Server) setHistory(h []llm.Message) {
	s.mu.Lock()
	s.turn.history = h
	s.mu.Unlock()
}
