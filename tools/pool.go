// Package tools assembles Reins' built-in tools into the tool pool a model sees.
//
// [Base] builds every built-in tool once per session, and its Close ends the Shell it started. [Assemble] turns the built-ins and the
// MCP tools into the ordered list sent to the model, following Claude Code's getTools and
// assembleToolPool:
//
//  1. REINS_SIMPLE (1, true, yes or on) keeps only Bash, Read and Edit of the built-ins;
//     otherwise the special tools (the MCP resource tools and SyntheticOutput, which other
//     parts of the program add themselves) are left out.
//  2. Tools covered by a tool-wide deny rule are removed before the model sees them; for MCP
//     tools that includes server-level rules (mcp__server, mcp__server__*).
//  3. Tools whose IsEnabled reports false are removed.
//  4. Built-ins are sorted by name and form one contiguous prefix; MCP tools follow, sorted by
//     name; a name appears once (a built-in wins over an MCP tool of the same name).
//
// The order depends only on the names, never on registration or map order, so the serialized
// list is byte-identical from run to run, which keeps the model provider's prompt cache warm.
//
// The sub-agent tool sets of Claude Code (AllAgentDisallowed, AsyncAgentAllowed) are here as
// data for the Agent tool, with [FilterForAgent]. Claude Code's coordinator mode, whose agent
// only delegates, is not built.
package tools

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools/bash"
	"github.com/reinsdev/reins/tools/files"
	"github.com/reinsdev/reins/tools/search"
	"github.com/reinsdev/reins/tools/web"
	"github.com/reinsdev/reins/tools/workflow"
)

// Options configure the built-in tools.
type Options struct {
	// Shell runs Bash, TaskOutput and TaskStop. A Shell given here stays its owner's to
	// Close. nil makes Base create one from Bash, which [Builtins.Close] closes.
	Shell *bash.Shell
	Bash  bash.Options
	Files files.Options
	Web   web.Options
	// Ripgrep is the rg binary Grep runs. Empty means: look it up on PATH once, now (the Go
	// engine is used if there is none). Set NoRipgrep to use the Go engine regardless.
	Ripgrep   string
	NoRipgrep bool
	// Getenv reads the environment; nil means the process environment.
	Getenv func(string) string
}

// Builtins are the built-in tools of one session and the Shell behind Bash.
type Builtins struct {
	// Tools are every built-in tool, in no particular order (see [Assemble]).
	Tools []tool.Tool
	// Shell runs Bash, TaskOutput and TaskStop, and knows the session's current directory.
	Shell     *bash.Shell
	ownsShell bool
}

// Close ends what Base started: the Shell it created, with its background tasks. A Shell
// passed in [Options] is left to its owner. Close may be called more than once.
func (b *Builtins) Close() error {
	if b == nil || !b.ownsShell {
		return nil
	}
	b.ownsShell = false
	return b.Shell.Close()
}

// Base builds every built-in tool once for a session. Close the result when the session ends.
func Base(opts Options) *Builtins {
	rg := opts.Ripgrep
	if rg == "" && !opts.NoRipgrep {
		rg, _ = exec.LookPath("rg")
	}
	if opts.NoRipgrep {
		rg = ""
	}
	so := search.Options{Ripgrep: rg, Getenv: opts.Getenv}
	b := &Builtins{Shell: opts.Shell}
	if b.Shell == nil {
		b.Shell, b.ownsShell = bash.New(opts.Bash), true
	}
	out := b.Shell.Tools()
	out = append(out, search.NewGlob(so), search.NewGrep(so))
	out = append(out, files.Tools(opts.Files)...)
	out = append(out,
		web.New(opts.Web),
		workflow.NewTodoWrite(),
		workflow.NewAskUserQuestion(),
		workflow.NewEnterPlanMode(),
		workflow.NewExitPlanMode(),
	)
	b.Tools = out
	return b
}

// simpleTools are the built-ins of simple mode.
var simpleTools = [...]string{"Bash", "Read", "Edit"}

// specialTools are built-ins that are never part of the pool as such.
var specialTools = [...]string{"ListMcpResourcesTool", "ReadMcpResourceTool", "SyntheticOutput"}

// Assemble returns the tools the model sees, in their final order (see the package comment).
// env reads the environment (REINS_SIMPLE); nil means an empty environment.
func Assemble(pc *permission.Context, builtins, mcp []tool.Tool, env func(string) string) []tool.Tool {
	simple := env != nil && llm.EnvTrue(env("REINS_SIMPLE"))
	keep := func(t tool.Tool) bool {
		if simple {
			return slices.Contains(simpleTools[:], t.Name())
		}
		return !slices.Contains(specialTools[:], t.Name())
	}
	allowed := func(t tool.Tool) bool { return pc.ToolWideRule(permission.Deny, t.Name()) == nil }

	var bs, ms []tool.Tool
	for _, t := range builtins {
		if keep(t) && allowed(t) && t.IsEnabled() {
			bs = append(bs, t)
		}
	}
	for _, t := range mcp {
		if allowed(t) && t.IsEnabled() {
			ms = append(ms, t)
		}
	}
	byName := func(a, b tool.Tool) int { return CompareNames(a.Name(), b.Name()) }
	slices.SortStableFunc(bs, byName)
	slices.SortStableFunc(ms, byName)
	out := make([]tool.Tool, 0, len(bs)+len(ms))
	seen := map[string]bool{}
	for _, t := range append(bs, ms...) {
		if !seen[t.Name()] {
			seen[t.Name()] = true
			out = append(out, t)
		}
	}
	return out
}

// CompareNames orders tool names like JavaScript's localeCompare does for ASCII names:
// ignoring case first, then by bytes, so the order is total and stable.
func CompareNames(a, b string) int {
	if c := strings.Compare(strings.ToLower(a), strings.ToLower(b)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// Specs serializes tools for a model request: name, prompt as the description, and input
// schema, in the given order.
func Specs(ctx context.Context, ts []tool.Tool) ([]llm.ToolSpec, error) {
	out := make([]llm.ToolSpec, len(ts))
	for i, t := range ts {
		p, err := t.Prompt(ctx)
		if err != nil {
			return nil, fmt.Errorf("prompt of %s: %w", t.Name(), err)
		}
		out[i] = llm.ToolSpec{Name: t.Name(), Description: p, InputSchema: t.Spec().InputSchema}
	}
	return out, nil
}

// Find returns the tool called name (or one of its aliases, or a legacy name) from ts.
func Find(ts []tool.Tool, name string) (tool.Tool, bool) {
	name = permission.NormalizeToolName(name)
	for _, t := range ts {
		if t.Name() == name || slices.Contains(t.Spec().Aliases, name) {
			return t, true
		}
	}
	return nil, false
}

// Names returns the names of ts, in order.
func Names(ts []tool.Tool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name()
	}
	return out
}
