package shared

import (
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/app/provider"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/session"
)

// The --input-format values.
const (
	InputText       = "text"
	InputStreamJSON = "stream-json"
)

// PromptToolStdio is the --permission-prompt-tool value that sends asks to the SDK caller.
const PromptToolStdio = "stdio"

// SDKFlags are the flags the Claude Agent SDK passes to its CLI (see docs/cli.md, "Driven by
// the Agent SDK"). Each is honoured or refused with an error; none is accepted and ignored.
type SDKFlags struct {
	InputFormat   string
	PromptTool    string
	Partial       bool
	Tools         string
	ToolsSet      bool
	SystemPrompt  string
	FallbackModel string
	MaxBudgetUSD  float64
	SessionID     string
	Fork          bool
	ResumeAt      string
	NoPersist     bool
	JSONSchema    string
	// maxThinkingTokens is --max-thinking-tokens, meaningful when thinkingSet.
	MaxThinkingTokens int
	ThinkingSet       bool
	// awaitInit is --await-initialize: the caller's first request is initialize, read before
	// the session starts (its mcpServers start with the session).
	AwaitInit bool
}

func (sf *SDKFlags) Register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&sf.InputFormat, "input-format", InputText, "text (the prompt) or stream-json (NDJSON user messages and control requests on standard input; the Agent SDK's protocol)")
	fl.StringVar(&sf.PromptTool, "permission-prompt-tool", "", `who answers permission asks: "stdio" (the SDK caller's canUseTool) or the name of a tool, mcp__server__tool`)
	fl.BoolVar(&sf.Partial, "include-partial-messages", false, "with stream-json output: also stream the model's message as it arrives (stream_event lines)")
	fl.StringVar(&sf.Tools, "tools", "", `the built-in tools the model gets, comma-separated: "" for none, "default" for all`)
	fl.StringVar(&sf.SystemPrompt, "system-prompt", "", "the system prompt, in place of Reins's own")
	fl.StringVar(&sf.FallbackModel, "fallback-model", "", "the model to switch to when the model is overloaded")
	fl.Float64Var(&sf.MaxBudgetUSD, "max-budget-usd", 0, "stop once the estimated cost reaches this many dollars")
	fl.StringVar(&sf.SessionID, "session-id", "", "the id (a UUID) of the new session")
	fl.BoolVar(&sf.Fork, "fork-session", false, "with --resume or --continue: continue in a new session, leaving the old one as it was")
	fl.StringVar(&sf.ResumeAt, "resume-session-at", "", "with --resume or --continue: continue the conversation as it was at the message with this uuid (an assistant message's uuid in the stream-json output)")
	fl.BoolVar(&sf.NoPersist, "no-session-persistence", false, "do not save the session to disk")
	fl.StringVar(&sf.JSONSchema, "json-schema", "", "a JSON schema: the run ends with the model's answer in this shape (structured_output)")
	fl.IntVar(&sf.MaxThinkingTokens, "max-thinking-tokens", 0, "extended thinking with at most this many tokens of reasoning per reply (at least 1024; 0: none); over MAX_THINKING_TOKENS and alwaysThinkingEnabled")
	fl.BoolVar(&sf.AwaitInit, "await-initialize", false, "with --input-format stream-json: read the caller's initialize request before starting (the MCP servers it carries start as --mcp-config ones); a prompt before it runs nothing")
	// --mcp-config and --strict-mcp-config, which the SDK passes too, are the MCP client's
	// (mcpFlags).
}

// Validate checks the SDK flags against each other and the rest of opts.
func (sf *SDKFlags) Validate(cmd *cobra.Command, opts *Options) error {
	sf.ToolsSet = cmd.Flags().Changed("tools")
	sf.ThinkingSet = cmd.Flags().Changed("max-thinking-tokens")
	switch sf.InputFormat {
	case InputText, InputStreamJSON:
	default:
		return cmdutil.UsageErrorf("invalid --input-format %q (valid formats: text, stream-json)", sf.InputFormat)
	}
	if sf.InputFormat == InputStreamJSON && opts.OutputFormat != FormatStreamJSON {
		return cmdutil.UsageErrorf("--input-format stream-json requires --output-format stream-json")
	}
	if sf.AwaitInit && sf.InputFormat != InputStreamJSON {
		return cmdutil.UsageErrorf("--await-initialize requires --input-format stream-json (the initialize request comes on standard input)")
	}
	if sf.Partial && opts.OutputFormat != FormatStreamJSON {
		return cmdutil.UsageErrorf("--include-partial-messages requires --output-format stream-json")
	}
	switch {
	case sf.PromptTool == "":
	case sf.PromptTool == PromptToolStdio:
		if sf.InputFormat != InputStreamJSON {
			return cmdutil.UsageErrorf("--permission-prompt-tool stdio requires --input-format stream-json (the caller answers on standard input)")
		}
	case !strings.HasPrefix(sf.PromptTool, "mcp__"):
		return cmdutil.UsageErrorf("invalid --permission-prompt-tool %q: want stdio or the name of an MCP tool, mcp__server__tool", sf.PromptTool)
	}
	if sf.MaxBudgetUSD < 0 {
		return cmdutil.UsageErrorf("--max-budget-usd must not be negative")
	}
	if sf.SessionID != "" {
		if !session.ValidID(sf.SessionID) {
			return cmdutil.UsageErrorf("invalid --session-id %q: want a UUID", sf.SessionID)
		}
		if (opts.ContinueLast || opts.Resume != "") && !sf.Fork {
			return cmdutil.UsageErrorf("--session-id can only be used with --continue or --resume together with --fork-session")
		}
	}
	if sf.Fork && !opts.ContinueLast && opts.Resume == "" {
		return cmdutil.UsageErrorf("--fork-session requires --continue or --resume")
	}
	if sf.ResumeAt != "" && !opts.ContinueLast && opts.Resume == "" {
		return cmdutil.UsageErrorf("--resume-session-at requires --resume or --continue")
	}
	if sf.FallbackModel != "" && sf.FallbackModel == opts.Model {
		return cmdutil.UsageErrorf("--fallback-model cannot be the same as --model")
	}
	return nil
}

// thinking is the --max-thinking-tokens budget, nil when the flag is not given.
func (sf *SDKFlags) thinking() *int {
	if !sf.ThinkingSet {
		return nil
	}
	n := sf.MaxThinkingTokens
	return &n
}

// toolNames are the tools --tools keeps: nil for all ("default" or no flag), none for "".
func (sf *SDKFlags) toolNames() []string {
	if !sf.ToolsSet || strings.TrimSpace(sf.Tools) == "default" {
		return nil
	}
	return append([]string{}, strings.FieldsFunc(sf.Tools, func(r rune) bool { return r == ',' || r == ' ' })...)
}

// ReinsVersion is the module version of the running binary ("dev" for a local build).
func ReinsVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// APIKeySource names where the API key comes from, in Claude Code's terms: ANTHROPIC_API_KEY,
// apiKeyHelper, or none (a token, or no credential, is no API key).
func APIKeySource(p *provider.Provider) string {
	switch {
	case p.Name != provider.Anthropic:
		return "none"
	case p.Credential == "ANTHROPIC_API_KEY":
		return "ANTHROPIC_API_KEY"
	case strings.HasPrefix(p.Credential, "apiKeyHelper"):
		return "apiKeyHelper"
	}
	return "none"
}
