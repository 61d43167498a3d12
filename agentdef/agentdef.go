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
	"bytes"
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

	"go.yaml.in/yaml/v3"

	"github.com/reinsdev/reins/boundedfile"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
)

// Source says where a definition came from; later sources win.
type Source int

const (
	SourceBuiltin Source = iota
	SourceUser
	SourceProject
	SourceFlag
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
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// validName is what Claude Code accepts as an agent type: letters, digits and hyphens, not
// starting with a hyphen.
var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`) })

// frontMatter is the YAML header of a definition file.
type frontMatter struct {
	Name            yaml.Node `yaml:"name"`
	Description     yaml.Node `yaml:"description"`
	Tools           yaml.Node `yaml:"tools"`
	DisallowedTools yaml.Node `yaml:"disallowedTools"`
	Model           yaml.Node `yaml:"model"`
	PermissionMode  yaml.Node `yaml:"permissionMode"`
	Color           yaml.Node `yaml:"color"`
}

var knownKeys = []string{"name", "description", "tools", "disallowedTools", "model", "permissionMode", "color"}

// maxFileSize bounds a definition file; a larger one is refused rather than read.
const maxFileSize = 1 << 20

// ParseFile parses one definition file's content. file names it in errors.
func ParseFile(file string, data []byte, src Source) (*Definition, error) {
	if len(data) > maxFileSize {
		return nil, &Error{File: file, Msg: fmt.Sprintf("file is larger than %d bytes", maxFileSize)}
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	head, body, bodyLine, ok := splitFrontMatter(data)
	if !ok {
		return nil, &Error{File: file, Line: 1, Col: 1, Msg: "missing YAML front matter: the file must start with a line \"---\" and the header must end with another \"---\" line"}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(head, &doc); err != nil {
		return nil, yamlError(file, err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, &Error{File: file, Line: 2, Col: 1, Msg: "front matter must be a mapping of keys to values"}
	}
	r := fmReader{file: file}
	if err := r.checkKeys(doc.Content[0]); err != nil {
		return nil, err
	}
	var fm frontMatter
	if err := doc.Content[0].Decode(&fm); err != nil {
		return nil, yamlError(file, err)
	}
	d := &Definition{Source: src, File: file, Prompt: strings.TrimSpace(string(body))}
	var err error
	if d.Name, err = r.str("name", &fm.Name, true); err != nil {
		return nil, err
	}
	if !validName().MatchString(d.Name) {
		return nil, r.errAt(&fm.Name, "invalid agent name %q: use letters, digits, '-' and '_' (at most 64)", d.Name)
	}
	if d.Description, err = r.str("description", &fm.Description, true); err != nil {
		return nil, err
	}
	if d.Description == "" {
		return nil, r.errAt(&fm.Description, "\"description\" must not be empty: the model chooses agents by it")
	}
	if d.Tools, err = r.list("tools", &fm.Tools); err != nil {
		return nil, err
	}
	if d.DisallowedTools, err = r.list("disallowedTools", &fm.DisallowedTools); err != nil {
		return nil, err
	}
	if d.Model, err = r.str("model", &fm.Model, false); err != nil {
		return nil, err
	}
	mode, err := r.str("permissionMode", &fm.PermissionMode, false)
	if err != nil {
		return nil, err
	}
	if mode != "" {
		if d.PermissionMode, err = parseMode(mode); err != nil {
			return nil, r.errAt(&fm.PermissionMode, "%s", err)
		}
	}
	if d.Prompt == "" {
		return nil, &Error{File: file, Line: bodyLine, Col: 1, Msg: "the system prompt (the Markdown after the front matter) is empty"}
	}
	return d, nil
}

// fmReader reads the values of a front matter, reporting problems at their positions in the
// file (a node's line plus one: the opening "---").
type fmReader struct{ file string }

func (r fmReader) errAt(n *yaml.Node, format string, args ...any) error {
	return &Error{File: r.file, Line: n.Line + 1, Col: n.Column, Msg: fmt.Sprintf(format, args...)}
}

// checkKeys refuses duplicate and unknown keys, with a "did you mean" for a likely typo.
func (r fmReader) checkKeys(m *yaml.Node) error {
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if seen[k.Value] {
			return r.errAt(k, "duplicate key %q", k.Value)
		}
		seen[k.Value] = true
		if !slices.Contains(knownKeys, k.Value) {
			msg := fmt.Sprintf("unknown key %q", k.Value)
			if s := settings.DidYouMean(k.Value, knownKeys); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			return r.errAt(k, "%s", msg)
		}
	}
	return nil
}

// str reads a string value; a missing required key is reported at the front matter's start.
func (r fmReader) str(key string, n *yaml.Node, required bool) (string, error) {
	if n.Kind == 0 {
		if required {
			return "", &Error{File: r.file, Line: 2, Col: 1, Msg: fmt.Sprintf("missing required key %q", key)}
		}
		return "", nil
	}
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", r.errAt(n, "%q must be a string", key)
	}
	return strings.TrimSpace(n.Value), nil
}

// list reads a list of tool names: a YAML sequence or, as Claude Code's files write it, a
// comma-separated string ("Read, Grep, Glob").
func (r fmReader) list(key string, n *yaml.Node) ([]string, error) {
	var out []string
	switch n.Kind {
	case 0:
		return nil, nil
	case yaml.ScalarNode:
		for _, p := range strings.Split(n.Value, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out, nil
	case yaml.SequenceNode:
		for _, e := range n.Content {
			if e.Kind != yaml.ScalarNode {
				return nil, r.errAt(e, "%q entries must be tool names", key)
			}
			out = append(out, strings.TrimSpace(e.Value))
		}
		return out, nil
	}
	return nil, r.errAt(n, "%q must be a list of tool names or a comma-separated string", key)
}

// parseMode accepts the modes a definition may name; bubble is internal and never accepted.
func parseMode(s string) (permission.Mode, error) {
	m, err := permission.ParseMode(s)
	if err != nil {
		return "", fmt.Errorf("permissionMode: %w", err)
	}
	return m, nil
}

// splitFrontMatter separates "---\n<yaml>\n---\n<body>". bodyLine is the body's first line.
func splitFrontMatter(data []byte) (head, body []byte, bodyLine int, ok bool) {
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	rest, found := bytes.CutPrefix(data, []byte("---\n"))
	if !found {
		return nil, nil, 0, false
	}
	line := 2
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		var l []byte
		if i < 0 {
			l, rest = rest, nil
		} else {
			l, rest = rest[:i], rest[i+1:]
		}
		if string(bytes.TrimRight(l, " \t")) == "---" {
			end := len(data) - len(rest) - len(l) - 1
			if i < 0 {
				end = len(data) - len(l)
			}
			return data[4:max(end, 4)], rest, line + 1, true
		}
		line++
	}
	return nil, nil, 0, false
}

var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`) })

