package sdkproto

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/session"
)

// LineWriter takes one output message at a time.
type LineWriter interface {
	WriteLine(v any) error
}

// Collector keeps the lines instead of writing them, for `--output-format json --verbose`,
// which prints them as one array at the end.
type Collector struct {
	mu    sync.Mutex
	Lines []any
}

// WriteLine keeps v.
func (c *Collector) WriteLine(v any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Lines = append(c.Lines, v)
	return nil
}

// InitInfo is what system/init reports about the session.
type InitInfo struct {
	Cwd            string
	Tools          []string
	Model          string
	Provider       string
	PermissionMode string
	// APIKeySource is "ANTHROPIC_API_KEY" or "apiKeyHelper" when one of them authenticates,
	// else "none".
	APIKeySource string
	Version      string
	// MCPServers are the configured MCP servers with their state.
	MCPServers []MCPServer
	// Agents are the agent types the Agent tool offers.
	Agents []string
	// Commands are the custom slash commands, after the built-in /compact.
	Commands []SlashCommand
	// Skills are the skills' names and Plugins the loaded plugins.
	Skills  []string
	Plugins []Plugin
}

// InitLine is the system/init message.
type InitLine struct {
	Type           string      `json:"type"`
	Subtype        string      `json:"subtype"`
	Cwd            string      `json:"cwd"`
	SessionID      string      `json:"session_id"`
	Tools          []string    `json:"tools"`
	MCPServers     []MCPServer `json:"mcp_servers"`
	Model          string      `json:"model"`
	Provider       string      `json:"provider"`
	PermissionMode string      `json:"permissionMode"`
	APIKeySource   string      `json:"apiKeySource"`
	Version        string      `json:"claude_code_version"`
	SlashCommands  []string    `json:"slash_commands"`
	OutputStyle    string      `json:"output_style"`
	Agents         []string    `json:"agents"`
	Skills         []string    `json:"skills"`
	Plugins        []Plugin    `json:"plugins"`
	UUID           string      `json:"uuid"`
}

// compactLine is the system/compact_boundary message: the conversation before it was
// replaced by a summary.
type compactLine struct {
	Type      string          `json:"type"`
	Subtype   string          `json:"subtype"`
	Metadata  compactMetadata `json:"compact_metadata"`
	SessionID string          `json:"session_id"`
	UUID      string          `json:"uuid"`
}

type compactMetadata struct {
	Trigger    string `json:"trigger"`
	PreTokens  int    `json:"pre_tokens"`
	PostTokens int    `json:"post_tokens"`
	DurationMS int64  `json:"duration_ms"`
}

// MCPServer is one server's entry in system/init and mcp_status.
type MCPServer struct {
	Name   string `json:"name"`
	Status string `json:"status"`
}

// Plugin is one plugin's entry in system/init; reins has none.
type Plugin struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// apiMessage is an assistant message in the Messages API's shape.
type apiMessage struct {
	ID           string          `json:"id"`
	Type         string          `json:"type"`
	Role         llm.Role        `json:"role"`
	Model        string          `json:"model"`
	Content      []wireBlock     `json:"content"`
	StopReason   *llm.StopReason `json:"stop_reason"`
	StopSequence *string         `json:"stop_sequence"`
	Usage        llm.Usage       `json:"usage"`
}

// userMessage is a user message in the Messages API's shape.
type userMessage struct {
	Role    llm.Role    `json:"role"`
	Content []wireBlock `json:"content"`
}

type assistantLine struct {
	Type            string     `json:"type"`
	Message         apiMessage `json:"message"`
	ParentToolUseID *string    `json:"parent_tool_use_id"`
	SessionID       string     `json:"session_id"`
	UUID            string     `json:"uuid"`
	Timestamp       string     `json:"timestamp"`
}

