package memory

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/reinsdev/reins/boundedfile"
)

// The bounds of what one Loader reads. Claude Code warns at 40,000 characters a file; a file
// over MaxFileBytes is refused, so the prompt never holds more than MaxTotalBytes of memory.
const (
	MaxFileBytes   = 64 << 10
	MaxTotalBytes  = 256 << 10
	MaxFiles       = 64
	MaxImportDepth = 5
)

// Source says where a memory file comes from.
type Source string

const (
	SourceManaged Source = "managed"
	SourceUser    Source = "user"
	SourceProject Source = "project"
	SourceLocal   Source = "local"
	// SourceNested is a project file below the working directory, read when the agent first
	// worked there.
	SourceNested Source = "nested"
)

// File is one memory file read.
type File struct {
	Path    string
	Source  Source
	Content string
	// ImportedBy is the file whose @ import brought this one in; empty for a file found by
	// discovery.
	ImportedBy string
	// Depth is how many imports away from a discovered file this one is.
	Depth int
	// Untrusted marks a project's file (or an import of one) while the project is not trusted.
	Untrusted bool
}

// Warning is a memory file left out, or an import that was not followed. Line and Col (1-based,
// bytes) are set for an import.
type Warning struct {
	Path      string
	Line, Col int
	Message   string
}

func (w Warning) String() string {
	if w.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", w.Path, w.Line, w.Col, w.Message)
	}
	return fmt.Sprintf("%s: %s", w.Path, w.Message)
}

// Options says where the memory files are.
type Options struct {
	// Cwd is the working directory; it must be absolute.
	Cwd string
	// Home is what ~/ expands to in imports; empty leaves ~/ imports unresolved.
	Home string
	// ConfigDir is Reins' user folder, ClaudeConfigDir Claude Code's; empty ones are skipped.
	ConfigDir, ClaudeConfigDir string
	// ManagedDirs are the managed settings folders, in order.
	ManagedDirs []string
	// Trusted is whether the person trusted the project (`reins trust`).
	Trusted bool
	// Access is the session's read rules, which memory meets as the Read tool does. Nil
	// refuses nothing and records nothing.
	Access Access
	// NoUser leaves out the user files, NoProject the project, local and nested ones
	// (--setting-sources without them).
	NoUser, NoProject bool
}

// Access is what the session's permission rules say of the files memory reads. An import is a
// read: a file the Read tool could not read without asking stays out, and a read of a file of
// secrets is recorded as the Read tool's is (the session's taint). The session implements it
// over its permission engine; memory knows nothing of rules.
type Access interface {
	// CheckRead says why the Read rules keep path (absolute) from being read, naming the rule,
	// or "" when they do not. An ask rule keeps it too: no one is there to answer while memory
	// loads. A path outside the working directories is no reason: memory reaches there.
	CheckRead(ctx context.Context, path string) string
	// Secret reports whether path is a file of secrets (the taint table).
	Secret(ctx context.Context, path string) bool
	// Read is told of every file memory read, after the read, by the path as written: the
	// session records the secret ones (through whatever symlinks) as the Read tool's reads are
	// recorded.
	Read(ctx context.Context, path string)
}

// Loader reads memory files within one budget and remembers what it has read, so that nested
// files come once. It is safe for concurrent use.
type Loader struct {
	opts Options
	root string // the project root

	mu       sync.Mutex
	seen     map[string]bool // real paths read or refused
	visited  map[string]bool // folders whose nested files were looked for
	total    int64
	files    int
	warnings []Warning
}

// NewLoader returns a Loader for opts.
func NewLoader(opts Options) *Loader {
	opts.Cwd = filepath.Clean(opts.Cwd)
	return &Loader{opts: opts, root: ProjectRoot(opts.Cwd), seen: map[string]bool{}, visited: map[string]bool{}}
}

// Root is the project root: the folder whose tree project memory may import from.
func (l *Loader) Root() string { return l.root }

// Warnings returns every warning so far.
func (l *Loader) Warnings() []Warning {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Warning(nil), l.warnings...)
}

// ProjectRoot is the top of the git work tree holding cwd, or cwd outside one.
func ProjectRoot(cwd string) string {
	if top, ok := GitTop(cwd); ok {
		return top
	}
	return cwd
}

