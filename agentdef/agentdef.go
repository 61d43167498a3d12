// Package agentdef reads sub-agent definitions: the built-in agents, Markdown files with YAML
// front matter (.reins/agents/*.md, .claude/agents/*.md and the same under the home folder),
// and the JSON object of --agents or an SDK initialize request.
//
// A definition says what a sub-agent is for (description), what it may use (tools,
// disallowedTools), which model runs it and in which permission mode it starts, and its
// system prompt (the Markdown body). It grants nothing by itself: the Agent tool derives a
// sub-agent's tools and permissions from its parent's, and the definition can only narrow
// them (see package agenttool).
//
// Precedence follows Claude Code: built-in < user < project < flag. A later source replaces
// an earlier definition of the same name. Every problem in a file is reported with its
// file:line:col and the file is skipped; the rest still load.
package agentdef

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/reinsdev/reins/boundedfile"
	"github.com/reinsdev/reins/frontmatter"
	"github.com/reinsdev/reins/permission"
)

// Source says where a definition came from; later sources win.
type Source int

const (
	SourceBuiltin Source = iota
	SourceUser
	SourceProject
	SourceFlag
	// SourcePlugin definitions come with a plugin and are named "<plugin>:<name>", so they
	// replace no other.
	SourcePlugin
)

func (s Source) String() string {
	switch s {
	case SourceBuiltin:
		return "built-in"
	case SourceUser:
		return "user"
	case SourceProject:
		return "project"
	case SourceFlag:
		return "flag"
	case SourcePlugin:
		return "plugin"
	}
	return "unknown"
}

// Definition is one kind of sub-agent.
type Definition struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Tools selects tools by name; nil (or ["*"]) means every tool the sub-agent may have.
	Tools []string `json:"tools,omitempty"`
	// DisallowedTools are removed before Tools selects.
	DisallowedTools []string `json:"disallowedTools,omitempty"`
	// Model is an alias (sonnet, opus, haiku), a model id, or "inherit" / empty for the
	// parent's model.
	Model string `json:"model,omitempty"`
	// PermissionMode is the mode the sub-agent starts in, when its parent's mode lets the
	// definition choose (see agenttool.ChildMode). Empty means the parent's.
	PermissionMode permission.Mode `json:"permissionMode,omitempty"`
	// ModeLine and ModeCol are where a file's permissionMode is written.
	ModeLine int `json:"-"`
	ModeCol  int `json:"-"`
	// Prompt is the sub-agent's system prompt.
	Prompt string `json:"prompt"`
	// MaxTurns bounds the sub-agent's replies; zero leaves the session's limit.
	MaxTurns int `json:"maxTurns,omitempty"`
	// Background runs every call of this agent as run_in_background does: no one can answer
	// its asks, so it is never looser than a foreground run.
	Background bool `json:"background,omitempty"`
	// MCPServers, when not nil, names the session's MCP servers whose tools the sub-agent
	// gets: exactly those, none of the others. Nil means every server's tools, as before.
	MCPServers []string `json:"mcpServers,omitempty"`

	Source Source `json:"source"`
	// File is the definition's file; empty for built-ins and flags.
	File string `json:"file,omitempty"`
}

// AllowsNesting reports whether the definition asks for the Agent tool itself, the one way a
// sub-agent may start sub-agents of its own.
func (d *Definition) AllowsNesting() bool {
	return slices.Contains(d.Tools, "Agent") || slices.Contains(d.Tools, "Task")
}

// readOnlyDisallowed are the tools the read-only built-ins (Explore, Plan) never get.
var readOnlyDisallowed = []string{"Agent", "ExitPlanMode", "Edit", "Write", "NotebookEdit"}