type userLine struct {
	Type            string      `json:"type"`
	Message         userMessage `json:"message"`
	ParentToolUseID *string     `json:"parent_tool_use_id"`
	SessionID       string      `json:"session_id"`
	UUID            string      `json:"uuid"`
	Timestamp       string      `json:"timestamp"`
	// ToolUseResult is the tool's structured output, or the result's text when it has none.
	ToolUseResult any `json:"tool_use_result,omitempty"`
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

type deniedLine struct {
	Type               string  `json:"type"`
	ParentToolUseID    *string `json:"parent_tool_use_id,omitempty"`
	Subtype            string  `json:"subtype"`
	ToolName           string  `json:"tool_name"`
	ToolUseID          string  `json:"tool_use_id"`
	DecisionReasonType string  `json:"decision_reason_type,omitempty"`
	DecisionReason     string  `json:"decision_reason,omitempty"`
	// DecidedBy is Reins' own: who decided, with the signed policy's version (decidedby.go).
	DecidedBy *decidedByLine `json:"decided_by,omitempty"`
	Message   string         `json:"message"`
	SessionID string         `json:"session_id"`
	UUID      string         `json:"uuid"`
}

type streamEventLine struct {
	Type            string  `json:"type"`
	Event           any     `json:"event"`
	ParentToolUseID *string `json:"parent_tool_use_id"`
	SessionID       string  `json:"session_id"`
	UUID            string  `json:"uuid"`
}

// Usage is the result's usage, every field of the Messages API's usage present.
type Usage struct {
	InputTokens              int           `json:"input_tokens"`
	CacheCreationInputTokens int           `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int           `json:"cache_read_input_tokens"`
	OutputTokens             int           `json:"output_tokens"`
	ServerToolUse            serverToolUse `json:"server_tool_use"`
	ServiceTier              string        `json:"service_tier"`
	CacheCreation            cacheCreation `json:"cache_creation"`
}

type serverToolUse struct {
	WebSearchRequests int `json:"web_search_requests"`
	WebFetchRequests  int `json:"web_fetch_requests"`
}

type cacheCreation struct {
	Ephemeral1h int `json:"ephemeral_1h_input_tokens"`
	Ephemeral5m int `json:"ephemeral_5m_input_tokens"`
}

// ModelUsage is one model's share of a result, in the SDK's camel case.
type ModelUsage struct {
	InputTokens              int     `json:"inputTokens"`
	OutputTokens             int     `json:"outputTokens"`
	CacheReadInputTokens     int     `json:"cacheReadInputTokens"`
	CacheCreationInputTokens int     `json:"cacheCreationInputTokens"`
	WebSearchRequests        int     `json:"webSearchRequests"`
	CostUSD                  float64 `json:"costUSD"`
	ContextWindow            int     `json:"contextWindow"`
	MaxOutputTokens          int     `json:"maxOutputTokens"`
	// CostBasis is "list" for Anthropic's list prices, "unknown" for a model without one (its
	// cost is reported as 0).
	CostBasis string `json:"costBasis"`
}

// ResultLine is the last line of every turn.
type ResultLine struct {
	Type          string  `json:"type"`
	Subtype       string  `json:"subtype"`
	IsError       bool    `json:"is_error"`
	DurationMS    int64   `json:"duration_ms"`
	DurationAPIMS int64   `json:"duration_api_ms"`
	NumTurns      int     `json:"num_turns"`
	Result        *string `json:"result,omitempty"`
	StopReason    *string `json:"stop_reason"`
	SessionID     string  `json:"session_id"`
	// TotalCostUSD is 0 when the model's prices are unknown (local and OpenAI-compatible
	// models); modelUsage says so with costBasis "unknown".
	TotalCostUSD float64               `json:"total_cost_usd"`
	Usage        Usage                 `json:"usage"`
	ModelUsage   map[string]ModelUsage `json:"modelUsage"`
	// PermissionDenials lists the run's denied calls, its sub-agents' included.
	PermissionDenials []Denial `json:"permission_denials"`
	// StructuredOutput is the answer in the caller's schema (--json-schema).
	StructuredOutput any `json:"structured_output,omitempty"`
	// Errors is set on every error subtype (the SDK reads it unconditionally).
	Errors []string `json:"errors,omitempty"`
	// TerminalReason says why the turn ended (completed, hook_stopped, max_turns); absent
	// for a failure Claude Code has no reason for.
	TerminalReason string `json:"terminal_reason,omitempty"`
	UUID           string `json:"uuid"`
}

// Emitter turns a session's agent events into output lines. Handle is a bus subscriber; Result
// is called after each run, once the subscriber has drained, so the result is always last.
type Emitter struct {
	W         LineWriter
	SessionID string
	// Partial adds stream_event lines (--include-partial-messages).
	Partial bool
	// MaxTurns and MaxBudgetUSD word the errors of the limits.
	MaxTurns     int
	MaxBudgetUSD float64
	// MaxOutputTokens is reported in modelUsage.
	MaxOutputTokens int
	// Structured, if set, returns the run's structured output (--json-schema).
	Structured func() (any, bool)
	// HookEvents adds the hook runs' lines (hook_started, hook_response), as
	// --include-hook-events asks.
	HookEvents bool
	// Mode, if set, returns the session's permission mode: when a turn's calls changed it
	// (ExitPlanMode approved, EnterPlanMode) a system/status line says so.
	Mode func() string

	mu sync.Mutex
	// mode is the permission mode the caller was last told of.
	mode string
	err  error
	runs runState
	// sub gathers the sub-agents' denials for the result.
	sub SubagentDenials
}

// runState is what one run has produced so far.
type runState struct {
	stop   *string
	models map[string]*ModelUsage
	order  []string
	tools  map[string]toolStart
	// open is the stream of the assistant message being received, for partial messages, and
	// start what its message_start reported.
	open  *partialStream
	start *llm.Response
}

type toolStart struct {
	name  string
	start time.Time
}

type partialStream struct {
	blocks map[int]bool // text blocks started, by index
}

func nowStamp() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") }

func (e *Emitter) write(v any) {
	if err := e.W.WriteLine(v); err != nil {
		e.mu.Lock()
		if e.err == nil {
			e.err = err
		}
		e.mu.Unlock()
	}
}

// Err is the first write error.
func (e *Emitter) Err() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

// Init writes system/init.
func (e *Emitter) Init(info InitInfo) {
	tools := info.Tools
	if tools == nil {
		tools = []string{}
	}
	e.mu.Lock()
	e.mode = info.PermissionMode
	e.mu.Unlock()
	e.write(InitLine{Type: "system", Subtype: "init", Cwd: info.Cwd, SessionID: e.SessionID, Tools: tools,
		MCPServers: orEmpty(info.MCPServers), Model: info.Model, Provider: info.Provider, PermissionMode: info.PermissionMode,
		APIKeySource: cmp.Or(info.APIKeySource, "none"), Version: info.Version, SlashCommands: info.slashCommandNames(),
		OutputStyle: "default", Agents: orEmptyStrings(info.Agents), Skills: orEmptyStrings(info.Skills), Plugins: orEmpty(info.Plugins), UUID: session.NewID()})
}

// slashCommandNames are system/init's slash_commands: names without the slash, as Claude Code
// lists them.
func (info InitInfo) slashCommandNames() []string {
	out := []string{compactCommand.Name}
	for _, c := range info.Commands {
		out = append(out, c.Name)
	}
	return out
}

func orEmptyStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Handle writes the lines of one event. Events of a sub-agent carry the id of the Agent call
// that runs it, as parent_tool_use_id; only the main thread's text streams as partial
// messages and sets the result's stop_reason.
func (e *Emitter) Handle(ev agent.Event) {
	e.sub.Observe(ev)
	var parent *string
	if ev.ParentToolUseID != "" {
		parent = &ev.ParentToolUseID
	}
	switch ev.Type {
	case agent.EventTextDelta:
		if e.Partial && parent == nil {
			e.partialText(ev)
		}
	case agent.EventMessageStart:
		if e.Partial && parent == nil {
			e.messageStarted(ev.Response)
		}
	case agent.EventAssistant:
		e.assistant(ev.Response, ev.UUID, parent)
	case agent.EventUsage:
		// Auto mode's classifier: its tokens are the run's, in modelUsage as in usage.
		e.mu.Lock()
		e.addUsage(ev.Response.Model, ev.Response.Usage)
		e.mu.Unlock()
	case agent.EventPermissionDenied:
		d := ev.Denied
		l := deniedLine{Type: "system", Subtype: "permission_denied", ParentToolUseID: parent, ToolName: d.ToolName, ToolUseID: d.ToolUseID,
			Message: d.Message, SessionID: e.SessionID, UUID: session.NewID()}
		if d.Reason != nil {
			l.DecisionReasonType, l.DecisionReason = string(d.Reason.Type), d.Reason.String()
		}
		l.DecidedBy = decidedBy(d.By)
		e.write(l)
	case agent.EventToolResults:
		e.toolResults(ev.Message, ev.Outputs, ev.UUID, parent)
		if parent == nil {
			e.modeStatus()
		}
	case agent.EventCompact:
		if parent == nil {
			b := ev.Boundary
			e.write(compactLine{Type: "system", Subtype: "compact_boundary", SessionID: e.SessionID, UUID: session.NewID(),
				Metadata: compactMetadata{Trigger: b.Trigger, PreTokens: b.PreTokens, PostTokens: b.PostTokens, DurationMS: b.Duration.Milliseconds()}})
		}
	case agent.EventHookMessage:
		e.hookMessage(ev.Text)
	case agent.EventHook:
		if e.HookEvents {
			e.hook(ev)
		}
	case agent.EventProgress:
		e.mu.Lock()
		ts := e.runs.tools[ev.ToolUseID]
		e.mu.Unlock()
		e.write(progressLine{Type: "tool_progress", ToolUseID: ev.ToolUseID, ToolName: ts.name, ParentToolUseID: parent,
			ElapsedSeconds: time.Since(ts.start).Seconds(), Message: ev.Progress.Message, Data: ev.Progress.Data,
			SessionID: e.SessionID, UUID: session.NewID()})
	}
}

// statusLine is Claude Code's system/status message; Reins sends it when the permission
// mode changed.
type statusLine struct {
	Type           string  `json:"type"`
	Subtype        string  `json:"subtype"`
	Status         *string `json:"status"`
	PermissionMode string  `json:"permissionMode"`
	SessionID      string  `json:"session_id"`
	UUID           string  `json:"uuid"`
}

// modeStatus writes a system/status line when the permission mode is not the one the caller
// was last told of.
func (e *Emitter) modeStatus() {
	if e.Mode == nil {
		return
	}
	mode := e.Mode()
	e.mu.Lock()
	changed := mode != e.mode
	e.mode = mode
	e.mu.Unlock()
	if changed {
		e.write(statusLine{Type: "system", Subtype: "status", PermissionMode: mode, SessionID: e.SessionID, UUID: session.NewID()})
	}
}

// addUsage counts u in model's share of the run, under e.mu.
func (e *Emitter) addUsage(model string, u llm.Usage) {
	if e.runs.models == nil {
		e.runs.models = map[string]*ModelUsage{}
		e.runs.tools = map[string]toolStart{}
	}
	mu := e.runs.models[model]
	if mu == nil {
		mu = &ModelUsage{ContextWindow: contextWindow(model), MaxOutputTokens: cmp.Or(e.MaxOutputTokens, agent.DefaultMaxTokens), CostBasis: "list"}
		e.runs.models[model] = mu
		e.runs.order = append(e.runs.order, model)
	}
	mu.InputTokens += u.InputTokens
	mu.OutputTokens += u.OutputTokens
	mu.CacheReadInputTokens += u.CacheReadInputTokens
	mu.CacheCreationInputTokens += u.CacheCreationInputTokens
	if c, ok := agent.EstimateCost(model, u); ok {
		mu.CostUSD += c
	} else {
		mu.CostBasis = "unknown"
	}
}

// assistant writes the line of a reply, under the uuid its message is recorded with (a
// caller resumes up to it with --resume-session-at).
func (e *Emitter) assistant(r *llm.Response, uuid string, parent *string) {
	model := r.Model
	stop := r.StopReason
	now := time.Now()
	e.mu.Lock()
	if parent == nil {
		s := string(stop)
		e.runs.stop = &s
	}
	e.addUsage(model, r.Usage)
	for _, u := range r.Message.ToolUses() {
		e.runs.tools[u.ID] = toolStart{name: u.Name, start: now}
	}
	var open *partialStream
	var start *llm.Response
	if parent == nil {
		open, start = e.runs.open, e.runs.start
		e.runs.open, e.runs.start = nil, nil
	}
	e.mu.Unlock()

	if e.Partial && parent == nil {
		e.finishStream(open, start, r)
	}
	e.write(assistantLine{Type: "assistant", ParentToolUseID: parent, SessionID: e.SessionID, UUID: cmp.Or(uuid, session.NewID()), Timestamp: nowStamp(),
		Message: apiMessage{ID: r.ID, Type: "message", Role: llm.RoleAssistant, Model: model,
			Content: toWire(r.Message.Content), StopReason: &stop, Usage: r.Usage}})
}

// toolResults writes one user line per tool_result, as Claude Code does, each with the call's
// structured result. The first carries the uuid the message is recorded with.
func (e *Emitter) toolResults(m *llm.Message, outputs map[string]any, uuid string, parent *string) {
	for i, b := range m.Content {
		id := uuid
		if i > 0 || id == "" {
			id = session.NewID()
		}
		var result any
		if out, ok := outputs[b.ToolUseID]; ok {
			result = out
		} else if b.Type == llm.BlockToolResult {
			result = resultText(b)
		}
		e.write(userLine{Type: "user", Message: userMessage{Role: llm.RoleUser, Content: toWire([]llm.Block{b})}, ParentToolUseID: parent,
			SessionID: e.SessionID, UUID: id, Timestamp: nowStamp(), ToolUseResult: result})
	}
}

// resultText is the text of a tool_result, "Error: …" for an error as Claude Code reports it.
func resultText(b llm.Block) string {
	var parts []string
	for _, c := range b.Content {
		if c.Type == llm.BlockText {
			parts = append(parts, c.Text)
		}
	}
	s := strings.Join(parts, "\n")
	if b.IsError {
		return "Error: " + s
	}
	return s
}

// Result writes the run's result line and starts a new run.
func (e *Emitter) Result(res *agent.Result) {
	e.mu.Lock()
	st := e.runs
	e.runs = runState{}
	e.mu.Unlock()
	e.write(e.resultLine(res, st))
}

func (e *Emitter) resultLine(res *agent.Result, st runState) ResultLine {
	l := ResultLine{
		Type:          "result",
		Subtype:       res.Subtype,
		IsError:       res.IsError,
		DurationMS:    res.Duration.Milliseconds(),
		DurationAPIMS: res.APIDuration.Milliseconds(),
		NumTurns:      res.NumTurns,
		StopReason:    st.stop,
		SessionID:     e.SessionID,
		Usage: Usage{
			InputTokens:              res.Usage.InputTokens,
			CacheCreationInputTokens: res.Usage.CacheCreationInputTokens,
			CacheReadInputTokens:     res.Usage.CacheReadInputTokens,
			OutputTokens:             res.Usage.OutputTokens,
			ServiceTier:              "standard",
		},
		ModelUsage:        map[string]ModelUsage{},
		PermissionDenials: AllDenials(res, e.sub.Take()),
		TerminalReason:    res.TerminalReason,
		UUID:              session.NewID(),
	}
	for _, m := range st.order {
		l.ModelUsage[m] = *st.models[m]
	}
	if res.CostKnown {
		l.TotalCostUSD = res.CostUSD
	}
	switch res.Subtype {
	case agent.SubtypeSuccess:
		text := res.Text
		l.Result = &text
		if e.Structured != nil {
			if v, ok := e.Structured(); ok {
				l.StructuredOutput = v
			}
		}
	case agent.SubtypeMaxTurns:
		l.Errors = []string{fmt.Sprintf("Reached maximum number of turns (%d)", e.MaxTurns)}
	case agent.SubtypeMaxBudget:
		l.Errors = []string{fmt.Sprintf("Reached maximum budget ($%g)", e.MaxBudgetUSD)}
	default:
		l.Errors = []string{}
	}
	if res.Err != nil {
		l.Errors = append(l.Errors, res.Err.Error())
	}
	if l.IsError && len(l.Errors) == 0 {
		l.Errors = []string{l.Subtype}
	}
	return l
}

// contextWindow is the context size of Anthropic's current models; 0 (unknown) for others.
func contextWindow(model string) int {
	if strings.HasPrefix(model, "claude-") {
		return 200000
	}
	return 0
}

// wireBlock is a content block in the Messages API's shape: images carry a source.
type wireBlock struct {
	Type      llm.BlockType   `json:"type"`
	Text      *string         `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   []wireBlock     `json:"content,omitempty"`
	IsError   *bool           `json:"is_error,omitempty"`
	Source    *imageSource    `json:"source,omitempty"`
	// Thinking blocks as the API sends them: thinking and signature always present.
	Thinking  *string `json:"thinking,omitempty"`
	Signature *string `json:"signature,omitempty"`
	Data      string  `json:"data,omitempty"` // redacted_thinking
}

type imageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

func toWire(bs []llm.Block) []wireBlock {
	out := make([]wireBlock, 0, len(bs))
	for _, b := range bs {
		w := wireBlock{Type: b.Type}
		switch b.Type {
		case llm.BlockText:
			t := b.Text
			w.Text = &t
		case llm.BlockToolUse:
			w.ID, w.Name, w.Input = b.ID, b.Name, b.Input
		case llm.BlockToolResult:
			isErr := b.IsError
			w.ToolUseID, w.Content, w.IsError = b.ToolUseID, toWire(b.Content), &isErr
		case llm.BlockImage:
			w.Source = &imageSource{Type: "base64", MediaType: b.MediaType, Data: b.Data}
		case llm.BlockThinking:
			t, sig := b.Thinking, b.Signature
			w.Thinking, w.Signature = &t, &sig
		case llm.BlockRedactedThinking:
			w.Data = b.Data
		}
		out = append(out, w)
	}
	return out
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
