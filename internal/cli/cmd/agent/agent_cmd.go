// Package agent is the root command's run: `reins` with its flags picks a mode — headless
// `-p` (here), the Agent SDK's stream-json protocol (cmd/agent/sdk) or the interactive chat
// (cmd/agent/chat) — and runs the agent in it.
package agent

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
	"github.com/reinsdev/reins/internal/cli/cmd/agent/chat"
	"github.com/reinsdev/reins/internal/cli/cmd/agent/sdk"
	"github.com/reinsdev/reins/internal/cli/cmd/agent/shared"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/internal/sdkproto"
	"github.com/reinsdev/reins/llm"
)

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

// AddAgentCommands makes the root command run the agent (`reins -p`). runF, when a test
// gives one, receives the parsed flags instead of a run.
func AddAgentCommands(f *cmdutil.Factory, root *cobra.Command, runF func(*shared.Options) error) {
	opts := &shared.Options{Factory: f}
	root.Long = strings.TrimSpace(root.Long) + "\n\n" + agentHelp
	root.Example = `  reins -p "explain what this repository does"
  reins -p --allowedTools "Bash(go test:*)" --output-format stream-json "make the tests pass"
  git diff | reins -p "review this change"
  reins -p --continue "now update the docs"`
	root.Args = cobra.ArbitraryArgs
	root.RunE = func(cmd *cobra.Command, args []string) error {
		opts.Args = args
		if err := opts.SDK.Validate(cmd, opts); err != nil {
			return err
		}
		if runF != nil {
			return runF(opts)
		}
		return agentRun(cmd.Context(), cmd, opts)
	}
	registerFlags(root, opts)
}

// agentRun runs the mode the flags ask for. root names the commands a mistyped argument may
// have meant.
func agentRun(ctx context.Context, root *cobra.Command, opts *shared.Options) error {
	f, args, cmd := opts.Factory, opts.Args, root
	if opts.SDK.InputFormat == shared.InputStreamJSON {
		// The Agent SDK's protocol: no -p and no prompt; turns arrive on standard input.
		if len(args) > 0 {
			return cmdutil.UsageErrorf("--input-format stream-json takes its prompts on standard input, not as arguments")
		}
		return sdk.RunSDK(ctx, f, opts)
	}
	if !opts.Print {
		if !f.IsTerminal() {
			if len(args) > 0 {
				return cmdutil.UnknownCommand(cmd, args[0], fmt.Sprintf("(to run a prompt, use reins -p %q)", strings.Join(args, " ")))
			}
			return cmdutil.UsageErrorf("the interactive mode needs a terminal; to run headless, use reins -p \"…\" (or pipe the prompt: echo \"…\" | reins -p)")
		}
		// In a terminal, arguments are the first message of the chat, as in Claude Code;
		// a command name one letter off is a typo, not a message.
		if cmdutil.NearMissCommand(cmd, args) {
			return cmdutil.UnknownCommand(cmd, args[0], fmt.Sprintf("(to start the chat with it as the first message, quote it: reins %q)", strings.Join(args, " ")))
		}
		return chat.RunInteractive(ctx, f, opts, strings.TrimSpace(strings.Join(args, " ")))
	}
	prompt, err := readPrompt(f, args)
	if err != nil {
		return err
	}
	if prompt == "" {
		return cmdutil.UsageErrorf("no prompt: give it after the flags (reins -p \"…\") or on standard input%s", listFlagHint(opts.Perm))
	}
	return runAgent(ctx, f, opts, prompt)
}

func registerFlags(root *cobra.Command, opts *shared.Options) {
	fl := root.Flags()
	fl.BoolVarP(&opts.Print, "print", "p", false, "run headless: answer the prompt and exit")
	fl.StringVar(&opts.OutputFormat, "output-format", shared.FormatText, "with -p: text, json (one result object) or stream-json (one JSON object per line)")
	fl.StringVar(&opts.Model, "model", "", "the model, e.g. claude-sonnet-4-5, sonnet, gpt-4.1, qwen3")
	fl.StringVar(&opts.Provider, "provider", "", "the model API: anthropic, openai (or any OpenAI-compatible server) or ollama")
	fl.IntVar(&opts.MaxTurns, "max-turns", 0, "stop after this many model replies (0, the default: no limit)")
	fl.StringVar(&opts.AppendSystemPrompt, "append-system-prompt", "", "text added to the end of the system prompt")
	fl.BoolVarP(&opts.ContinueLast, "continue", "c", false, "continue the most recent conversation of this folder")
	fl.StringVarP(&opts.Resume, "resume", "r", "", "resume the conversation with this session id")
	fl.StringVar(&opts.Agents, "agents", "", `custom sub-agents as JSON: {"name": {"description": "…", "prompt": "…", "tools": ["Read"]}}`)
	fl.StringArrayVar(&opts.PluginDirs, "plugin-dir", nil, "load the plugin in this folder (its .claude-plugin/plugin.json) for this session; repeatable")
	fl.BoolVar(&opts.Verbose, "verbose", false, "with --output-format json: print every message as a JSON array, not only the result")
	opts.Perm.Register(root)
	opts.Hooks.Register(root)
	opts.MCP.Register(root)
	opts.SDK.Register(root)
	opts.Worktree.Register(root)
}

