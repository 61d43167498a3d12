package commands

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/reinsdev/reins/boundedfile"
	"github.com/reinsdev/reins/frontmatter"
)

// Bounds on what is read: a command is a prompt of a few kilobytes, and a folder of them a
// few dozen files.
const (
	// MaxFileSize is the largest command file read; a larger one is reported and skipped.
	MaxFileSize = 128 << 10
	// MaxCommands is how many command files are read in all; the rest are reported.
	MaxCommands = 1000
	// MaxDepth is how deep below a root command folders are read.
	MaxDepth = 8
)

// Source says where a command came from: "user", "project" or "plugin:<name>".
type Source string

const (
	SourceUser    Source = "user"
	SourceProject Source = "project"
)

// PluginSource is the source of a plugin's commands.
func PluginSource(name string) Source { return Source("plugin:" + name) }

// Plugin is the plugin a "plugin:<name>" source names.
func (s Source) Plugin() (string, bool) { return strings.CutPrefix(string(s), "plugin:") }

// NeedsTrust reports whether the source's rules wait for the workspace trust: the project's
// files are whatever the repository holds, and a plugin is governed as the project's own
// configuration, whoever enabled it.
func (s Source) NeedsTrust() bool {
	_, plugin := s.Plugin()
	return s == SourceProject || plugin
}

// Root is a folder of command files (or one command file, which a plugin's manifest may name)
// and the source they count as. A plugin's commands are named "<plugin>:<name>", as Claude
// Code names them, so they clash with no one else's.
type Root struct {
	Path   string
	Source Source
}

// Dirs returns the folders Reins reads commands from, lowest precedence first: the user's
// (claudeDir/commands, ~/.claude/commands, then configDir/commands, ~/.reins/commands) and the
// project's (.claude/commands, then .reins/commands). Reins' folder comes after Claude Code's
// of the same level, so it wins a clash there. A plugin's commands/ folder is one more Root,
// placed by the caller.
func Dirs(claudeDir, configDir, project string) []Root {
	var out []Root
	if claudeDir != "" {
		out = append(out, Root{filepath.Join(claudeDir, "commands"), SourceUser})
	}
	if configDir != "" {
		out = append(out, Root{filepath.Join(configDir, "commands"), SourceUser})
	}
	if project != "" {
		out = append(out,
			Root{filepath.Join(project, ".claude", "commands"), SourceProject},
			Root{filepath.Join(project, ".reins", "commands"), SourceProject})
	}
	return out
}

// Set is the commands in effect.
type Set struct {
	byName map[string]*Command
	// Errors are the files that could not be used, each with its position.
	Errors []error
	// Shadowed names the files a later root's command of the same name replaced.
	Shadowed []string
}

// Load reads every *.md file below roots, in order; a later root's command replaces an
// earlier one of the same name. A missing root is no error.
func Load(ctx context.Context, roots []Root) *Set {
	s := &Set{byName: map[string]*Command{}}
	count := 0
	for _, r := range roots {
		for _, p := range s.files(r) {
			if count++; count > MaxCommands {
				s.Errors = append(s.Errors, fmt.Errorf("%s: skipped: more than %d command files", p, MaxCommands))
				continue
			}
			s.add(ctx, r, p)
		}
	}
	return s
}

