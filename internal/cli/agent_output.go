package cli

import (
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/session"
)

// The --output-format values.
const (
	formatText       = "text"
	formatJSON       = "json"
	formatStreamJSON = "stream-json"
)

// Lines of the stream-json output, in Claude Code's shapes so that tools written for
// `claude -p --output-format stream-json` read them.

type initLine struct {
	Type           string   `json:"type"`
	Subtype        string   `json:"subtype"`
	Cwd            string   `json:"cwd"`
	SessionID      string   `json:"session_id"`
	Tools          []string `json:"tools"`
	MCPServers     []string `json:"mcp_servers"`
	Model          string   `json:"model"`
	Provider       string   `json:"provider"`
	PermissionMode string   `json:"permissionMode"`
	UUID           string   `json:"uuid"`
}

type apiMessage struct {
	ID           string          `json:"id"`
	Type         string          `json:"type"`
	Role         llm.Role        `json:"role"`
	Model        string          `json:"model"`
	Content      []llm.Block     `json:"content"`
	StopReason   *llm.StopReason `json:"stop_reason"`
	StopSequence *string         `json:"stop_sequence"`
	Usage        llm.Usage       `json:"usage"`
}

type messageLine struct {
	Type            string  `json:"type"`
	Message         any     `json:"message"`
	ParentToolUseID *string `json:"parent_tool_use_id"`
	SessionID       string  `json:"session_id"`
	UUID            string  `json:"uuid"`
}

type progressLine struct {
	Type            string  `json:"type"`
	ToolUseID       string  `json:"tool_use_id"`
	ToolName        string  `json:"tool_name"`
	ParentToolUseID *string `json:"parent_tool_use_id"`
	ElapsedSeconds  float64 `json:"elapsed_time_seconds"`
	Message         string  `json:"message,omitempty"`
	Data            any     `json:"data,omitempty"`
	SessionID       string  `json:"session_id"`
	UUID            string  `json:"uuid"`
}

type resultUsage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

type resultLine struct {
	Type          string  `json:"type"`
	Subtype       string  `json:"subtype"`
	IsError       bool    `json:"is_error"`
	DurationMS    int64   `json:"duration_ms"`
	DurationAPIMS int64   `json:"duration_api_ms"`
	NumTurns      int     `json:"num_turns"`
	Result        *string `json:"result,omitempty"`
	SessionID     string  `json:"session_id"`
	// TotalCostUSD is absent when the model's prices are unknown (local and
	// OpenAI-compatible models).
	TotalCostUSD      *float64       `json:"total_cost_usd,omitempty"`
	Usage             resultUsage    `json:"usage"`
	PermissionDenials []agent.Denial `json:"permission_denials"`
	Errors            []string       `json:"errors,omitempty"`
	UUID              string         `json:"uuid"`
}

func newResultLine(res *agent.Result, sessionID string) resultLine {
	l := resultLine{
		Type:          "result",
		Subtype:       res.Subtype,
		IsError:       res.IsError,
		DurationMS:    res.Duration.Milliseconds(),
		DurationAPIMS: res.APIDuration.Milliseconds(),
		NumTurns:      res.NumTurns,
		SessionID:     sessionID,
		Usage: resultUsage{
			InputTokens:              res.Usage.InputTokens,
			CacheCreationInputTokens: res.Usage.CacheCreationInputTokens,
			CacheReadInputTokens:     res.Usage.CacheReadInputTokens,
			OutputTokens:             res.Usage.OutputTokens,
		},
		PermissionDenials: res.PermissionDenials,
		UUID:              session.NewID(),
	}
	if l.PermissionDenials == nil {
		l.PermissionDenials = []agent.Denial{}
	}
	if res.Subtype == agent.SubtypeSuccess {
		text := res.Text
		l.Result = &text
	}
	if res.CostKnown {
		c := res.CostUSD
		l.TotalCostUSD = &c
	}
	if res.Err != nil {
		l.Errors = []string{res.Err.Error()}
	}
	return l
}

// streamWriter writes the stream-json lines of a run's events. It runs on the bus's subscriber
// goroutine; the result line is written by the command after the run, so that it is always
// last.
type streamWriter struct {
	mu        sync.Mutex
	enc       *json.Encoder
	sessionID string
	// tools remembers each tool_use's name and start, for progress lines.
	tools map[string]toolStart
	err   error
	// includeHooks writes hook lines (--include-hook-events).
	includeHooks bool
}

type toolStart struct {
	name  string
	start time.Time
}

func newStreamWriter(w io.Writer, sessionID string) *streamWriter {
	return &streamWriter{enc: newJSONLines(w), sessionID: sessionID, tools: map[string]toolStart{}}
}

func (s *streamWriter) write(v any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = s.enc.Encode(v)
	}
}

func (s *streamWriter) handle(ev agent.Event) {
	// Events of a sub-agent carry the id of the Agent call that runs it.
	var parent *string
	if ev.ParentToolUseID != "" {
		parent = &ev.ParentToolUseID
	}
	switch ev.Type {
	case agent.EventAssistant:
		r := ev.Response
		stop := r.StopReason
		msg := apiMessage{ID: r.ID, Type: "message", Role: llm.RoleAssistant, Model: r.Model,
			Content: r.Message.Content, StopReason: &stop, Usage: r.Usage}
		if msg.Content == nil {
			msg.Content = []llm.Block{}
		}
		now := time.Now()
		s.mu.Lock()
		for _, u := range r.Message.ToolUses() {
			s.tools[u.ID] = toolStart{name: u.Name, start: now}
		}
		s.mu.Unlock()
		s.write(messageLine{Type: "assistant", Message: msg, ParentToolUseID: parent, SessionID: s.sessionID, UUID: session.NewID()})
	case agent.EventToolResults:
		s.write(messageLine{Type: "user", Message: ev.Message, ParentToolUseID: parent, SessionID: s.sessionID, UUID: session.NewID()})
	case agent.EventHook, agent.EventHookMessage:
		if s.includeHooks {
			s.handleHook(ev)
		}
	case agent.EventProgress:
		s.mu.Lock()
		ts := s.tools[ev.ToolUseID]
		s.mu.Unlock()
		s.write(progressLine{Type: "tool_progress", ToolUseID: ev.ToolUseID, ToolName: ts.name, ParentToolUseID: parent,
			ElapsedSeconds: time.Since(ts.start).Seconds(), Message: ev.Progress.Message, Data: ev.Progress.Data,
			SessionID: s.sessionID, UUID: session.NewID()})
	}
}