func yamlError(file string, err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		return &Error{File: file, Msg: "front matter: " + strings.Join(te.Errors, "; ")}
	}
	if m := yamlLine().FindStringSubmatch(err.Error()); m != nil && m[1] != "" {
		var n int
		fmt.Sscan(m[1], &n)
		return &Error{File: file, Line: n + 1, Col: 1, Msg: "front matter: " + m[2]}
	}
	return &Error{File: file, Msg: "front matter: " + err.Error()}
}

// Dir is a folder of definition files and the source it counts as.
type Dir struct {
	Path   string
	Source Source
}

// Dirs returns the folders Reins reads definitions from, lowest precedence first: the user's
// (~/.claude/agents, ~/.reins/agents) then the project's (.claude/agents, .reins/agents).
// Reins' own folder comes after Claude Code's of the same level, so it wins a name clash.
func Dirs(home, configDir, project string) []Dir {
	var out []Dir
	if home != "" {
		out = append(out, Dir{filepath.Join(home, ".claude", "agents"), SourceUser})
	}
	if configDir != "" {
		out = append(out, Dir{filepath.Join(configDir, "agents"), SourceUser})
	}
	if project != "" {
		out = append(out,
			Dir{filepath.Join(project, ".claude", "agents"), SourceProject},
			Dir{filepath.Join(project, ".reins", "agents"), SourceProject})
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