// Builtins returns the built-in definitions, freshly allocated.
func Builtins() []*Definition {
	return []*Definition{
		{
			Name:        "general-purpose",
			Description: "General-purpose agent for researching complex questions, searching for code, and executing multi-step tasks. When you are searching for a keyword or file and are not confident that you will find the right match in the first few tries, use this agent to perform the search for you.",
			Prompt:      generalPrompt,
			Source:      SourceBuiltin,
		},
		{
			Name:            "Explore",
			Description:     `Fast agent specialized for exploring codebases. Use this when you need to quickly find files by patterns (eg. "src/components/**/*.tsx"), search code for keywords (eg. "API endpoints"), or answer questions about the codebase (eg. "how do API endpoints work?"). It cannot edit files.`,
			DisallowedTools: slices.Clone(readOnlyDisallowed),
			Prompt:          explorePrompt,
			Source:          SourceBuiltin,
		},
		{
			Name:            "Plan",
			Description:     "Software architect agent for designing implementation plans. Use this when you need to plan the implementation strategy for a task. Returns step-by-step plans, identifies critical files, and considers architectural trade-offs. It cannot edit files.",
			DisallowedTools: slices.Clone(readOnlyDisallowed),
			Prompt:          planPrompt,
			Source:          SourceBuiltin,
		},
	}
}

const generalPrompt = `You are an agent for Reins, a coding agent. Given the user's message, use the tools available to complete the task. Do what has been asked; nothing more, nothing less. When you complete the task, respond with a concise report covering what was done and any key findings; the caller will relay it to the user, so it only needs the essentials.

- Search broadly when you don't know where something lives; use Read when you know the specific file path.
- Prefer editing existing files to creating new ones.
- In your final response, share relevant file paths (always absolute) and code snippets where they help.`

const explorePrompt = `You are a file search specialist for Reins, a coding agent. You excel at navigating and exploring codebases.

This is a READ-ONLY task. You must not create, modify or delete files, and must not run commands that change the system's state.

- Use Glob for broad file pattern matching, Grep for searching file contents with regex, Read when you know the file path.
- Use Bash only for read-only operations (ls, git status, git log, git diff, find, cat, head, tail).
- Make efficient use of the tools: run independent searches in parallel.
- Return file paths as absolute paths and report your findings clearly and concisely.`

const planPrompt = `You are a software architect and planning specialist for Reins, a coding agent. Your role is to explore the codebase and design implementation plans.

This is a READ-ONLY planning task. You must not create, modify or delete files, and must not run commands that change the system's state.

Explore the relevant code thoroughly, understand the existing patterns and constraints, then produce a step-by-step implementation plan: the files to change, the order of the changes, the trade-offs, and how to verify the result. End with a list of the 3-5 files most critical to the plan.`

// Error is a problem in one definition file, at a position.
type Error = frontmatter.Error