// GitTop is the nearest folder from dir upwards that holds a .git entry (a folder, or the file
// of a worktree or submodule), and whether there is one.
func GitTop(dir string) (string, bool) {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// candidate is a file discovery looks for.
type candidate struct {
	path   string
	source Source
}

// Load reads the managed, user and project memory files in order, with their imports. Only a
// cancelled context is an error; everything else is a warning.
func (l *Loader) Load(ctx context.Context) ([]File, error) {
	var out []File
	for _, c := range l.candidates() {
		files, err := l.readTree(ctx, c)
		if err != nil {
			return out, err
		}
		out = append(out, files...)
	}
	return out, nil
}

// candidates lists the discovered files in load order.
func (l *Loader) candidates() []candidate {
	var out []candidate
	for _, d := range l.opts.ManagedDirs {
		out = append(out, candidate{filepath.Join(d, "CLAUDE.md"), SourceManaged}, candidate{filepath.Join(d, "AGENTS.md"), SourceManaged})
	}
	if !l.opts.NoUser {
		if d := l.opts.ConfigDir; d != "" {
			out = append(out, candidate{filepath.Join(d, "AGENTS.md"), SourceUser})
		}
		if d := l.opts.ClaudeConfigDir; d != "" {
			out = append(out, candidate{filepath.Join(d, "CLAUDE.md"), SourceUser})
		}
	}
	if l.opts.NoProject {
		return out
	}
	for _, d := range l.projectDirs() {
		out = append(out, folderFiles(d, SourceProject)...)
	}
	return out
}

// folderFiles are the memory files of one project folder.
func folderFiles(dir string, s Source) []candidate {
	local := SourceLocal
	if s == SourceNested {
		local = SourceNested
	}
	return []candidate{
		{filepath.Join(dir, "CLAUDE.md"), s},
		{filepath.Join(dir, ".claude", "CLAUDE.md"), s},
		{filepath.Join(dir, "AGENTS.md"), s},
		{filepath.Join(dir, "CLAUDE.local.md"), local},
	}
}

// projectDirs are the folders from the root down to cwd.
func (l *Loader) projectDirs() []string {
	var dirs []string
	for d := l.opts.Cwd; ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if d == l.root || d == filepath.Dir(d) {
			break
		}
	}
	for i, j := 0, len(dirs)-1; i < j; i, j = i+1, j-1 {
		dirs[i], dirs[j] = dirs[j], dirs[i]
	}
	return dirs
}

// Nested returns the memory files of the folders between the working directory (exclusive)
// and path (a file or folder a tool call touched), each folder once per Loader. A path outside
// the working directory has none.
func (l *Loader) Nested(ctx context.Context, path string) ([]File, error) {
	if l.opts.NoProject || !filepath.IsAbs(path) {
		return nil, nil
	}
	path = filepath.Clean(path)
	rel, err := filepath.Rel(l.opts.Cwd, path)
	if err != nil || rel == "." || !filepath.IsLocal(rel) {
		return nil, nil
	}
	dir := path
	if info, err := os.Stat(path); err != nil || !info.IsDir() {
		dir = filepath.Dir(path)
	}
	var dirs []string
	for d := dir; d != l.opts.Cwd && d != filepath.Dir(d); d = filepath.Dir(d) {
		dirs = append(dirs, d)
	}
	var out []File
	for i := len(dirs) - 1; i >= 0; i-- {
		if !l.visit(dirs[i]) {
			continue
		}
		for _, c := range folderFiles(dirs[i], SourceNested) {
			files, err := l.readTree(ctx, c)
			if err != nil {
				return out, err
			}
			out = append(out, files...)
		}
	}
	return out, nil
}

func (l *Loader) visit(dir string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.visited[dir] {
		return false
	}
	l.visited[dir] = true
	return true
}

// readTree reads one discovered file and its imports, depth first.
func (l *Loader) readTree(ctx context.Context, c candidate) ([]File, error) {
	fromProject := c.source == SourceProject || c.source == SourceLocal || c.source == SourceNested
	if _, err := os.Lstat(c.path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	var out []File
	var walk func(f File, importPos Warning) error
	walk = func(f File, at Warning) error {
		content, ok, err := l.read(ctx, f.Path, fromProject, at)
		if err != nil || !ok {
			return err
		}
		f.Content = content
		out = append(out, f)
		for _, imp := range Imports(content) {
			pos := Warning{Path: f.Path, Line: imp.Line, Col: imp.Col}
			target, ok := l.resolve(f.Path, imp.Path)
			if !ok {
				l.warn(pos, "import @%s: ~/ cannot be resolved without a home folder", imp.Path)
				continue
			}
			if f.Depth >= MaxImportDepth {
				l.warn(pos, "import @%s not followed: imports nest at most %d deep", imp.Path, MaxImportDepth)
				continue
			}
			child := File{Path: target, Source: f.Source, ImportedBy: f.Path, Depth: f.Depth + 1, Untrusted: f.Untrusted}
			if err := walk(child, pos); err != nil {
				return err
			}
		}
		return nil
	}
	err := walk(File{Path: c.path, Source: c.source, Untrusted: fromProject && c.source != SourceLocal && !l.opts.Trusted}, Warning{})
	return out, err
}

// resolve makes an import's path absolute.
func (l *Loader) resolve(importer, p string) (string, bool) {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if l.opts.Home == "" {
			return "", false
		}
		return filepath.Join(l.opts.Home, strings.TrimPrefix(p, "~")), true
	case filepath.IsAbs(p):
		return filepath.Clean(p), true
	case rootedWithoutDrive(p):
		// On Windows "@/etc/x" is on the importer's drive, as Windows opens it, never a
		// folder beside the importer.
		return filepath.Clean(filepath.VolumeName(importer) + p), true
	}
	return filepath.Join(filepath.Dir(importer), p), true
}

