package telemetry

// The names Reins exports, in one place. Events and metrics carry Claude Code's names where
// Claude Code has the thing, so that dashboards made for it work; what only Reins knows (the
// deciding rule, its file and line, the pipeline step) is under reins.*. Spans follow the
// OpenTelemetry GenAI semantic conventions.

// Event names: the log record's event name and body are the prefixed name, its event.name
// attribute the short one, as Claude Code sends them.
const (
	eventPrefix       = "claude_code."
	eventUserPrompt   = "user_prompt"
	eventToolResult   = "tool_result"
	eventAPIRequest   = "api_request"
	eventAPIError     = "api_error"
	eventToolDecision = "tool_decision"
)

// Metric names.
const (
	metricSessions      = "claude_code.session.count"
	metricTokens        = "claude_code.token.usage"
	metricCost          = "claude_code.cost.usage"
	metricLines         = "claude_code.lines_of_code.count"
	metricCodeEdit      = "claude_code.code_edit_tool.decision"
	metricDecisions     = "reins.permission.decision.count"
	instrumentationName = "github.com/reinsdev/reins/telemetry"
)

// Attribute keys shared by events, metrics and spans.
const (
	attrSessionID  = "session.id"
	attrAppVersion = "app.version"
	attrPromptID   = "prompt.id"
	attrEventName  = "event.name"
	attrEventTime  = "event.timestamp"
	attrModel      = "model"
	attrToolName   = "tool_name"
	attrDecision   = "decision"
	attrSource     = "source"
	attrType       = "type"

	// Reins' own: why a call was allowed, asked or denied.
	attrReinsDecision   = "reins.decision"
	attrReinsReasonType = "reins.reason.type"
	attrReinsRule       = "reins.rule"
	attrReinsRuleSource = "reins.rule.source"
	attrReinsRuleOrigin = "reins.rule.origin"
	attrReinsStep       = "reins.step"
	attrReinsMode       = "reins.mode"
	attrReinsPolicy     = "reins.policy.version"
	attrReinsDecidedBy  = "reins.decided_by"
	attrReinsFrontEnd   = "reins.front_end"
	attrReinsHook       = "reins.hook"
	attrReinsSetting    = "reins.setting"
	attrReinsStage      = "reins.stage"
	attrReinsToolUseID  = "tool_use_id"
)

// GenAI semantic convention names of the spans.
const (
	spanInvokeAgent = "invoke_agent"
	spanChat        = "chat"
	spanExecuteTool = "execute_tool"

	genAIOperation    = "gen_ai.operation.name"
	genAIProvider     = "gen_ai.provider.name"
	genAIAgentName    = "gen_ai.agent.name"
	genAIConversation = "gen_ai.conversation.id"
	genAIReqModel     = "gen_ai.request.model"
	genAIReqMaxTokens = "gen_ai.request.max_tokens"
	genAIRespModel    = "gen_ai.response.model"
	genAIRespID       = "gen_ai.response.id"
	genAIFinish       = "gen_ai.response.finish_reasons"
	genAIInputTokens  = "gen_ai.usage.input_tokens"
	genAIOutputTokens = "gen_ai.usage.output_tokens"
	genAIToolName     = "gen_ai.tool.name"
	genAIToolCallID   = "gen_ai.tool.call.id"
	genAIToolType     = "gen_ai.tool.type"
	genAIToolArgs     = "gen_ai.tool.call.arguments"
	genAIInput        = "gen_ai.input.messages"
	errorType         = "error.type"
)
