package cli

import (
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/session"
)

// The --input-format values.
const (
	inputText       = "text"
	inputStreamJSON = "stream-json"
)

// promptToolStdio is the --permission-prompt-tool value that sends asks to the SDK caller.
const promptToolStdio = "stdio"

// sdkFlags are the flags the Claude Agent SDK passes to its CLI (see docs/cli.md, "Driven by
// the Agent SDK"). Each is honoured or refused with an error; none is accepted and ignored.
type sdkFlags struct {
	inputFormat   string
	promptTool    string
	partial       bool
	tools         string
	toolsSet      bool
	systemPrompt  string
	fallbackModel string
	maxBudgetUSD  float64
	sessionID     string
	fork          bool
	resumeAt      string
	noPersist     bool
	jsonSchema    string
	// maxThinkingTokens is --max-thinking-tokens, meaningful when thinkingSet.
	maxThinkingTokens int
	thinkingSet       bool
	// awaitInit is --await-initialize: the caller's first request is initialize, read before
	// the session starts (its mcpServers start with the session).
	awaitInit bool
}

func (sf *sdkFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&sf.inputFormat, "input-format", inputText, "text (the prompt) or stream-json (NDJSON user messages and control requests on standard input; the Agent SDK's protocol)")
	fl.StringVar(&sf.promptTool, "permission-prompt-tool", "", `who answers permission asks: "stdio" (the SDK caller's canUseTool) or the name of a tool, mcp__server__tool`)
	fl.BoolVar(&sf.partial, "include-partial-messages", false, "with stream-json output: also stream the model's message as it arrives (stream_event lines)")
	fl.StringVar(&sf.tools, "tools", "", `the built-in tools the model gets, comma-separated: "" for none, "default" for all`)
	fl.StringVar(&sf.systemPrompt, "system-prompt", "", "the system prompt, in place of Reins's own")
	fl.StringVar(&sf.fallbackModel, "fallback-model", "", "the model to switch to when the model is overloaded")
	fl.Float64Var(&sf.maxBudgetUSD, "max-budget-usd", 0, "stop once the estimated cost reaches this many dollars")
	fl.StringVar(&sf.sessionID, "session-id", "", "the id (a UUID) of the new session")
	fl.BoolVar(&sf.fork, "fork-session", false, "with --resume or --continue: continue in a new session, leaving the old one as it was")
	fl.StringVar(&sf.resumeAt, "resume-session-at", "", "with --resume or --continue: continue the conversation as it was at the message with this uuid (an assistant message's uuid in the stream-json output)")
	fl.BoolVar(&sf.noPersist, "no-session-persistence", false, "do not save the session to disk")
	fl.StringVar(&sf.jsonSchema, "json-schema", "", "a JSON schema: the run ends with the model's answer in this shape (structured_output)")
	fl.IntVar(&sf.maxThinkingTokens, "max-thinking-tokens", 0, "extended thinking with at most this many tokens of reasoning per reply (at least 1024; 0: none); over MAX_THINKING_TOKENS and alwaysThinkingEnabled")
	fl.BoolVar(&sf.awaitInit, "await-initialize", false, "with --input-format stream-json: read the caller's initialize request before starting (the MCP servers it carries start as --mcp-config ones); a prompt before it runs nothing")
	// --mcp-config and --strict-mcp-config, which the SDK passes too, are the MCP client's
	// (mcpFlags).
}

// validate checks the SDK flags against each other and the rest of opts.
func (sf *sdkFlags) validate(cmd *cobra.Command, opts *agentOptions) error {
	sf.toolsSet = cmd.Flags().Changed("tools")
	sf.thinkingSet = cmd.Flags().Changed("max-thinking-tokens")
	switch sf.inputFormat {
	case inputText, inputStreamJSON:
	default:
		return cmdutil.UsageErrorf("invalid --input-format %q (valid formats: text, stream-json)", sf.inputFormat)
	}
	if sf.inputFormat == inputStreamJSON && opts.outputFormat != formatStreamJSON {
		return cmdutil.UsageErrorf("--input-format stream-json requires --output-format stream-json")
	}
	if sf.awaitInit && sf.inputFormat != inputStreamJSON {
		return cmdutil.UsageErrorf("--await-initialize requires --input-format stream-json (the initialize request comes on standard input)")
	}
	if sf.partial && opts.outputFormat != formatStreamJSON {
		return cmdutil.UsageErrorf("--include-partial-messages requires --output-format stream-json")
	}
	switch {
	case sf.promptTool == "":
	case sf.promptTool == promptToolStdio:
		if sf.inputFormat != inputStreamJSON {
			return cmdutil.UsageErrorf("--permission-prompt-tool stdio requires --input-format stream-json (the caller answers on standard input)")
		}
	case !strings.HasPrefix(sf.promptTool, "mcp__"):
		return cmdutil.UsageErrorf("invalid --permission-prompt-tool %q: want stdio or the name of an MCP tool, mcp__server__tool", sf.promptTool)
	}
	if sf.maxBudgetUSD < 0 {
		return cmdutil.UsageErrorf("--max-budget-usd must not be negative")
	}
	if sf.sessionID != "" {
		if !session.ValidID(sf.sessionID) {
			return cmdutil.UsageErrorf("invalid --session-id %q: want a UUID", sf.sessionID)
		}
		if (opts.continueLast || opts.resume != "") && !sf.fork {
			return cmdutil.UsageErrorf("--session-id can only be used with --continue or --resume together with --fork-session")
		}
	}
	if sf.fork && !opts.continueLast && opts.resume == "" {
		return cmdutil.UsageErrorf("--fork-session requires --continue or --resume")
	}
	if sf.resumeAt != "" && !opts.continueLast && opts.resume == "" {
		return cmdutil.UsageErrorf("--resume-session-at requires --resume or --continue")
	}
	if sf.fallbackModel != "" && sf.fallbackModel == opts.model {
		return cmdutil.UsageErrorf("--fallback-model cannot be the same as --model")
	}
	return nil
}

// thinking is the --max-thinking-tokens budget, nil when the flag is not given.
func (sf *sdkFlags) thinking() *int {
	if !sf.thinkingSet {
		return nil
	}
	n := sf.maxThinkingTokens
	return &n
}

// toolNames are the tools --tools keeps: nil for all ("default" or no flag), none for "".
func (sf *sdkFlags) toolNames() []string {
	if !sf.toolsSet || strings.TrimSpace(sf.tools) == "default" {
		return nil
	}
	return append([]string{}, strings.FieldsFunc(sf.tools, func(r rune) bool { return r == ',' || r == ' ' })...)
}

// reinsVersion is the module version of the running binary ("dev" for a local build).
func reinsVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// apiKeySource names where the API key comes from, in Claude Code's terms: ANTHROPIC_API_KEY,
// apiKeyHelper, or none (a token, or no credential, is no API key).
func apiKeySource(p *app.Provider) string {
	switch {
	case p.Name != app.ProviderAnthropic:
		return "none"
	case p.Credential == "ANTHROPIC_API_KEY":
		return "ANTHROPIC_API_KEY"
	case strings.HasPrefix(p.Credential, "apiKeyHelper"):
		return "apiKeyHelper"
	}
	return "none"
}
