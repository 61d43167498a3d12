package app

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/tools/workflow"
)

// compaction is when the session compacts, from the environment and the settings as Claude
// Code reads them: DISABLE_COMPACT turns every compaction off, DISABLE_AUTO_COMPACT or
// autoCompactEnabled false the automatic one, CLAUDE_AUTOCOMPACT_PCT_OVERRIDE brings the
// threshold down to a share of the window; REINS_CONTEXT_WINDOW names the window of a model
// the table does not know (a local model, say).
func (a *App) compaction() agent.Compaction {
	getenv := a.opts.Getenv
	on := func(name string) bool { return llm.EnvTrue(getenv(name)) }
	auto := a.Settings == nil || a.Settings.Loaded == nil || a.Settings.Loaded.AutoCompactEnabled()
	return agent.Compaction{
		Disabled:     on("DISABLE_COMPACT"),
		AutoDisabled: on("DISABLE_AUTO_COMPACT") || !auto,
		Percent:      envInt(getenv, "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE"),
		Window:       envInt(getenv, "REINS_CONTEXT_WINDOW"),
		Carry:        a.carry,
	}
}

// carry is what a compaction carries over besides the summary and the recent files: the
// todo list, the plan last approved, and the working directories, so that the work goes on.
func (a *App) carry(msgs []llm.Message) []string {
	var out []string
	if todos := workflow.Todos(a.Pool.Env); len(todos) > 0 {
		var b strings.Builder
		b.WriteString("The todo list as it stood before the conversation was compacted:\n")
		for _, t := range todos {
			fmt.Fprintf(&b, "- [%s] %s\n", t.Status, t.Content)
		}
		out = append(out, strings.TrimRight(b.String(), "\n"))
	}
	if plan := approvedPlan(msgs); plan != "" {
		out = append(out, "The plan the user approved before the conversation was compacted:\n"+plan)
	}
	pc := a.Permissions.Context()
	dirs := pc.WorkingDirs()
	var b strings.Builder
	// The shell's directory, once it has one; the session's before its first command.
	fmt.Fprintf(&b, "Current working directory: %s", cmp.Or(a.Pool.Cwd(), pc.Cwd()))
	if len(dirs) > 1 {
		fmt.Fprintf(&b, "\nAdditional working directories: %s", strings.Join(dirs[1:], ", "))
	}
	if pc.Mode() != "" {
		fmt.Fprintf(&b, "\nPermission mode: %s", pc.Mode())
	}
	return append(out, b.String())
}

// approvedPlan is the plan of the last ExitPlanMode call the user approved, or "".
func approvedPlan(msgs []llm.Message) string {
	ok := map[string]bool{}
	for _, m := range msgs {
		for _, b := range m.Content {
			if b.Type == llm.BlockToolResult && !b.IsError {
				ok[b.ToolUseID] = true
			}
		}
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		uses := msgs[i].ToolUses()
		for j := len(uses) - 1; j >= 0; j-- {
			if uses[j].Name != "ExitPlanMode" || !ok[uses[j].ID] {
				continue
			}
			var in struct {
				Plan string `json:"plan"`
			}
			if json.Unmarshal(uses[j].Input, &in) == nil && strings.TrimSpace(in.Plan) != "" {
				return in.Plan
			}
		}
	}
	return ""
}

// CompactCommand reports whether a prompt is the /compact command, and its instructions.
func CompactCommand(prompt string) (instructions string, ok bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(prompt), "/compact")
	if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t' && rest[0] != '\n') {
		return "", false
	}
	return strings.TrimSpace(rest), true
}
