// Package skills reads skills: folders holding a SKILL.md (YAML front matter with a name, a
// description and optionally allowed-tools, then Markdown instructions) and whatever files
// the instructions refer to.
//
// A session offers the model only each skill's name and description; the Skill tool loads one
// on demand, giving the model its body and the paths of the other files in its folder (which
// the model reads with Read, each read decided as any other). Loading a skill runs nothing.
//
// Where skills come from, lowest precedence first: the project's .claude/skills and
// .reins/skills, then the user's ~/.claude/skills and ~/.reins/skills. The user's win a name
// clash, as in Claude Code: a cloned repository cannot replace a skill a person relies on.
// A plugin's skills are named "<plugin>:<skill>" and so clash with nothing.
//
// A skill's allowed-tools are allow rules it brings for the turn it drives, of source
// command. This package only produces them, with the file:line:col they were written at
// ([Skill.Rules]); the session applies them. A skill of an untrusted project, or of a plugin
// in one, loads (it is text) but its rules do not apply until the project is trusted.
//
// Every problem in a file is reported with its position and the skill is skipped; the rest
// still load. Files are read through boundedfile, and sizes and counts are bounded.
package skills

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

// Source says where a skill came from.
type Source int

const (
	SourceProject Source = iota
	SourceUser
	SourcePlugin
)

func (s Source) String() string {
	switch s {
	case SourceProject:
		return "project"
	case SourceUser:
		return "user"
	case SourcePlugin:
		return "plugin"
	}
	return "unknown"
}

// Bounds. A skill's instructions are a few kilobytes; the limits leave room and stop a
// hostile tree from costing time or memory at start-up.
const (
	// MaxFileSize bounds a SKILL.md.
	MaxFileSize = 256 << 10
	// MaxSkills bounds the skills of one root (folder); the rest are reported and skipped.
	MaxSkills = 200
	// MaxDescription bounds a description: it goes into every request's system prompt.
	MaxDescription = 1024
	// MaxFiles bounds the file paths the Skill tool lists from a skill's folder, and
	// maxDepth how deep it looks.
	MaxFiles = 200
	maxDepth = 4
)

// Grant is one allowed-tools entry: the rule's text and where it was written.
type Grant struct {
	Rule   string
	Origin permission.Origin
}

// Skill is one loaded skill.
type Skill struct {
	Name        string
	Description string
	// Grants are its allowed-tools, each checked by permission.ValidateRule.
	Grants  []Grant
	License string
	// DisableModelInvocation keeps the skill out of the model's list and the Skill tool.
	DisableModelInvocation bool
	Source                 Source
	// Plugin names the plugin a SourcePlugin skill came with.
	Plugin string
	// Trusted is false for a skill whose allowed-tools must not apply: an untrusted
	// project's, or a plugin's in an untrusted project (see Load).
	Trusted bool
	// Dir is the skill's folder and File its SKILL.md.
	Dir, File string
	// Body is the instructions after the front matter.
	Body string
}

// Rules are the skill's allowed-tools as allow rules of source command, each with its origin,
// or none while the skill is not trusted (why says so). They hold for the turn the skill
// drives and are never saved.
func (s *Skill) Rules() (rules []permission.Rule, why string) {
	if len(s.Grants) == 0 {
		return nil, ""
	}
	if !s.Trusted {
		return nil, fmt.Sprintf("%s: allowed-tools ignored: the project is not trusted (run reins trust)", s.File)
	}
	for _, g := range s.Grants {
		rules = append(rules, permission.Rule{Value: permission.ParseRule(g.Rule), Behavior: permission.Allow,
			Source: permission.SourceCommand, Origin: g.Origin})
	}
	return rules, ""
}

// Where says where the skill came from, for /skills.
func (s *Skill) Where() string {
	if s.Source == SourcePlugin {
		return "plugin " + s.Plugin
	}
	return s.Source.String()
}

// knownKeys are Claude Code's SKILL.md keys and the Agent Skills ones. Those Reins cannot
// honour are accepted by the reader and refused by name in ParseFile, so a skill never runs
// without what its author relied on.
var knownKeys = []string{"name", "description", "allowed-tools", "license", "metadata", "compatibility", "version",
	"disable-model-invocation", "user-invocable", "argument-hint", "when_to_use",
	"model", "context", "agent", "hooks"}

// unsupported are the keys whose meaning Reins does not implement.
var unsupported = map[string]string{
	"model":   "a skill cannot choose the model in Reins",
	"context": "skills run in the conversation that loads them in Reins (no forked context)",
	"agent":   "skills run in the conversation that loads them in Reins (no agent of their own)",
	"hooks":   "a skill's own hooks are not run by Reins; configure hooks in settings",
}