// files lists a root's command files in a stable order, reporting what cannot be listed.
func (s *Set) files(r Root) []string {
	var out []string
	err := filepath.WalkDir(r.Path, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if p == r.Path && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			s.Errors = append(s.Errors, err)
			return nil
		}
		if e.IsDir() {
			if p != r.Path && strings.Count(rel(r.Path, p), string(filepath.Separator)) >= MaxDepth-1 {
				s.Errors = append(s.Errors, fmt.Errorf("%s: skipped: folders deeper than %d", p, MaxDepth))
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(e.Name(), ".md") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		s.Errors = append(s.Errors, err)
	}
	sort.Strings(out)
	return out
}

func rel(root, p string) string {
	r, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	return r
}

// add reads one file and puts its command in the set.
func (s *Set) add(ctx context.Context, r Root, p string) {
	relPath := rel(r.Path, p)
	if p == r.Path {
		relPath = filepath.Base(p) // a root that is one file
	}
	name, err := NameOf(relPath)
	if err != nil {
		s.Errors = append(s.Errors, fmt.Errorf("%s: %w", p, err))
		return
	}
	if plugin, ok := r.Source.Plugin(); ok {
		name = plugin + ":" + name
	}
	data, err := boundedfile.Read(ctx, p, boundedfile.Limits{MaxBytes: MaxFileSize, Kind: "command file"})
	if err != nil {
		s.Errors = append(s.Errors, err)
		return
	}
	c, err := Parse(p, data, name, r.Source)
	if err != nil {
		s.Errors = append(s.Errors, err)
		return
	}
	if old, ok := s.byName[name]; ok {
		s.Shadowed = append(s.Shadowed, fmt.Sprintf("/%s of %s (%s) is replaced by %s (%s)", name, old.File, old.Source, p, r.Source))
	}
	s.byName[name] = c
}

// NameOf turns a path below a root into a command name: "frontend/lint.md" is "frontend:lint".
// Each part is letters, digits, '-', '_' and '.', so a name is one word on a prompt line.
func NameOf(relPath string) (string, error) {
	base, ok := strings.CutSuffix(filepath.ToSlash(relPath), ".md")
	if !ok {
		return "", errors.New("a command file's name must end in .md")
	}
	parts := strings.Split(base, "/")
	for _, part := range parts {
		if part == "" || !validPart(part) {
			return "", fmt.Errorf("invalid command name %q: use letters, digits, '-', '_' and '.' in file and folder names", strings.Join(parts, ":"))
		}
	}
	return strings.Join(parts, ":"), nil
}

func validPart(s string) bool {
	if len(s) > 64 || s[0] == '.' {
		return false
	}
	for _, r := range s {
		ok := r == '-' || r == '_' || r == '.' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok {
			return false
		}
	}
	return true
}

// Lookup finds a command by name (without the slash).
func (s *Set) Lookup(name string) (*Command, bool) {
	if s == nil {
		return nil, false
	}
	c, ok := s.byName[name]
	return c, ok
}

// All returns the commands sorted by name.
func (s *Set) All() []*Command {
	if s == nil {
		return nil
	}
	out := make([]*Command, 0, len(s.byName))
	for _, c := range s.byName {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *Command) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Warnings are the set's errors and shadowed files as lines for the person.
func (s *Set) Warnings() []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, err := range s.Errors {
		out = append(out, "command skipped: "+err.Error())
	}
	for _, sh := range s.Shadowed {
		out = append(out, "command "+sh)
	}
	return out
}

// knownKeys are the front matter keys of a command file (Claude Code's).
var knownKeys = []string{"allowed-tools", "description", "argument-hint", "model", "disable-model-invocation"}

// Parse reads one command file's content. file names it in errors.
func Parse(file string, data []byte, name string, src Source) (*Command, error) {
	fm, err := frontmatter.Parse(file, data, knownKeys, MaxFileSize)
	if err != nil {
		return nil, err
	}
	c := &Command{Name: name, Source: src, File: file, Body: string(fm.Body), BodyLine: fm.BodyLine}
	if c.Description, err = fm.Str("description", false); err != nil {
		return nil, err
	}
	if c.ArgumentHint, err = fm.Str("argument-hint", false); err != nil {
		return nil, err
	}
	if c.Model, err = fm.Str("model", false); err != nil {
		return nil, err
	}
	if c.DisableModelInvocation, err = fm.Bool("disable-model-invocation"); err != nil {
		return nil, err
	}
	items, err := fm.Entries("allowed-tools")
	if err != nil {
		return nil, err
	}
	if c.allowed, err = parseAllowed(file, items); err != nil {
		return nil, err
	}
	if strings.TrimSpace(c.Body) == "" {
		return nil, &frontmatter.Error{File: file, Line: fm.BodyLine, Col: 1, Msg: "the command's prompt (the Markdown after the front matter) is empty"}
	}
	if c.Description == "" {
		c.Description = firstLine(c.Body)
	}
	return c, nil
}

// firstLine is the description of a command without one, as Claude Code shows it.
func firstLine(body string) string {
	for l := range strings.SplitSeq(body, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if r := []rune(l); len(r) > 100 {
				l = string(r[:100]) + "…"
			}
			return l
		}
	}
	return ""
}