// rootedWithoutDrive reports a Windows path that starts at a root but names no drive or share:
// "\x" or "/x". It is never true where "/" is the separator (such a path is absolute there).
func rootedWithoutDrive(p string) bool {
	return filepath.Separator == '\\' && p != "" && os.IsPathSeparator(p[0]) && (len(p) == 1 || !os.IsPathSeparator(p[1]))
}

// read reads one file within the budget; ok is false when it was left out (with a warning,
// unless it was read before). at is the import's position, empty for a discovered file.
func (l *Loader) read(ctx context.Context, path string, fromProject bool, at Warning) (string, bool, error) {
	imported := at.Path != ""
	if at.Path == "" {
		at.Path = path
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		if imported {
			l.warn(at, "import %s: %v", path, describe(err))
		} else if !errors.Is(err, fs.ErrNotExist) {
			l.warn(at, "memory file left out: %v", describe(err))
		}
		return "", false, nil
	}
	if msg := l.refusal(ctx, path, real, fromProject, imported); msg != "" {
		l.warn(at, "%s", msg)
		return "", false, nil
	}
	l.mu.Lock()
	if l.seen[real] {
		l.mu.Unlock()
		return "", false, nil
	}
	l.seen[real] = true
	if l.files >= MaxFiles {
		l.mu.Unlock()
		l.warn(at, "%s left out: at most %d memory files are read", path, MaxFiles)
		return "", false, nil
	}
	budget := min(int64(MaxFileBytes), MaxTotalBytes-l.total)
	l.mu.Unlock()

	if budget <= 0 {
		l.warn(at, "%s left out: memory files may total at most %d bytes (%s)", path, MaxTotalBytes, boundedfile.FormatLimit(MaxTotalBytes))
		return "", false, nil
	}
	data, err := boundedfile.Read(ctx, real, boundedfile.Limits{MaxBytes: budget, Kind: "memory file"})
	if err != nil {
		if ctx.Err() != nil {
			return "", false, fmt.Errorf("reading memory file %s: %w", path, err)
		}
		var big *boundedfile.TooLargeError
		if errors.As(err, &big) && budget < MaxFileBytes {
			l.warn(at, "%s left out: memory files may total at most %d bytes (%s) and it does not fit", path, MaxTotalBytes, boundedfile.FormatLimit(MaxTotalBytes))
		} else {
			l.warn(at, "memory file left out: %v", err)
		}
		return "", false, nil
	}
	if bytes.IndexByte(data, 0) >= 0 {
		l.warn(at, "memory file %s left out: it holds NUL bytes, so it is not text", path)
		return "", false, nil
	}
	l.mu.Lock()
	l.total += int64(len(data))
	l.files++
	l.mu.Unlock()
	if a := l.opts.Access; a != nil {
		a.Read(ctx, path)
	}
	return string(data), true, nil
}

// refusal says why a file may not be read as memory, or "". An import, and every file of a
// project's memory, meets the Read rules; the person's and the organization's own memory files
// in their own folders are what memory is, and only their imports meet them. A project's memory
// may not read a file of secrets at all: its authors have no business putting the person's
// secrets in front of the model. Another memory file's read of one taints the session, as the
// Read tool's would (Access.Read).
func (l *Loader) refusal(ctx context.Context, path, real string, fromProject, imported bool) string {
	a := l.opts.Access
	if a == nil {
		a = noAccess{}
	}
	if imported || fromProject {
		why := a.CheckRead(ctx, path)
		if why == "" && real != path {
			why = a.CheckRead(ctx, real)
		}
		if why != "" {
			return fmt.Sprintf("%s left out: %s", path, why)
		}
	}
	if fromProject && (a.Secret(ctx, path) || a.Secret(ctx, real)) {
		return fmt.Sprintf("%s left out: it is a file of secrets, which a project's memory may not bring into the conversation", path)
	}
	if fromProject && !l.opts.Trusted && !inside(real, l.realRoot()) {
		return fmt.Sprintf("%s left out: it is outside the project %s, and the project's memory may reach outside only once the project is trusted (reins trust)", path, l.root)
	}
	return ""
}

// noAccess is the Access of a Loader without one: nothing refused, nothing recorded.
type noAccess struct{}

func (noAccess) CheckRead(context.Context, string) string { return "" }
func (noAccess) Secret(context.Context, string) bool      { return false }
func (noAccess) Read(context.Context, string)             {}

func (l *Loader) realRoot() string {
	if r, err := filepath.EvalSymlinks(l.root); err == nil {
		return r
	}
	return l.root
}

func inside(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

func (l *Loader) warn(at Warning, format string, args ...any) {
	at.Message = fmt.Sprintf(format, args...)
	l.mu.Lock()
	l.warnings = append(l.warnings, at)
	l.mu.Unlock()
}

// describe shortens a path error to what went wrong; the caller names the path.
func describe(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "no such file"
		case errors.Is(err, fs.ErrPermission):
			return "permission denied"
		}
		return pe.Err.Error()
	}
	return err.Error()
}
