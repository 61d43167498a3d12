package app

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/memory"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// PromptEnv is what the system prompt says about the environment.
type PromptEnv struct {
	Cwd      string
	Dirs     []string // additional working directories
	Platform string
	Date     time.Time
	Git      bool
	Mode     permission.Mode
	Append   string // --append-system-prompt
	// Base replaces the instructions (a sub-agent's definition prompt); empty means Reins'.
	Base string
	// Replace, when set, is the whole system prompt in place of Reins's (--system-prompt, the
	// SDK's SystemPrompt); Append still follows it.
	Replace string
	// Memory is the memory files rendered (memory.Render). It follows the instructions, or
	// Replace: as in Claude Code, a prompt of one's own does not drop the project's memory.
	Memory string
}

const basePrompt = `You are Reins, a coding agent. You work in the user's repository from the command line, using the tools below to read, search, edit and run code.

Every tool call goes through a permission engine. When a call is denied, the result says why: do not retry the same call, and do not try to get around a denial; find another way that the permissions allow, or stop and explain what you need and why.

Guidelines:
- Read the relevant code before you change it; keep changes small and in the style of the code around them.
- Prefer the dedicated tools (Read, Edit, Write, Grep, Glob) over shell commands for reading, searching and editing files.
- Use absolute paths in tool inputs.
- Verify your work where you can (build, run the tests) and say plainly what you did not verify.
- Be concise. When you are done, answer with a short summary of what you did.`

// SystemPrompt builds the system prompt: the instructions and every tool's prompt, which stay
// the same from run to run and end with a cache breakpoint, then the environment.
func SystemPrompt(ctx context.Context, tools []tool.Tool, env PromptEnv) ([]llm.SystemBlock, error) {
	if env.Replace != "" {
		blocks := []llm.SystemBlock{{Text: env.Replace, CacheBreakpoint: true}}
		if s := strings.TrimSpace(env.Memory); s != "" {
			blocks = append(blocks, llm.SystemBlock{Text: s, Memory: true})
		}
		if s := strings.TrimSpace(env.Append); s != "" {
			blocks = append(blocks, llm.SystemBlock{Text: s})
		}
		return blocks, nil
	}
	var b strings.Builder
	if env.Base != "" {
		b.WriteString(env.Base)
	} else {
		b.WriteString(basePrompt)
	}
	b.WriteString("\n\n# Tools\n")
	for _, t := range tools {
		if t.Spec().MCP {
			// An MCP tool's only text is its description, which its tool spec carries.
			continue
		}
		p, err := t.Prompt(ctx)
		if err != nil {
			return nil, fmt.Errorf("prompt of tool %s: %w", t.Name(), err)
		}
		if p = strings.TrimSpace(p); p == "" {
			p = t.Spec().Description
		}
		fmt.Fprintf(&b, "\n## %s\n%s\n", t.Name(), p)
	}
	blocks := []llm.SystemBlock{{Text: b.String(), CacheBreakpoint: true}}
	if s := strings.TrimSpace(env.Memory); s != "" {
		blocks = append(blocks, llm.SystemBlock{Text: s, Memory: true})
	}

	var e strings.Builder
	e.WriteString("# Environment\n")
	fmt.Fprintf(&e, "Working directory: %s\n", env.Cwd)
	if len(env.Dirs) > 0 {
		fmt.Fprintf(&e, "Additional working directories: %s\n", strings.Join(env.Dirs, ", "))
	}
	fmt.Fprintf(&e, "Is directory a git repo: %s\n", yesNo(env.Git))
	fmt.Fprintf(&e, "Platform: %s\n", env.Platform)
	fmt.Fprintf(&e, "Today's date: %s\n", env.Date.Format("2006-01-02"))
	fmt.Fprintf(&e, "Permission mode: %s\n", env.Mode)
	if env.Mode == permission.ModePlan {
		e.WriteString("\nPlan mode is active: do not edit files or run commands that change anything. Research with read-only tools, then present your plan.\n")
	}
	blocks = append(blocks, llm.SystemBlock{Text: e.String()})
	if s := strings.TrimSpace(env.Append); s != "" {
		blocks = append(blocks, llm.SystemBlock{Text: s})
	}
	return blocks, nil
}

func yesNo(b bool) string {
	if b {
		return "Yes"
	}
	return "No"
}

// IsGitRepo reports whether dir is inside a git work tree: it or a parent has a .git entry
// (a folder, or a file for worktrees and submodules).
func IsGitRepo(dir string) bool {
	_, ok := memory.GitTop(dir)
	return ok
}
