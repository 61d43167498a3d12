// Package tools holds `reins tools list` and `reins tool run`: the tool pool, and one tool
// call run through the whole pipeline outside a session.
package tools

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/toolcall"
	"github.com/reinsdev/reins/tools"
	"github.com/reinsdev/reins/tools/bash"
	"github.com/reinsdev/reins/tools/workflow"
)

// AddToolCommands registers `reins tools list` and `reins tool run`.
func AddToolCommands(f *cmdutil.Factory, root *cobra.Command) {
	toolsCmd := &cobra.Command{
		Use:   "tools",
		Short: "Show the built-in tools",
	}
	toolsCmd.AddCommand(newCmdToolsList(f, nil))
	toolCmd := &cobra.Command{
		Use:   "tool",
		Short: "Run one tool call through the whole pipeline",
	}
	toolCmd.AddCommand(newCmdToolRun(f, nil))
	root.AddCommand(toolsCmd, toolCmd)
}

// builtinTools builds every built-in tool for a command. shell may be nil for commands that
// run no command (nothing is started until a Bash call).
func builtinTools(f *cmdutil.Factory, shell *bash.Shell) *tools.Builtins {
	return tools.Base(tools.Options{Shell: shell, Getenv: f.Getenv})
}

// sessionState is the permission context of one `tool run`, which a call may change
// (EnterPlanMode, ExitPlanMode).
type sessionState struct {
	mu sync.Mutex
	pc *permission.Context
}

func (s *sessionState) get() *permission.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pc
}

func (s *sessionState) apply(updates ...permission.Update) (*permission.Context, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.pc.Apply(updates...)
	if err != nil {
		return nil, err
	}
	s.pc = n
	return n, nil
}

// ---- reins tools list ----

type toolsListOptions struct {
	f      *cmdutil.Factory
	perm   cmdutil.PermFlags
	mcp    cmdutil.MCPFlags
	asJSON bool
}

// ListedTool is one tool of `tools list`.
type ListedTool struct {
	Name    string   `json:"name"`
	Aliases []string `json:"aliases,omitempty"`
	Summary string   `json:"description"`
	// ReadOnly and ConcurrencySafe are evaluated for a minimal valid input; for Bash they
	// depend on the command.
	ReadOnly                bool `json:"readOnly"`
	ConcurrencySafe         bool `json:"concurrencySafe"`
	Destructive             bool `json:"destructive"`
	OpenWorld               bool `json:"openWorld"`
	Deferred                bool `json:"deferred"`
	Enabled                 bool `json:"enabled"`
	RequiresUserInteraction bool `json:"requiresUserInteraction"`
	MCP                     bool `json:"mcp"`
}

type removedTool struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

type ListResult struct {
	Tools   []ListedTool  `json:"tools"`
	Removed []removedTool `json:"removed"`
}

