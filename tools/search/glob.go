package search

import (
	"cmp"
	"context"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools/internal/schemax"
)

// GlobName is the Glob tool's name.
const GlobName = "Glob"

// globLimit is how many paths Glob returns.
const globLimit = 100

const globTruncated = "(Results are truncated. Consider using a more specific path or pattern.)"

// GlobInput is the Glob tool's input.
type GlobInput struct {
	Pattern string `json:"pattern" jsonschema:"The glob pattern to match files against"`
	Path    string `json:"path,omitempty" jsonschema:"The directory to search in. If not specified, the current working directory is used. Omit it for the default rather than passing \"undefined\" or \"null\""`
}

// GlobOutput is Glob's structured result.
type GlobOutput struct {
	Filenames  []string `json:"filenames"`
	NumFiles   int      `json:"numFiles"`
	Truncated  bool     `json:"truncated"`
	DurationMs int64    `json:"durationMs"`
}

const globPrompt = `- Fast file pattern matching that works with any codebase size
- Supports glob patterns like "**/*.js" or "src/**/*.ts"; a pattern without a slash matches file names at any depth
- Returns matching file paths, most recently modified first, at most 100
- Hidden files are included; version-control folders are not, and .gitignore is not applied
- Use this tool when you need to find files by name patterns
- For an open-ended search that may take several rounds of globbing and grepping, plan it step by step
- You can call several tools in one response. It is often better to run several potentially useful searches at once.`

// NewGlob returns the Glob tool.
func NewGlob(opts Options) tool.Tool {
	g := &globTool{opts: opts}
	return tool.Build(tool.Def[GlobInput]{
		Name:        GlobName,
		SearchHint:  "find files by name pattern (wildcards)",
		Description: "Find files by glob pattern",
		Prompt:      globPrompt,
		// No MaxResultChars: Claude Code's 100,000 is above the 50,000 ceiling, the default.
		SchemaJSON: schemax.Static(GlobName, func() *jsonschema.Schema {
			return schemax.For[GlobInput](nil)
		}),
		Validate:         g.validate,
		CheckPermissions: g.checkPermissions,
		ReadOnly:         func(GlobInput) bool { return true },
		ConcurrencySafe:  func(GlobInput) bool { return true },
		Paths:            globPaths,
		UserFacingName:   func(GlobInput) string { return "Search" },
		Call:             g.call,
	})
}

type globTool struct {
	opts Options
}

func (g *globTool) validate(ctx context.Context, in GlobInput, env *tool.Env) *tool.Failure {
	pc, err := permissionsOf(env)
	if err != nil {
		return tool.Fail(err.Error())
	}
	if in.Path != "" {
		abs, err := pc.ResolvePath(in.Path)
		if err != nil {
			return tool.Failf("Invalid path %q: %v", in.Path, err)
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return tool.Failf("Directory does not exist: %s. %s", in.Path, cwdNote(pc.Cwd()))
		}
		if !fi.IsDir() {
			return tool.Failf("Path is not a directory: %s", in.Path)
		}
	}
	if !doublestar.ValidatePattern(filepath.ToSlash(in.Pattern)) {
		return tool.Failf("Invalid glob pattern %q: check for an unclosed [ or {", in.Pattern)
	}
	return nil
}

// checkPermissions checks the directory actually walked: the path joined with the pattern's
// fixed leading directories. (Claude Code checks only the path, so an absolute pattern such
// as /etc/** escapes the working directories without a prompt; Reins asks.)
func (g *globTool) checkPermissions(ctx context.Context, pc *permission.Context, in GlobInput) permission.Decision {
	root, err := pc.ResolvePath(cmp.Or(in.Path, "."))
	if err != nil {
		return pc.CheckRead(ctx, cmp.Or(in.Path, "."))
	}
	walkRoot, _ := splitGlob(root, in.Pattern)
	return pc.CheckRead(ctx, walkRoot)
}

// globPaths names the directory a call walks, relative to the current directory unless the
// path or the pattern is absolute.
func globPaths(in GlobInput) []string {
	root, _ := splitGlob(cmp.Or(in.Path, "."), in.Pattern)
	return []string{root}
}

// splitGlob turns a pattern into the directory to walk and the pattern to match against
// paths relative to it. Like `rg --files --glob`, a pattern without a slash matches file
// names at any depth; a pattern's leading fixed directories (src in src/**/*.go, or the
// directories of an absolute pattern) become part of the walked root.
func splitGlob(root, pattern string) (string, string) {
	p := filepath.ToSlash(pattern)
	if !strings.Contains(p, "/") {
		return root, "**/" + p
	}
	base, rest := doublestar.SplitPattern(p)
	if base == "." {
		return root, rest
	}
	if path.IsAbs(base) {
		return filepath.FromSlash(base), rest
	}
	return filepath.Join(root, filepath.FromSlash(base)), rest
}

func (g *globTool) call(ctx context.Context, in GlobInput, env *tool.Env) (tool.Result, error) {
	start := time.Now()
	pc, err := permissionsOf(env)
	if err != nil {
		return tool.Result{}, err
	}
	cwd := pc.Cwd()
	root := cwd
	if in.Path != "" {
		if root, err = pc.ResolvePath(in.Path); err != nil {
			return tool.Result{}, err
		}
	}
	files, err := globFiles(ctx, g.opts, root, in.Pattern)
	if err != nil {
		return tool.Result{}, err
	}
	if denied := readDenied(ctx, pc); denied != nil {
		files = slices.DeleteFunc(files, func(f globMatch) bool { return denied(f.abs) })
	}
	truncated := len(files) > globLimit
	if truncated {
		files = files[:globLimit]
	}
	out := GlobOutput{Filenames: make([]string, len(files)), NumFiles: len(files), Truncated: truncated}
	for i, f := range files {
		out.Filenames[i] = displayPath(cwd, f.abs)
	}
	out.DurationMs = time.Since(start).Milliseconds()
	text := "No files found"
	if len(files) > 0 {
		text = strings.Join(out.Filenames, "\n")
		if truncated {
			text += "\n" + globTruncated
		}
	}
	return tool.Result{Content: []tool.Content{tool.Text(text)}, Output: out}, nil
}

type globMatch struct {
	abs   string
	mtime time.Time
}

// globFiles returns every file under root matching pattern, newest first (ties by path).
// Hidden files are included and ignore files are not read, as Claude Code runs
// `rg --files --hidden --no-ignore`; version-control folders are skipped.
func globFiles(ctx context.Context, opts Options, root, pattern string) ([]globMatch, error) {
	walkRoot, pat := splitGlob(root, pattern)
	if fi, err := os.Stat(walkRoot); err != nil || !fi.IsDir() {
		return nil, nil
	}
	ov, err := newOverrides(vcsExclusions())
	if err != nil {
		return nil, err
	}
	var (
		mu    sync.Mutex
		found []globMatch
	)
	cfg := walkConfig{root: walkRoot, overrides: ov, workers: opts.Workers}
	err = walk(ctx, cfg, func(_ int, f fileEntry) {
		if !doublestar.MatchUnvalidated(pat, f.rel) {
			return
		}
		m := globMatch{abs: f.abs}
		if info, err := f.d.Info(); err == nil {
			m.mtime = info.ModTime()
		}
		mu.Lock()
		found = append(found, m)
		mu.Unlock()
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(found, func(a, b globMatch) int {
		if c := b.mtime.Compare(a.mtime); c != 0 {
			return c
		}
		return strings.Compare(a.abs, b.abs)
	})
	return found, nil
}
