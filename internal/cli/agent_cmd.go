package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/sdkproto"
	"github.com/reinsdev/reins/llm"
)

type agentOptions struct {
	// chat is set by the interactive mode: it keeps file checkpoints for /rewind.
	chat               bool
	perm               permFlags
	worktree           worktreeFlag
	mcp                mcpFlags
	print              bool
	outputFormat       string
	model              string
	provider           string
	maxTurns           int
	appendSystemPrompt string
	continueLast       bool
	resume             string
	verbose            bool
	agents             string
	pluginDirs         []string
	// initPlugins are the plugin folders of the initialize request read at launch
	// (--await-initialize).
	initPlugins []string
	hooks       hookOptions
	sdk         sdkFlags
}

const agentHelp = `In a terminal, reins with no -p opens the interactive mode: a full-screen chat whose
permission dialog answers every ask (see docs/cli.md; /help inside lists its commands and
keys). Without a terminal it exits with 2: use -p.

Run the agent headless with -p: reins -p "fix the failing test". The prompt is the
arguments after the flags, or standard input when there are none (echo "…" | reins -p).
Standard input that is piped in is added after a prompt given as arguments.

Every tool call goes through the permission engine. Nobody can answer a permission prompt in
a headless run, so a call that would ask is denied: the model is told why, and the run's
result lists the denials. Use --allowedTools, --permission-mode or settings to grant more.

The provider and model come from --provider/--model, else the "provider"/"model" keys of the
settings files, else the environment (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, OPENAI_API_KEY,
OPENAI_BASE_URL, REINS_MODEL); with none of these, a local Ollama is used if one answers.

The Claude Agent SDKs can drive reins as their CLI (pathToClaudeCodeExecutable): with
--input-format stream-json --output-format stream-json, reins reads user messages and control
requests as JSON lines on standard input for one whole conversation, and with
--permission-prompt-tool stdio the SDK's canUseTool answers the asks.

Every conversation is saved under ~/.reins/projects/<cwd>/<session id>.jsonl as it happens;
--continue resumes the latest one of this folder, --resume ID a given one, with its
messages, permission mode and session rules.

Exit codes (the same scheme for every command; see docs/cli.md):
  0    the run succeeded
  1    the run failed: model API error, tool execution aborted the run, no provider
       configured, an invalid settings file, or any other error
  2    usage: an unknown command, flag or value, no prompt, --continue and --resume together
  7    the run stopped at --max-turns before the model finished
  130  interrupted (Ctrl-C, SIGTERM); the conversation so far is saved`