// validName is what Claude Code accepts as an agent type: letters, digits and hyphens, not
// starting with a hyphen.
var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`) })

var knownKeys = []string{"name", "description", "tools", "disallowedTools", "model", "permissionMode", "color"}

// maxFileSize bounds a definition file; a larger one is refused rather than read.
const maxFileSize = 1 << 20

// ParseFile parses one definition file's content. file names it in errors.
func ParseFile(file string, data []byte, src Source) (*Definition, error) {
	fm, err := frontmatter.Parse(file, data, knownKeys, maxFileSize)
	if err != nil {
		return nil, err
	}
	if !fm.Present {
		return nil, &Error{File: file, Line: 1, Col: 1, Msg: "missing YAML front matter: the file must start with a line \"---\" and the header must end with another \"---\" line"}
	}
	d := &Definition{Source: src, File: file, Prompt: strings.TrimSpace(string(fm.Body))}
	if d.Name, err = fm.Str("name", true); err != nil {
		return nil, err
	}
	if !validName().MatchString(d.Name) {
		return nil, fm.ErrAt("name", "invalid agent name %q: use letters, digits, '-' and '_' (at most 64)", d.Name)
	}
	if d.Description, err = fm.Str("description", true); err != nil {
		return nil, err
	}
	if d.Description == "" {
		return nil, fm.ErrAt("description", "\"description\" must not be empty: the model chooses agents by it")
	}
	if d.Tools, err = fm.List("tools"); err != nil {
		return nil, err
	}
	if d.DisallowedTools, err = fm.List("disallowedTools"); err != nil {
		return nil, err
	}
	if d.Model, err = fm.Str("model", false); err != nil {
		return nil, err
	}
	mode, err := fm.Str("permissionMode", false)
	if err != nil {
		return nil, err
	}
	if mode != "" {
		if d.PermissionMode, err = parseMode(mode); err != nil {
			return nil, fm.ErrAt("permissionMode", "%s", err)
		}
		d.ModeLine, d.ModeCol = fm.Pos("permissionMode")
	}
	if _, err := fm.Str("color", false); err != nil {
		return nil, err
	}
	if d.Prompt == "" {
		return nil, &Error{File: file, Line: fm.BodyLine, Col: 1, Msg: "the system prompt (the Markdown after the front matter) is empty"}
	}
	return d, nil
}

// parseMode accepts the modes a definition may name; bubble is internal and never accepted.
func parseMode(s string) (permission.Mode, error) {
	m, err := permission.ParseMode(s)
	if err != nil {
		return "", fmt.Errorf("permissionMode: %w", err)
	}
	return m, nil
}

// Dir is a folder of definition files and the source it counts as.
type Dir struct {
	Path   string
	Source Source
	// Plugin names the plugin of a SourcePlugin folder; its definitions' names get it as a
	// prefix ("<plugin>:<name>").
	Plugin string
}

// Dirs returns the folders Reins reads definitions from, lowest precedence first: the user's
// (~/.claude/agents, ~/.reins/agents) then the project's (.claude/agents, .reins/agents).
// Reins' own folder comes after Claude Code's of the same level, so it wins a name clash.
func Dirs(home, configDir, project string) []Dir {
	var out []Dir
	if home != "" {
		out = append(out, Dir{Path: filepath.Join(home, ".claude", "agents"), Source: SourceUser})
	}
	if configDir != "" {
		out = append(out, Dir{Path: filepath.Join(configDir, "agents"), Source: SourceUser})
	}
	if project != "" {
		out = append(out,
			Dir{Path: filepath.Join(project, ".claude", "agents"), Source: SourceProject},
			Dir{Path: filepath.Join(project, ".reins", "agents"), Source: SourceProject})
	}
	return out
}

// Set is the definitions in effect, by name. It is safe for concurrent use: an SDK caller's
// initialize adds definitions while sub-agents may be looking theirs up.
type Set struct {
	mu     sync.RWMutex
	byName map[string]*Definition
	// Errors are the files that could not be used, each with its position.
	Errors []error
}

// Load reads the built-ins, then every *.md file of dirs in order, then the extra
// definitions (flags, SDK). A file that cannot be read or parsed is recorded in Errors and
// skipped; a missing folder is no error.
func Load(dirs []Dir, extra ...*Definition) *Set {
	s := &Set{byName: map[string]*Definition{}}
	for _, d := range Builtins() {
		s.byName[d.Name] = d
	}
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir.Path)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				s.Errors = append(s.Errors, fmt.Errorf("%s: %w", dir.Path, err))
			}
			continue
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			p := filepath.Join(dir.Path, e.Name())
			def, err := readFile(p, dir.Source)
			if err != nil {
				s.Errors = append(s.Errors, err)
				continue
			}
			if dir.Plugin != "" {
				def.Name = dir.Plugin + ":" + def.Name
			}
			s.byName[def.Name] = def
		}
	}
	for _, d := range extra {
		s.byName[d.Name] = d
	}
	return s
}

// fileLimits bound a definition file: a prompt of a few kilobytes, with room.
var fileLimits = boundedfile.Limits{MaxBytes: maxFileSize, Kind: "agent file"}

// readFile reads one definition file through boundedfile: a FIFO, a device or a folder named
// *.md, or one swapped in after the listing, is refused by the type of what was opened, not
// read. No context: at most 1 MiB of a regular file is a short read.
func readFile(p string, src Source) (*Definition, error) {
	data, err := boundedfile.Read(context.Background(), p, fileLimits)
	if err != nil {
		return nil, err
	}
	return ParseFile(p, data, src)
}

// Add puts definitions in the set, replacing those of the same names, as a later source does
// in Load. Definitions only narrow what a sub-agent gets from its parent (see package
// agenttool), so adding one never widens any agent's permissions.
func (s *Set) Add(defs ...*Definition) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byName == nil {
		s.byName = map[string]*Definition{}
	}
	for _, d := range defs {
		s.byName[d.Name] = d
	}
}

// Get returns the definition named name, or nil.
func (s *Set) Get(name string) *Definition {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.byName[name]
}

// All returns every definition, sorted by name.
func (s *Set) All() []*Definition {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	out := make([]*Definition, 0, len(s.byName))
	for _, d := range s.byName {
		out = append(out, d)
	}
	s.mu.RUnlock()
	slices.SortFunc(out, func(a, b *Definition) int { return strings.Compare(a.Name, b.Name) })
	return out
}