// readPrompt joins the arguments and, when it is not a terminal, standard input.
func readPrompt(f *cmdutil.Factory, args []string) (string, error) {
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
func runAgent(ctx context.Context, f *cmdutil.Factory, opts *shared.Options, prompt string) error {
	switch opts.OutputFormat {
	case shared.FormatText, shared.FormatJSON, shared.FormatStreamJSON:
	default:
		return cmdutil.UsageErrorf("invalid --output-format %q (valid formats: text, json, stream-json)", opts.OutputFormat)
	}
	a, err := shared.NewSession(ctx, f, opts)
	if err != nil {
		return err
	}
	// Headless: the worktree is kept, and where it is is said, after Close.
	defer shared.LeaveWorktree(ctx, f, a, nil, false)
	defer a.Close()

	// stream-json writes each line as it happens; json collects them and prints the result
	// (with --verbose, every line as one array).
	var em *sdkproto.Emitter
	var collected *sdkproto.Collector
	unsubscribe := func() {}
	switch opts.OutputFormat {
	case shared.FormatStreamJSON:
		em = &sdkproto.Emitter{W: sdkproto.NewConn(f.Out)}
	case shared.FormatJSON:
		collected = &sdkproto.Collector{}
		em = &sdkproto.Emitter{W: collected}
	}
	if em != nil {
		em.SessionID, em.Partial, em.MaxTurns, em.MaxBudgetUSD, em.MaxOutputTokens =
			a.Session.ID, opts.SDK.Partial, opts.MaxTurns, opts.SDK.MaxBudgetUSD, a.Agent.MaxTokens
		if a.Structured != nil {
			em.Structured = a.Structured.Value
		}
		em.HookEvents = opts.Hooks.IncludeEvents
		em.Mode = func() string { return string(a.Permissions.Context().Mode()) }
		em.Init(sdk.InitInfo(f, a))
		unsubscribe = a.Bus.Subscribe(em.Handle)
	}
	// Text output names every denied call on standard error, the sub-agents' too, and prints
	// the hooks' messages (the json and stream-json outputs carry them as system/informational
	// lines).
	var subDenials sdkproto.SubagentDenials
	if em == nil {
		stop, stopNotes := a.Bus.Subscribe(subDenials.Observe), shared.PrintHookMessages(f, a.Bus)
		unsubscribe = func() { stop(); stopNotes() }
	}
	a.StartSession(ctx)

	res, runErr := shared.CommandTurn(a, a.RunTurn)(ctx, a.Session.History, llm.UserText(prompt))
	// SessionEnd's messages are shown before the result; the tools' processes end with it.
	a.EndSession(ctx)
	unsubscribe()
	a.Pool.Close()

	switch opts.OutputFormat {
	case shared.FormatStreamJSON:
		em.Result(res)
		if err := em.Err(); err != nil {
			return err
		}
	case shared.FormatJSON:
		em.Result(res)
		var v any = collected.Lines[len(collected.Lines)-1]
		if opts.Verbose {
			v = collected.Lines
		}
		if err := cmdutil.NewJSONLines(f.Out).Encode(v); err != nil {
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
		return cmdutil.FinishWith(cmdutil.OutcomeInterrupted, fmt.Errorf("interrupted; resume with: reins -p --resume %s", a.Session.ID))
	case runErr != nil:
		return runErr
	case res.Subtype == agent.SubtypeMaxTurns:
		return cmdutil.FinishWith(cmdutil.OutcomeMaxTurns, fmt.Errorf("reached the maximum number of turns (%d)", opts.MaxTurns))
	case res.Subtype == app.SubtypeMaxStructuredRetries:
		return res.Err
	case res.Subtype == agent.SubtypeMaxBudget:
		return fmt.Errorf("reached the maximum budget ($%g)", opts.SDK.MaxBudgetUSD)
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
			part = fmt.Sprintf("%s(%s)", d.ToolName, cmdutil.Truncate(arg, 60))
		}
		if d.ParentToolUseID != "" {
			part += fmt.Sprintf(" in sub-agent %s (%s)", cmp.Or(d.AgentType, "of unknown type"), d.ParentToolUseID)
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, ", ")
}