func newCmdToolsList(f *cmdutil.Factory, runF func(*toolsListOptions) error) *cobra.Command {
	opts := &toolsListOptions{f: f}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the tool pool in the order the model sees it, with each tool's flags",
		Long: `Lists the tools a session in this folder offers the model, in their final order
(built-ins sorted by name, as Claude Code sorts them, then the tools of the MCP servers, which
it starts), after REINS_SIMPLE and the tool-wide deny rules of every settings source and flag. Tools left out are listed with the reason.

Flags: read-only and concurrency-safe are evaluated for a minimal valid input (for Bash they
depend on the command); deferred tools are loaded on demand by a tool search; tools that
require user interaction always ask, even in bypassPermissions mode.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return toolsListRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.asJSON, "json", false, "print one JSON object")
	opts.perm.Register(cmd)
	opts.mcp.Register(cmd)
	return cmd
}

func toolsListRun(ctx context.Context, opts *toolsListOptions) error {
	f := opts.f
	env, err := opts.perm.Load(f)
	if err != nil {
		return err
	}
	// Every tool a session here can have, the Agent tool included, as a session's pool.
	defs, defWarnings, err := app.LoadAgentDefs(env, "")
	if err != nil {
		return err
	}
	for _, w := range defWarnings {
		f.Warn("%s", w)
	}
	catalog, base := app.Catalog(env.Context, defs, cmdutil.CatalogSkills(env), f.Getenv)
	defer catalog.Close()
	// The MCP servers start so that their tools are listed where the model sees them.
	sess, err := cmdutil.StartMCP(ctx, f, env, &opts.mcp)
	if err != nil {
		return err
	}
	defer sess.Close()
	pool, _, err := sess.Extend(env.Context, catalog.Tools, f.Getenv)
	if err != nil {
		return err
	}
	base = append(base, sess.Tools()...)
	res := ListResult{Tools: []ListedTool{}, Removed: []removedTool{}}
	for _, t := range pool {
		res.Tools = append(res.Tools, describeTool(t))
	}
	for _, t := range base {
		if _, ok := tools.Find(pool, t.Name()); ok {
			continue
		}
		res.Removed = append(res.Removed, removedTool{Name: t.Name(), Reason: removalReason(f, env.Context, t)})
	}
	sort.Slice(res.Removed, func(i, j int) bool { return tools.CompareNames(res.Removed[i].Name, res.Removed[j].Name) < 0 })
	if opts.asJSON {
		return cmdutil.WriteJSON(f.Out, res)
	}
	tw := tabwriter.NewWriter(f.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tREAD-ONLY\tCONCURRENCY-SAFE\tDEFERRED\tUSER-INTERACTION\tDESCRIPTION")
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "-"
	}
	for _, t := range res.Tools {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", t.Name, yes(t.ReadOnly), yes(t.ConcurrencySafe), yes(t.Deferred), yes(t.RequiresUserInteraction), t.Summary)
	}
	tw.Flush()
	for _, r := range res.Removed {
		fmt.Fprintf(f.Out, "not in the pool: %s (%s)\n", r.Name, r.Reason)
	}
	return nil
}

func describeTool(t tool.Tool) ListedTool {
	in := tool.SampleInput(t)
	return ListedTool{
		Name:                    t.Name(),
		Aliases:                 t.Spec().Aliases,
		Summary:                 t.Spec().Description,
		ReadOnly:                t.Is(tool.ReadOnly, in),
		ConcurrencySafe:         t.Is(tool.ConcurrencySafe, in),
		Destructive:             t.Is(tool.Destructive, in),
		OpenWorld:               t.Is(tool.OpenWorld, in),
		Deferred:                t.Spec().Defer,
		Enabled:                 t.IsEnabled(),
		RequiresUserInteraction: t.RequiresUserInteraction(),
		MCP:                     t.Spec().MCP,
	}
}

func removalReason(f *cmdutil.Factory, pc *permission.Context, t tool.Tool) string {
	if r := pc.ToolWideRule(permission.Deny, t.Name()); r != nil {
		return "denied by " + r.Describe()
	}
	if !t.IsEnabled() {
		if _, err := bash.FindShell(); t.Name() == "Bash" && err != nil {
			return "disabled: " + err.Error()
		}
		return "disabled"
	}
	if f.Getenv("REINS_SIMPLE") != "" {
		return "REINS_SIMPLE keeps only Bash, Read and Edit"
	}
	return "not offered to the model"
}

// ---- reins tool run ----

type toolRunOptions struct {
	f *cmdutil.Factory
	// name is the tool to run, the argument.
	name    string
	perm    cmdutil.PermFlags
	mcp     cmdutil.MCPFlags
	input   string
	session string
}

// RunResult is what `tool run` prints: the tool_result block, with the tool's structured output.
type RunResult struct {
	Type    string         `json:"type"`
	Tool    string         `json:"tool"`
	Content []tool.Content `json:"content"`
	IsError bool           `json:"is_error,omitempty"`
	Output  any            `json:"output,omitempty"`
}

func newCmdToolRun(f *cmdutil.Factory, runF func(*toolRunOptions) error) *cobra.Command {
	opts := &toolRunOptions{f: f}
	cmd := &cobra.Command{
		Use:   "run NAME --input JSON",
		Short: "Run one tool call: schema validation, ValidateInput, permission decision, call",
		Long: `Runs one call of a built-in tool in the current folder, the way the agent loop runs it:
the input is checked against the tool's schema, then by the tool itself, then the permission
engine decides with every settings source and the given flags, and only then the tool runs.

Progress goes to standard error; the tool_result goes to standard output as JSON. When the
decision is ask, the question is put to you if standard input is a terminal (y/n; the
questions themselves for AskUserQuestion); otherwise the call is refused with the ask message.

Each run is a fresh session unless --session ID names one: then what the tool learned of
files (which were read, and when) is kept between runs, so Read in one run lets Edit or
Write of the same file go ahead in the next.

Exit codes (the scheme of every command, docs/cli.md): 0 the call succeeded, 4 the call was
denied or not approved, 5 invalid input (no such tool in the session, input that is not
JSON, or input the schema or the tool's own checks refused),
6 the tool ran and its result is an error, 2 usage, 1 reins itself failed (for example an
invalid settings file), 130 interrupted.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cmdutil.UsageErrorf("tool run takes one tool name, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.name = args[0]
			if runF != nil {
				return runF(opts)
			}
			return toolRunRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.input, "input", "{}", "the tool input as JSON")
	cmd.Flags().StringVar(&opts.session, "session", "", "keep file state (what was read) across runs under this ID")
	opts.perm.Register(cmd)
	opts.mcp.Register(cmd)
	return cmd
}

func toolRunRun(ctx context.Context, opts *toolRunOptions) error {
	f, name := opts.f, opts.name
	raw := json.RawMessage(opts.input)
	if !json.Valid(raw) {
		return cmdutil.FinishWith(cmdutil.OutcomeInvalidInput, fmt.Errorf("--input is not valid JSON: %s", opts.input))
	}
	ho, err := cmdutil.HostOptions(f, &opts.perm)
	if err != nil {
		return err
	}
	host, err := app.NewHost(ctx, ho)
	if err != nil {
		return err
	}
	defer host.Close()
	state := &sessionState{pc: host.Settings.Context}
	shell := bash.New(bash.Options{Permissions: state.get, Sandbox: app.ShellSandbox(host.Sandbox), Groups: f.ShellGroups(), Env: host.Settings.Environ})
	defer shell.Close()
	t, closeMCP, err := findRunTool(ctx, f, host.Settings, state, shell, &opts.mcp, name)
	if err != nil {
		return err
	}
	defer closeMCP()
	alog, err := host.OpenAudit(cmp.Or(opts.session, "tool-run"))
	if err != nil {
		return err
	}
	defer alog.Close()
	env := runToolEnv(f, state, t)
	if opts.session != "" {
		save, err := keepToolSession(f, state, opts.session, env)
		if err != nil {
			return err
		}
		// Saved whatever the outcome: a failed Edit may still follow a Read worth keeping.
		defer save()
	}
	return runToolCall(ctx, f, state, t, raw, env, callLog{engine: &permission.Engine{PolicyVersion: host.Settings.PolicyVersion}, audit: alog})
}

// callLog is what a call of `tool run` is decided with and recorded in: the engine (stamped
// with the policy bundle's version) and the audit log.
type callLog struct {
	engine *permission.Engine
	audit  *app.AuditLog
}

// findRunTool finds the tool to run among the built-ins and, for an MCP tool's name only, the
// tools of the MCP servers it starts; closeMCP ends them. A tool the session would not have is
// refused as a session would refuse it, unless a deny rule is what removes it (the engine then
// says so).
func findRunTool(ctx context.Context, f *cmdutil.Factory, penv *cmdutil.PermEnv, state *sessionState, shell *bash.Shell, mf *cmdutil.MCPFlags, name string) (t tool.Tool, closeMCP func(), err error) {
	closeMCP = func() {}
	base := builtinTools(f, shell).Tools
	var mcpTools []tool.Tool
	if cmdutil.IsMCPToolName(name) {
		sess, err := cmdutil.StartMCP(ctx, f, penv, mf)
		if err != nil {
			return nil, closeMCP, err
		}
		closeMCP = func() { sess.Close() }
		mcpTools = sess.Tools()
	}
	t, ok := tools.Find(append(slices.Clone(base), mcpTools...), name)
	if !ok {
		closeMCP()
		return nil, func() {}, cmdutil.FinishWith(cmdutil.OutcomeInvalidInput, fmt.Errorf("no such tool: %s (see reins tools list and reins mcp)", name))
	}
	if _, ok := tools.Find(tools.Assemble(state.get(), base, mcpTools, f.Getenv), t.Name()); !ok && state.get().ToolWideRule(permission.Deny, t.Name()) == nil {
		closeMCP()
		return nil, func() {}, cmdutil.FinishWith(cmdutil.OutcomeInvalidInput, fmt.Errorf("%s is not available in this session (%s)", t.Name(), removalReason(f, state.get(), t)))
	}
	return t, closeMCP, nil
}

// runToolEnv is the environment of the one call: permission updates it makes apply to the
// run, and its progress and a change of mode are reported on stderr.
func runToolEnv(f *cmdutil.Factory, state *sessionState, t tool.Tool) *tool.Env {
	return &tool.Env{
		Permissions: state.get,
		UpdatePermissions: func(_ context.Context, updates ...permission.Update) error {
			before := state.get().Mode()
			pc, err := state.apply(updates...)
			if err != nil {
				return err
			}
			if pc.Mode() != before {
				fmt.Fprintf(f.ErrOut, "reins: permission mode is now %s\n", pc.Mode())
			}
			return nil
		},
		Progress: func(p tool.Progress) {
			if p.Message != "" {
				fmt.Fprintf(f.ErrOut, "reins: %s: %s\n", t.Name(), p.Message)
			}
		},
		Files:  tool.NewFileState(),
		Values: map[any]any{},
	}
}

// keepToolSession loads the file state (what was read) kept under id into env, and returns
// what saves it again.
func keepToolSession(f *cmdutil.Factory, state *sessionState, id string, env *tool.Env) (save func(), err error) {
	path, err := toolSessionPath(f, state.get().OriginalCwd(), id)
	if err != nil {
		return nil, err
	}
	if env.Files, err = loadToolSession(path); err != nil {
		return nil, err
	}
	return func() {
		if serr := saveToolSession(path, env.Files); serr != nil {
			fmt.Fprintf(f.ErrOut, "reins: %v\n", serr)
		}
	}, nil
}

// runToolCall takes the call through the one pipeline, with the terminal (or nobody) as the
// asker, and prints its result and the engine's verdict.
func runToolCall(ctx context.Context, f *cmdutil.Factory, state *sessionState, t tool.Tool, raw json.RawMessage, env *tool.Env, cl callLog) error {
	in, err := toolcall.Decode(t, raw)
	if err != nil {
		cl.audit.Record("", toolcall.Call{Tool: t, Raw: raw, Permissions: state.get()}, toolcall.Outcome{Stage: toolcall.Invalid})
		return finishRun(f, t, tool.ErrorResult(toolcall.UseErrorText(err)), cmdutil.OutcomeInvalidInput)
	}
	var asker permission.Asker = &refusingAsker{}
	if f.IsTerminal != nil && f.IsTerminal() {
		asker = &terminalAsker{in: bufio.NewReader(f.In), out: f.ErrOut}
	}
	p := toolcall.Pipeline{Asker: asker, Engine: cl.engine, Audit: cl.audit.Auditor("")}
	c := toolcall.Call{Tool: t, Input: in, Raw: raw, Permissions: state.get(), Env: env}
	out := p.Run(ctx, c)
	cl.audit.Record("", c, out)
	switch out.Stage {
	case toolcall.Invalid:
		// The file tools refuse a path a deny rule covers while validating; that is a denial
		// (exit 4) here as in permissions check, not invalid input.
		o := cmdutil.OutcomeInvalidInput
		if d, err := (&permission.Engine{}).Decide(ctx, state.get(), t, in); err == nil && d.Behavior == permission.Deny {
			o = cmdutil.OutcomeDenied
		}
		return finishRun(f, t, tool.ErrorResult(out.Failure), o)
	case toolcall.Cancelled, toolcall.Aborted:
		return cmp.Or(out.Err, ctx.Err())
	}
	printVerdict(f, t, out.Decision, asker)
	switch {
	case out.Stage == toolcall.Denied:
		return finishRun(f, t, tool.ErrorResult(out.Failure), cmdutil.OutcomeDenied)
	case out.Stage == toolcall.Failed && ctx.Err() != nil:
		return ctx.Err()
	case out.Stage == toolcall.Failed:
		return finishRun(f, t, tool.ErrorResult(out.Failure))
	}
	res := out.Result
	for _, n := range out.Notes {
		res.Content = append(res.Content, tool.Text(n))
	}
	return finishRun(f, t, res)
}

// printVerdict tells the person on stderr what the engine decided, and why.
func printVerdict(f *cmdutil.Factory, t tool.Tool, d permission.Decision, asker permission.Asker) {
	verdict := d.Behavior.String()
	if r, ok := asker.(*refusingAsker); ok && r.asked {
		verdict = "ask refused (stdin is not a terminal to ask on):"
	}
	fmt.Fprintf(f.ErrOut, "reins: %s %s", verdict, t.Name())
	if d.Reason != nil {
		fmt.Fprintf(f.ErrOut, " (%s)", cmdutil.ReasonWords(d.Reason))
	}
	fmt.Fprintln(f.ErrOut)
}

// refusingAsker answers every ask with a refusal carrying the ask's message, for runs with no
// terminal; it remembers that it was asked so the refusal can be told apart from a deny.
type refusingAsker struct{ asked bool }

func (r *refusingAsker) Ask(_ context.Context, req permission.AskRequest) (permission.Decision, error) {
	r.asked = true
	return permission.Decision{Behavior: permission.Deny, Message: req.Decision.Message, Reason: req.Decision.Reason, BlockedPath: req.Decision.BlockedPath}, nil
}

// finishRun prints the tool_result and picks the outcome: o if given, else ok or tool error.
func finishRun(f *cmdutil.Factory, t tool.Tool, res tool.Result, o ...cmdutil.Outcome) error {
	out := RunResult{Type: "tool_result", Tool: t.Name(), Content: res.Content, IsError: res.IsError, Output: res.Output}
	if out.Content == nil {
		out.Content = []tool.Content{}
	}
	if err := cmdutil.WriteJSON(f.Out, out); err != nil {
		return err
	}
	switch {
	case len(o) > 0:
		return cmdutil.Finish(o[0])
	case res.IsError:
		return cmdutil.Finish(cmdutil.OutcomeToolError)
	}
	return nil
}

// RejectMessage is the tool_result of a call the person refused.
const RejectMessage = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."

// terminalAsker puts asks to the person at the terminal.
type terminalAsker struct {
	in  *bufio.Reader
	out io.Writer
}

func (a *terminalAsker) readLine() (string, error) {
	line, err := a.in.ReadString('\n')
	if err != nil && !(errors.Is(err, io.EOF) && line != "") {
		return "", err
	}
	return strings.TrimSpace(line), nil
}

// Ask shows the ask and reads the answer. When nothing can be read (end of input), nobody is
// there to answer: the call is refused with the ask message, as without a terminal.
func (a *terminalAsker) Ask(ctx context.Context, req permission.AskRequest) (permission.Decision, error) {
	reject := permission.Decision{Behavior: permission.Deny, Message: RejectMessage, Reason: &permission.Reason{Type: permission.ReasonOther, Detail: "refused at the prompt"}}
	unanswered := permission.Decision{Behavior: permission.Deny, Message: req.Decision.Message, Reason: req.Decision.Reason, BlockedPath: req.Decision.BlockedPath}
	if qs, ok := req.Input.(workflow.AskUserQuestionInput); ok {
		return a.askQuestions(qs, reject, unanswered)
	}
	fmt.Fprintf(a.out, "\n%s\n", req.Decision.Message)
	if plan, ok := req.Input.(workflow.ExitPlanModeInput); ok && plan.Plan != "" {
		fmt.Fprintf(a.out, "\n%s\n\n", plan.Plan)
	} else {
		var b strings.Builder
		if cmdutil.NewJSONLines(&b).Encode(req.Input) == nil {
			fmt.Fprintf(a.out, "%s %s", req.Tool, b.String())
		}
	}
	fmt.Fprint(a.out, "Allow? [y/N] ")
	line, err := a.readLine()
	if err != nil {
		fmt.Fprintln(a.out)
		return unanswered, nil
	}
	switch strings.ToLower(line) {
	case "y", "yes":
		return permission.Decision{Behavior: permission.Allow, UpdatedInput: req.Input,
			Reason: &permission.Reason{Type: permission.ReasonOther, Detail: "approved at the prompt"}}, nil
	}
	return reject, nil
}

// askQuestions shows each question with numbered options and reads the answer: option
// numbers (several, comma-separated, for multiSelect) or free text. An empty answer declines.
func (a *terminalAsker) askQuestions(in workflow.AskUserQuestionInput, reject, unanswered permission.Decision) (permission.Decision, error) {
	answers := map[string]string{}
	for _, q := range in.Questions {
		fmt.Fprintf(a.out, "\n[%s] %s\n", q.Header, q.Question)
		for i, o := range q.Options {
			fmt.Fprintf(a.out, "  %d. %s", i+1, o.Label)
			if o.Description != "" {
				fmt.Fprintf(a.out, " — %s", o.Description)
			}
			fmt.Fprintln(a.out)
		}
		hint := "number"
		if q.MultiSelect {
			hint = "numbers, comma-separated"
		}
		fmt.Fprintf(a.out, "Answer (%s, or your own words; empty to decline): ", hint)
		line, err := a.readLine()
		if err != nil {
			fmt.Fprintln(a.out)
			return unanswered, nil
		}
		if line == "" {
			return reject, nil
		}
		answers[q.Question] = pickOptions(q, line)
	}
	return permission.Decision{Behavior: permission.Allow, UpdatedInput: workflow.WithAnswers(in, answers),
		Reason: &permission.Reason{Type: permission.ReasonOther, Detail: "answered at the prompt"}}, nil
}

// pickOptions turns "1, 3" into the options' labels; anything else is a free-text answer.
func pickOptions(q workflow.Question, line string) string {
	var labels []string
	for _, part := range strings.Split(line, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 || n > len(q.Options) || (!q.MultiSelect && len(labels) == 1) {
			return line
		}
		labels = append(labels, q.Options[n-1].Label)
	}
	return strings.Join(labels, ", ")
}