// addAgentCommands makes the root command run the agent (`reins -p`).
func addAgentCommands(f *Factory, root *cobra.Command) {
	opts := &agentOptions{}
	root.Long = strings.TrimSpace(root.Long) + "\n\n" + agentHelp
	root.Example = `  reins -p "explain what this repository does"
  reins -p --allowedTools "Bash(go test:*)" --output-format stream-json "make the tests pass"
  git diff | reins -p "review this change"
  reins -p --continue "now update the docs"`
	root.Args = cobra.ArbitraryArgs
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if err := opts.sdk.validate(cmd, opts); err != nil {
			return err
		}
		if opts.sdk.inputFormat == inputStreamJSON {
			// The Agent SDK's protocol: no -p and no prompt; turns arrive on standard input.
			if len(args) > 0 {
				return usageErrorf("--input-format stream-json takes its prompts on standard input, not as arguments")
			}
			return runSDK(cmd.Context(), f, opts)
		}
		if !opts.print {
			if !f.IsTerminal() {
				if len(args) > 0 {
					return unknownCommand(cmd, args[0], fmt.Sprintf("(to run a prompt, use reins -p %q)", strings.Join(args, " ")))
				}
				return usageErrorf("the interactive mode needs a terminal; to run headless, use reins -p \"…\" (or pipe the prompt: echo \"…\" | reins -p)")
			}
			// In a terminal, arguments are the first message of the chat, as in Claude Code;
			// a command name one letter off is a typo, not a message.
			if nearMissCommand(cmd, args) {
				return unknownCommand(cmd, args[0], fmt.Sprintf("(to start the chat with it as the first message, quote it: reins %q)", strings.Join(args, " ")))
			}
			return runInteractive(cmd.Context(), f, opts, strings.TrimSpace(strings.Join(args, " ")))
		}
		prompt, err := readPrompt(f, args)
		if err != nil {
			return err
		}
		if prompt == "" {
			return usageErrorf("no prompt: give it after the flags (reins -p \"…\") or on standard input%s", listFlagHint(opts.perm))
		}
		return runAgent(cmd.Context(), f, opts, prompt)
	}

	fl := root.Flags()
	fl.BoolVarP(&opts.print, "print", "p", false, "run headless: answer the prompt and exit")
	fl.StringVar(&opts.outputFormat, "output-format", formatText, "with -p: text, json (one result object) or stream-json (one JSON object per line)")
	fl.StringVar(&opts.model, "model", "", "the model, e.g. claude-sonnet-4-5, sonnet, gpt-4.1, qwen3")
	fl.StringVar(&opts.provider, "provider", "", "the model API: anthropic, openai (or any OpenAI-compatible server) or ollama")
	fl.IntVar(&opts.maxTurns, "max-turns", 0, "stop after this many model replies (0, the default: no limit)")
	fl.StringVar(&opts.appendSystemPrompt, "append-system-prompt", "", "text added to the end of the system prompt")
	fl.BoolVarP(&opts.continueLast, "continue", "c", false, "continue the most recent conversation of this folder")
	fl.StringVarP(&opts.resume, "resume", "r", "", "resume the conversation with this session id")
	fl.StringVar(&opts.agents, "agents", "", `custom sub-agents as JSON: {"name": {"description": "…", "prompt": "…", "tools": ["Read"]}}`)
	fl.StringArrayVar(&opts.pluginDirs, "plugin-dir", nil, "load the plugin in this folder (its .claude-plugin/plugin.json) for this session; repeatable")
	fl.BoolVar(&opts.verbose, "verbose", false, "with --output-format json: print every message as a JSON array, not only the result")
	opts.perm.register(root)
	opts.hooks.register(root)
	opts.mcp.register(root)
	opts.sdk.register(root)
	opts.worktree.register(root)
}

// readPrompt joins the arguments and, when it is not a terminal, standard input.
func readPrompt(f *Factory, args []string) (string, error) {
	prompt := strings.TrimSpace(strings.Join(args, " "))
	if f.IsTerminal() || (prompt != "" && !stdinHasData(f.In)) {
		return prompt, nil
	}
	data, err := readStdin(f)
	if err != nil {
		return "", err
	}
	in := strings.TrimSpace(string(data))
	switch {
	case in == "":
		return prompt, nil
	case prompt == "":
		return in, nil
	}
	return prompt + "\n\n" + in, nil
}

// stdinHasData reports whether r is standard input that was redirected from a pipe or a file,
// and so will reach its end. A character device (a terminal, /dev/null) or a socket left open by
// a parent is not read when a prompt was given as arguments, so reins cannot hang on it.
func stdinHasData(r io.Reader) bool {
	file, ok := r.(*os.File)
	if !ok {
		return true
	}
	fi, err := file.Stat()
	if err != nil {
		return false
	}
	m := fi.Mode()
	return m&os.ModeNamedPipe != 0 || m.IsRegular()
}

