package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/session"
	"github.com/reinsdev/reins/settings"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools/agenttool"
	"github.com/reinsdev/reins/tools/bash"
	"github.com/reinsdev/reins/tools/web"
)

type agentOptions struct {
	perm               permFlags
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
	hooks              hookOptions
}

const agentHelp = `Run the agent headless with -p: reins -p "fix the failing test". The prompt is the
arguments after the flags, or standard input when there are none (echo "…" | reins -p).
Standard input that is piped in is added after a prompt given as arguments.

Every tool call goes through the permission engine. Nobody can answer a permission prompt in
a headless run, so a call that would ask is denied: the model is told why, and the run's
result lists the denials. Use --allowedTools, --permission-mode or settings to grant more.

The provider and model come from --provider/--model, else the "provider"/"model" keys of the
settings files, else the environment (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, OPENAI_API_KEY,
OPENAI_BASE_URL, REINS_MODEL); with none of these, a local Ollama is used if one answers.

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
  reins -p --output-format stream-json --allowedTools "Bash(go test:*)" "make the tests pass"
  git diff | reins -p "review this change"
  reins -p --continue "now update the docs"`
	root.Args = cobra.ArbitraryArgs
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if !opts.print && len(args) > 0 {
			return unknownCommand(cmd, args[0], fmt.Sprintf("(to run a prompt, use reins -p %q)", strings.Join(args, " ")))
		}
		if !opts.print && f.IsTerminal() {
			return cmd.Help()
		}
		prompt, err := readPrompt(f, args)
		if err != nil {
			return err
		}
		if prompt == "" {
			if !opts.print {
				return cmd.Help()
			}
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
	fl.BoolVar(&opts.verbose, "verbose", false, "accepted for compatibility with Claude Code; stream-json is always complete")
	opts.perm.register(root)
	opts.hooks.register(root)
	opts.mcp.register(root)
	// Claude Code accepts both spellings of its camel-case flags.
	fl.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		switch name {
		case "allowed-tools":
			name = "allowedTools"
		case "disallowed-tools":
			name = "disallowedTools"
		}
		return pflag.NormalizedName(name)
	})
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
	if opts.continueLast && opts.resume != "" {
		return usageErrorf("--continue and --resume cannot be used together")
	}
	if opts.maxTurns < 0 {
		return usageErrorf("--max-turns must not be negative")
	}
	env, err := opts.perm.loadForRun(f)
	if err != nil {
		return err
	}
	for _, w := range env.warnings {
		fmt.Fprintf(f.ErrOut, "reins: warning: %s\n", w)
	}
	cwd := env.pc.OriginalCwd()

	// Restore the session before anything else, so that a bad id fails fast.
	store := session.NewStore(env.opts.ConfigDir)
	var transcript *session.Transcript
	switch {
	case opts.continueLast:
		id, err := store.Latest(cwd)
		if err != nil {
			return fmt.Errorf("--continue: %w", err)
		}
		if transcript, err = store.Load(cwd, id); err != nil {
			return err
		}
	case opts.resume != "":
		if transcript, err = store.Load(cwd, opts.resume); err != nil {
			return fmt.Errorf("--resume: %w", err)
		}
	}
	pc := env.pc
	if transcript != nil {
		if transcript.Skipped > 0 {
			fmt.Fprintf(f.ErrOut, "reins: warning: %d unreadable line(s) of session %s were skipped\n", transcript.Skipped, transcript.ID)
		}
		if transcript.Permissions != nil {
			keep := opts.perm.mode != "" || opts.perm.dangerouslySkip
			if pc, err = transcript.Permissions.Restore(pc, keep); err != nil {
				return err
			}
			if err := refuseRootBypass(f, pc, "the resumed session"); err != nil {
				return err
			}
		}
	}

	choice, err := resolveProvider(ctx, f, opts.provider, opts.model, env.loaded)
	if err != nil {
		return err
	}

	var rec *session.Writer
	if transcript != nil {
		rec, err = store.Reopen(transcript)
	} else {
		rec, err = store.Create(cwd, choice.model)
	}
	if err != nil {
		return err
	}
	defer rec.Close()
	if err := rec.AppendPermissions(agent.StateOf(pc)); err != nil {
		return err
	}

	perms := agent.NewPermissions(pc, func(_ context.Context, updates []permission.Update) error {
		return settings.Persist(env.opts, updates...)
	})
	defs, defWarnings, err := loadAgentDefs(env, opts.agents)
	if err != nil {
		return err
	}
	for _, w := range defWarnings {
		fmt.Fprintf(f.ErrOut, "reins: warning: %s\n", w)
	}
	sb, err := startSandbox(ctx, f, env, pc)
	if err != nil {
		return err
	}
	if sb != nil {
		defer sb.Close()
		defer printViolations(f.ErrOut, sb)
	}
	pool := newAgentPool(f, pc, perms, web.ModelSummarizer{Provider: choice.provider, Model: smallModel(f, env.loaded, choice)}, sb)
	defer pool.Close()

	var dirs []string
	for _, d := range pc.AdditionalDirs() {
		dirs = append(dirs, d.Path)
	}
	penv := promptEnv{
		Cwd: cwd, Dirs: dirs, Platform: runtime.GOOS, Date: time.Now(), Git: isGitRepo(cwd),
		Mode: pc.Mode(), Append: opts.appendSystemPrompt,
	}
	bus := &agent.Bus{}
	if f.Debug != nil {
		f.debugf("provider", "name", choice.name, "model", choice.model)
		defer bus.Subscribe(debugEvents(f.Debug))()
	}
	hookRunner, err := newHookRunner(env, rec, bus)
	if err != nil {
		return err
	}
	var asker permission.Asker
	if hookRunner.Has(hooks.PermissionRequest) {
		asker = headlessHookAsker(hookRunner, perms)
	}
	pool.addAgentTool(f, subAgentConfig{
		defs: defs, choice: choice, perms: perms, bus: bus, env: penv, maxTurns: opts.maxTurns,
		hooks: hookRunner, asker: asker, backgroundAsker: asker,
		store: func(agentID string) (agenttool.Transcript, string, error) {
			w, err := store.CreateSidechain(rec, agentID, cwd, choice.model)
			if err != nil {
				return nil, "", err
			}
			return w, w.Path, nil
		},
	})
	// MCP tools (and ToolSearch when they are deferred) join after the Agent tool, in the pool
	// sub-agents draw from too.
	mcpSess, err := startMCP(ctx, f, env, pc, &opts.mcp)
	if err != nil {
		return err
	}
	defer mcpSess.Close()
	var deferral *tool.Deferral
	if pool.tools, deferral, err = mcpSess.extend(f, pc, pool.tools); err != nil {
		return err
	}
	system, err := systemPrompt(ctx, deferral.Sent(pool.tools), penv)
	if err != nil {
		return err
	}

	a := &agent.Agent{
		Provider:       choice.provider,
		Model:          choice.model,
		System:         system,
		Tools:          pool.tools,
		Deferral:       deferral,
		MaxTokens:      envInt(f, "REINS_MAX_OUTPUT_TOKENS"),
		MaxTurns:       opts.maxTurns,
		MaxConcurrency: cmp.Or(envInt(f, "REINS_MAX_TOOL_USE_CONCURRENCY"), envInt(f, "CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY")),
		Permissions:    perms,
		Env:            pool.env,
		Cwd:            pool.cwd,
		Recorder:       rec,
		Bus:            bus,
		Notices:        pool.notices,
		Hooks:          hookRunner,
		Asker:          asker,
	}

	var stream *streamWriter
	unsubscribe := func() {}
	if opts.outputFormat == formatStreamJSON {
		stream = newStreamWriter(f.Out, rec.ID)
		names := make([]string, len(pool.tools))
		for i, t := range pool.tools {
			names[i] = t.Name()
		}
		stream.write(initLine{Type: "system", Subtype: "init", Cwd: cwd, SessionID: rec.ID, Tools: names,
			MCPServers: mcpSess.serverNames(), Model: choice.model, Provider: choice.name, PermissionMode: string(pc.Mode()), UUID: session.NewID()})
		stream.includeHooks = opts.hooks.includeEvents
		unsubscribe = bus.Subscribe(stream.handle)
	}
	if stream == nil || !stream.includeHooks {
		prev, stopNotes := unsubscribe, printHookMessages(f, bus)
		unsubscribe = func() { prev(); stopNotes() }
	}
	a.System = sessionStart(ctx, hookRunner, bus, pc, transcript != nil, choice.model, a.System)

	var history []llm.Message
	if transcript != nil {
		history = transcript.Messages
	}
	res, runErr := a.Run(ctx, history, llm.UserText(prompt))
	sessionEnd(ctx, hookRunner, bus, perms)
	unsubscribe()
	pool.Close()

	switch opts.outputFormat {
	case formatStreamJSON:
		stream.write(newResultLine(res, rec.ID))
		if stream.err != nil {
			return fmt.Errorf("writing output: %w", stream.err)
		}
	case formatJSON:
		if err := newJSONLines(f.Out).Encode(newResultLine(res, rec.ID)); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
	default:
		if res.Subtype == agent.SubtypeSuccess {
			text := strings.TrimRight(res.Text, "\n")
			if _, err := fmt.Fprintln(f.Out, text); err != nil {
				return fmt.Errorf("writing output: %w", err)
			}
		}
		if n := len(res.PermissionDenials); n > 0 {
			fmt.Fprintf(f.ErrOut, "reins: %d tool call(s) were denied: %s (grant them with --allowedTools, --permission-mode or settings)\n",
				n, describeDenials(res.PermissionDenials))
		}
	}

	switch {
	case runErr != nil && ctx.Err() != nil:
		return finishWith(outcomeInterrupted, fmt.Errorf("interrupted; resume with: reins -p --resume %s", rec.ID))
	case runErr != nil:
		return runErr
	case res.Subtype == agent.SubtypeMaxTurns:
		return finishWith(outcomeMaxTurns, fmt.Errorf("reached the maximum number of turns (%d)", opts.maxTurns))
	}
	return nil
}

// describeDenials names the denied calls, e.g. "Bash(rm -rf build), Write".
func describeDenials(ds []agent.Denial) string {
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
		if arg := cmp.Or(in.Command, in.FilePath); arg != "" {
			parts = append(parts, fmt.Sprintf("%s(%s)", d.ToolName, truncate(arg, 60)))
		} else {
			parts = append(parts, d.ToolName)
		}
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

// envInt reads a positive integer from the environment; anything else is 0 (the default).
func envInt(f *Factory, name string) int {
	n, err := strconv.Atoi(strings.TrimSpace(f.Getenv(name)))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// agentPool is the tools of one run and the state they share.
type agentPool struct {
	tools []tool.Tool
	env   *tool.Env
	cwd   func() string
	close func() error

	// base is the built-ins before filtering, and shell runs Bash; the Agent tool is added to
	// base. sandbox, when set, confines every shell of the session, sub-agents' too.
	base    []tool.Tool
	shell   *bash.Shell
	sandbox bash.Sandbox
	// notices, when set, returns the completion notices of background sub-agents.
	notices func() []string
}

// Close ends what the tools started (background commands). It may be called more than once.
func (p *agentPool) Close() error {
	if p.close == nil {
		return nil
	}
	return p.close()
}