// validName is the Agent Skills name: lowercase letters, digits and single hyphens.
var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`) })

// Error is a problem in one file, at a position when it has one.
type Error = frontmatter.Error

// ParseFile parses a SKILL.md. dir is the skill's folder; its base name is the skill's name
// when the front matter gives none.
func ParseFile(file, dir string, data []byte) (*Skill, error) {
	fm, err := frontmatter.Parse(file, data, knownKeys, MaxFileSize)
	if err != nil {
		return nil, err
	}
	if !fm.Present {
		return nil, &Error{File: file, Line: 1, Col: 1, Msg: "missing YAML front matter: SKILL.md must start with a \"---\" line, a description, and another \"---\" line"}
	}
	for _, k := range knownKeys {
		if why, ok := unsupported[k]; ok && fm.Has(k) {
			return nil, fm.ErrAt(k, "%q is not supported: %s", k, why)
		}
	}
	s := &Skill{Dir: dir, File: file, Body: strings.TrimSpace(string(fm.Body))}
	if err := readHeader(fm, s, filepath.Base(dir)); err != nil {
		return nil, err
	}
	if s.Body == "" {
		return nil, &Error{File: file, Line: fm.BodyLine, Col: 1, Msg: "the skill's instructions (the Markdown after the front matter) are empty"}
	}
	return s, nil
}

// readHeader reads the keys that mean something: the name, the description, allowed-tools
// and the flags. The informative keys are checked to be strings.
func readHeader(fm *frontmatter.Doc, s *Skill, dirName string) error {
	var err error
	if s.Name, err = fm.Str("name", false); err != nil {
		return err
	}
	if s.Name == "" {
		s.Name = dirName
		if !validName().MatchString(s.Name) || len(s.Name) > 64 {
			return &Error{File: fm.File, Line: 2, Col: 1, Msg: fmt.Sprintf("no \"name\", and the folder's name %q is not a valid skill name: use lowercase letters, digits and '-' (at most 64)", dirName)}
		}
	} else if !validName().MatchString(s.Name) || len(s.Name) > 64 {
		return fm.ErrAt("name", "invalid skill name %q: use lowercase letters, digits and '-' (at most 64)", s.Name)
	}
	if s.Description, err = fm.Str("description", true); err != nil {
		return err
	}
	switch {
	case s.Description == "":
		return fm.ErrAt("description", "\"description\" must not be empty: the model chooses skills by it")
	case len(s.Description) > MaxDescription:
		return fm.ErrAt("description", "\"description\" is %d bytes; at most %d", len(s.Description), MaxDescription)
	}
	items, err := fm.Entries("allowed-tools")
	if err != nil {
		return err
	}
	for _, it := range items {
		if err := permission.ValidateRule(it.Value); err != nil {
			return &Error{File: fm.File, Line: it.Line, Col: it.Col, Msg: fmt.Sprintf("allowed-tools: invalid rule %q: %v", it.Value, err)}
		}
		s.Grants = append(s.Grants, Grant{Rule: permission.ParseRule(it.Value).String(),
			Origin: permission.Origin{File: fm.File, Line: it.Line, Col: it.Col}})
	}
	if s.DisableModelInvocation, err = fm.Bool("disable-model-invocation"); err != nil {
		return err
	}
	if _, err = fm.Bool("user-invocable"); err != nil {
		return err
	}
	if s.License, err = fm.Str("license", false); err != nil {
		return err
	}
	for _, k := range []string{"compatibility", "version", "argument-hint", "when_to_use"} {
		if _, err := fm.Str(k, false); err != nil {
			return err
		}
	}
	return nil
}

// Root is a folder of skill folders and what its skills count as.
type Root struct {
	Path   string
	Source Source
	// Plugin names the plugin of a SourcePlugin root.
	Plugin string
}

// Roots returns the user's and the project's skill folders, lowest precedence first: the
// project's (.claude/skills, .reins/skills) then the user's (~/.claude/skills, then the
// config folder's skills). Reins' folder follows Claude Code's of the same level, so it wins.
func Roots(home, configDir, project string) []Root {
	var out []Root
	if project != "" {
		out = append(out, Root{Path: filepath.Join(project, ".claude", "skills"), Source: SourceProject},
			Root{Path: filepath.Join(project, ".reins", "skills"), Source: SourceProject})
	}
	if home != "" {
		out = append(out, Root{Path: filepath.Join(home, ".claude", "skills"), Source: SourceUser})
	}
	if configDir != "" {
		out = append(out, Root{Path: filepath.Join(configDir, "skills"), Source: SourceUser})
	}
	return out
}

// Set is the skills of a session, by name.
type Set struct {
	byName map[string]*Skill
	// Errors are the skills that could not be used, each with its position.
	Errors []error
}

// Load reads every <root>/<name>/SKILL.md of roots in order; a later root replaces a skill of
// the same name. trusted says whether the project is trusted: the skills of project and
// plugin roots are marked Trusted only then. A missing root is no error.
func Load(ctx context.Context, roots []Root, trusted bool) *Set {
	s := &Set{byName: map[string]*Skill{}}
	for _, r := range roots {
		s.loadRoot(ctx, r, trusted)
	}
	return s
}

func (s *Set) loadRoot(ctx context.Context, r Root, trusted bool) {
	entries, err := os.ReadDir(r.Path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.Errors = append(s.Errors, fmt.Errorf("%s: %w", r.Path, err))
		}
		return
	}
	n := 0
	for _, e := range entries {
		if !isDir(r.Path, e) {
			continue
		}
		if n++; n > MaxSkills {
			s.Errors = append(s.Errors, fmt.Errorf("%s: more than %d skills; the rest were skipped", r.Path, MaxSkills))
			return
		}
		dir := filepath.Join(r.Path, e.Name())
		file := filepath.Join(dir, "SKILL.md")
		if err := staysInside(r, file); err != nil {
			s.Errors = append(s.Errors, err)
			continue
		}
		data, err := boundedfile.Read(ctx, file, boundedfile.Limits{MaxBytes: MaxFileSize, Kind: "skill file"})
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			s.Errors = append(s.Errors, err)
			continue
		}
		sk, err := ParseFile(file, dir, data)
		if err != nil {
			s.Errors = append(s.Errors, err)
			continue
		}
		sk.Source, sk.Plugin = r.Source, r.Plugin
		sk.Trusted = r.Source == SourceUser || trusted
		if r.Source == SourcePlugin {
			sk.Name = r.Plugin + ":" + sk.Name
		}
		s.byName[sk.Name] = sk
	}
}

// isDir reports whether a folder entry is a folder, following a symbolic link: people link
// their skills from elsewhere.
func isDir(root string, e fs.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&fs.ModeSymlink == 0 {
		return false
	}
	fi, err := os.Stat(filepath.Join(root, e.Name()))
	return err == nil && fi.IsDir()
}

// staysInside refuses a project's SKILL.md that leads, through links, out of the project's
// skills folder: its text would reach the model as the repository's own. A user's skills may
// be linked from anywhere; the person put them there. A missing file is left to the reader.
func staysInside(r Root, file string) error {
	if r.Source != SourceProject {
		return nil
	}
	real, err := filepath.EvalSymlinks(file)
	if err != nil {
		return nil
	}
	root, err := filepath.EvalSymlinks(r.Path)
	if err != nil {
		return nil
	}
	if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return &Error{File: file, Msg: fmt.Sprintf("a link out of the project's skills folder (to %s): a repository's skill must be inside it", real)}
	}
	return nil
}

// Get returns the skill named name, or nil.
func (s *Set) Get(name string) *Skill {
	if s == nil {
		return nil
	}
	return s.byName[name]
}

// All returns every skill, sorted by name.
func (s *Set) All() []*Skill {
	if s == nil {
		return nil
	}
	out := make([]*Skill, 0, len(s.byName))
	for _, sk := range s.byName {
		out = append(out, sk)
	}
	slices.SortFunc(out, func(a, b *Skill) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// ForModel returns the skills the model may load: all but those that disable model
// invocation.
func (s *Set) ForModel() []*Skill {
	return slices.DeleteFunc(s.All(), func(sk *Skill) bool { return sk.DisableModelInvocation })
}

// Files lists the regular files of the skill's folder other than SKILL.md, as absolute
// paths, sorted, at most MaxFiles of them and maxDepth folders deep. Symbolic links are
// listed, not followed: the model's Read of one is decided on where it leads. truncated says
// some were left out.
func (s *Skill) Files(ctx context.Context) (files []string, truncated bool, err error) {
	base := strings.Count(s.Dir, string(filepath.Separator))
	err = filepath.WalkDir(s.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable subfolder lists nothing
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() {
			if strings.Count(p, string(filepath.Separator))-base >= maxDepth {
				truncated = true
				return filepath.SkipDir
			}
			return nil
		}
		if p == s.File {
			return nil
		}
		if len(files) == MaxFiles {
			truncated = true
			return filepath.SkipAll
		}
		files = append(files, p)
		return nil
	})
	return files, truncated, err
}