// runAgent runs one headless conversation turn and prints its outcome.
func runAgent(ctx context.Context, f *Factory, opts *agentOptions, prompt string) error {
	switch opts.outputFormat {
	case formatText, formatJSON, formatStreamJSON:
	default:
		return usageErrorf("invalid --output-format %q (valid formats: text, json, stream-json)", opts.outputFormat)
	}
	a, err := newSession(ctx, f, opts)
	if err != nil {
		return err
	}
	// Headless: the worktree is kept, and where it is is said, after Close.
	defer leaveWorktree(ctx, f, a, nil, false)
	defer a.Close()

	// stream-json writes each line as it happens; json collects them and prints the result
	// (with --verbose, every line as one array).
	var em *sdkproto.Emitter
	var collected *sdkproto.Collector
	unsubscribe := func() {}
	switch opts.outputFormat {
	case formatStreamJSON:
		em = &sdkproto.Emitter{W: sdkproto.NewConn(f.Out)}
	case formatJSON:
		collected = &sdkproto.Collector{}
		em = &sdkproto.Emitter{W: collected}
	}
	if em != nil {
		em.SessionID, em.Partial, em.MaxTurns, em.MaxBudgetUSD, em.MaxOutputTokens =
			a.Session.ID, opts.sdk.partial, opts.maxTurns, opts.sdk.maxBudgetUSD, a.Agent.MaxTokens
		if a.Structured != nil {
			em.Structured = a.Structured.Value
		}
		em.HookEvents = opts.hooks.includeEvents
		em.Mode = func() string { return string(a.Permissions.Context().Mode()) }
		em.Init(initInfo(f, a))
		unsubscribe = a.Bus.Subscribe(em.Handle)
	}
	// Text output names every denied call on standard error, the sub-agents' too, and prints
	// the hooks' messages (the json and stream-json outputs carry them as system/informational
	// lines).
	var subDenials sdkproto.SubagentDenials
	if em == nil {
		stop, stopNotes := a.Bus.Subscribe(subDenials.Observe), printHookMessages(f, a.Bus)
		unsubscribe = func() { stop(); stopNotes() }
	}
	a.StartSession(ctx)

	res, runErr := commandTurn(a, a.RunTurn)(ctx, a.Session.History, llm.UserText(prompt))
	// SessionEnd's messages are shown before the result; the tools' processes end with it.
	a.EndSession(ctx)
	unsubscribe()
	a.Pool.Close()

	switch opts.outputFormat {
	case formatStreamJSON:
		em.Result(res)
		if err := em.Err(); err != nil {
			return err
		}
	case formatJSON:
		em.Result(res)
		var v any = collected.Lines[len(collected.Lines)-1]
		if opts.verbose {
			v = collected.Lines
		}
		if err := newJSONLines(f.Out).Encode(v); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
	default:
		if res.Subtype == agent.SubtypeSuccess {
			text := strings.TrimRight(res.Text, "\n")
			if _, err := fmt.Fprintln(f.Out, text); err != nil {
				return fmt.Errorf("writing output: %w", err)
			}
		}
		if res.HookStop != nil {
			fmt.Fprintf(f.ErrOut, "reins: %s\n", res.HookStop)
		}
		if ds := sdkproto.AllDenials(res, subDenials.Take()); len(ds) > 0 {
			fmt.Fprintf(f.ErrOut, "reins: %d tool call(s) were denied: %s (grant them with --allowedTools, --permission-mode or settings)\n",
				len(ds), describeDenials(ds))
		}
	}

	switch {
	case runErr != nil && ctx.Err() != nil:
		return finishWith(outcomeInterrupted, fmt.Errorf("interrupted; resume with: reins -p --resume %s", a.Session.ID))
	case runErr != nil:
		return runErr
	case res.Subtype == agent.SubtypeMaxTurns:
		return finishWith(outcomeMaxTurns, fmt.Errorf("reached the maximum number of turns (%d)", opts.maxTurns))
	case res.Subtype == app.SubtypeMaxStructuredRetries:
		return res.Err
	case res.Subtype == agent.SubtypeMaxBudget:
		return fmt.Errorf("reached the maximum budget ($%g)", opts.sdk.maxBudgetUSD)
	}
	return nil
}

// describeDenials names the denied calls, e.g. "Bash(rm -rf build), Write, Bash(curl x) in
// sub-agent Explore (toolu_01)".
func describeDenials(ds []sdkproto.Denial) string {
	var parts []string
	for i, d := range ds {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(ds)-i))
			break
		}
		var in struct {
			Command  string `json:"command"`
			FilePath string `json:"file_path"`
		}
		json.Unmarshal(d.ToolInput, &in)
		part := d.ToolName
		if arg := cmp.Or(in.Command, in.FilePath); arg != "" {
			part = fmt.Sprintf("%s(%s)", d.ToolName, truncate(arg, 60))
		}
		if d.ParentToolUseID != "" {
			part += fmt.Sprintf(" in sub-agent %s (%s)", cmp.Or(d.AgentType, "of unknown type"), d.ParentToolUseID)
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, ", ")
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
