// Package telemetry exports a session's events, metrics and traces over OpenTelemetry. It is the
// only package of Reins that imports OpenTelemetry: the agent sees it as an [agent.Observer],
// and the packages that start processes see a span only as the TRACEPARENT of package
// tracecontext.
//
// Telemetry is off unless CLAUDE_CODE_ENABLE_TELEMETRY (or REINS_ENABLE_TELEMETRY) is 1, and
// then each signal goes only where its OTEL_*_EXPORTER says; [FromEnv] reads the variables and
// names every bad one. Off, [Start] returns a nil *Telemetry whose Observer is nil: the agent
// then calls nothing, and a turn costs what it cost before.
//
// The contract with a session: telemetry never slows or breaks it. Records are queued in bounded
// queues (2048 per signal) and exported in the background; a full queue drops (the SDK reports
// it, and it is counted); an OTLP export is tried once, within its timeout, never retried; the
// exporters connect on first use. [Telemetry.Shutdown] sends what is queued within a bound
// ([DefaultShutdownTimeout], 2 s) and reports what was sent and lost ([Report]).
//
// What a person typed and what tools were given stay out unless asked for:
// OTEL_LOG_USER_PROMPTS=1 adds the prompt's text, OTEL_LOG_TOOL_DETAILS=1 tool inputs and
// failure texts. Without them events carry lengths, names, decisions and rules only.
//
// Names (events, metrics, attributes, spans) are in names.go; docs/telemetry.md lists them.
package telemetry
