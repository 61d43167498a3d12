package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/session"
	"github.com/reinsdev/reins/tool"
)

// Exit codes of a headless run (`reins -p`), on top of exitOK, exitError, exitUsage and
// exitCancel. They are listed in the command's help and in docs/cli.md.
const exitMaxTurns = 3

// msgRootBypass is Claude Code's refusal, adapted.
const msgRootBypass = "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons (set IS_SANDBOX=1 inside a sandbox or container)"

type agentOptions struct {
	perm               permFlags
	print              bool
	outputFormat       string
	model              string
	provider           string
	maxTurns           int
	appendSystemPrompt string
	continueLast       bool
	resume             string
	verbose            bool
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

Every conversation is saved under ~/.reins/projects/<cwd>/<session id>.jsonl as it happens;
--continue resumes the latest one of this folder, --resume ID a given one, with its
messages, permission mode and session rules.

Exit codes:
  0    the run succeeded
  1    the run failed: model API error, tool execution aborted the run, no provider
       configured, an invalid settings file, or any other error
  2    usage: an unknown flag or value, no prompt, --continue and --resume together
  3    the run stopped at --max-turns before the model finished
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
		if !opts.print {
			if !f.IsTerminal() {
				if len(args) > 0 {
					return usageErrorf("unknown command %q for \"reins\" (to run a prompt, use reins -p %q)", args[0], strings.Join(args, " "))
				}
				return usageErrorf("the interactive mode needs a terminal; to run headless, use reins -p \"…\" (or pipe the prompt: echo \"…\" | reins -p)")
			}
			// In a terminal, arguments are the first message of the chat, as in Claude Code.
			return runInteractive(cmd.Context(), f, opts, strings.TrimSpace(strings.Join(args, " ")))
		}
		prompt, err := readPrompt(f, args)
		if err != nil {
			return err
		}
		if prompt == "" {
			return usageErrorf("no prompt: give it after the flags (reins -p \"…\") or on standard input")
		}
		return runAgent(cmd.Context(), f, opts, prompt)
	}

	fl := root.Flags()
	fl.BoolVarP(&opts.print, "print", "p", false, "run headless: answer the prompt and exit")
	fl.StringVar(&opts.outputFormat, "output-format", formatText, "with -p: text, json (one result object) or stream-json (one JSON object per line)")
	fl.StringVar(&opts.model, "model", "", "the model, e.g. claude-sonnet-4-5, sonnet, gpt-4.1, qwen3")
	fl.StringVar(&opts.provider, "provider", "", "the model API: anthropic, openai (or any OpenAI-compatible server) or ollama")
	fl.IntVar(&opts.maxTurns, "max-turns", 0, "stop after this many model replies (0: no limit)")
	fl.StringVar(&opts.appendSystemPrompt, "append-system-prompt", "", "text added to the end of the system prompt")
	fl.BoolVarP(&opts.continueLast, "continue", "c", false, "continue the most recent conversation of this folder")
	fl.StringVarP(&opts.resume, "resume", "r", "", "resume the conversation with this session id")
	fl.BoolVar(&opts.verbose, "verbose", false, "accepted for compatibility with Claude Code; stream-json is always complete")
	opts.perm.register(root)
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
	data, err := io.ReadAll(f.In)
	if err != nil {
		return "", fmt.Errorf("reading the prompt from standard input: %w", err)
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
	if opts.perm.dangerouslySkip && os.Geteuid() == 0 && f.Getenv("IS_SANDBOX") != "1" {
		return errors.New(msgRootBypass)
	}

	sess, err := openAgentSession(ctx, f, opts)
	if err != nil {
		return err
	}
	defer sess.Close()
	a, rec := sess.agent, sess.rec

	var stream *streamWriter
	unsubscribe := func() {}
	if opts.outputFormat == formatStreamJSON {
		stream = newStreamWriter(f.Out, rec.ID)
		names := make([]string, len(a.Tools))
		for i, t := range a.Tools {
			names[i] = t.Name()
		}
		stream.write(initLine{Type: "system", Subtype: "init", Cwd: sess.cwd, SessionID: rec.ID, Tools: names,
			MCPServers: []string{}, Model: sess.choice.model, Provider: sess.choice.name, PermissionMode: string(sess.pc.Mode()), UUID: session.NewID()})
		unsubscribe = a.Bus.Subscribe(stream.handle)
	}

	res, runErr := a.Run(ctx, sess.history, llm.UserText(prompt))
	unsubscribe()
	sess.pool.Close()

	switch opts.outputFormat {
	case formatStreamJSON:
		stream.write(newResultLine(res, rec.ID))
		if stream.err != nil {
			return fmt.Errorf("writing output: %w", stream.err)
		}
	case formatJSON:
		enc := json.NewEncoder(f.Out)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(newResultLine(res, rec.ID)); err != nil {
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
		return &exitCodeError{code: exitCancel, err: fmt.Errorf("interrupted; resume with: reins -p --resume %s", rec.ID)}
	case runErr != nil:
		return &exitCodeError{code: exitError, err: runErr}
	case res.Subtype == agent.SubtypeMaxTurns:
		return &exitCodeError{code: exitMaxTurns, err: fmt.Errorf("reached the maximum number of turns (%d)", opts.maxTurns)}
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
}

// Close ends what the tools started (background commands). It may be called more than once.
func (p *agentPool) Close() error {
	if p.close == nil {
		return nil
	}
	return p.close()
}
