package search

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools/internal/schemax"
)

// GrepName is the Grep tool's name.
const GrepName = "Grep"

// defaultHeadLimit is how many lines, files or count entries Grep returns when head_limit is
// not given.
const defaultHeadLimit = 250

// GrepInput is the Grep tool's input, with Claude Code's field names.
type GrepInput struct {
	Pattern     string `json:"pattern" jsonschema:"The regular expression to search file contents for"`
	Path        string `json:"path,omitempty" jsonschema:"File or directory to search in. Defaults to the current working directory"`
	Glob        string `json:"glob,omitempty" jsonschema:"Only search files matching this glob, e.g. \"*.js\" or \"*.{ts,tsx}\"; several globs may be separated by spaces or commas"`
	OutputMode  string `json:"output_mode,omitempty" jsonschema:"\"content\" shows matching lines (honours -A/-B/-C, -n and head_limit), \"files_with_matches\" lists matching files (the default), \"count\" shows the number of matching lines per file"`
	Before      *int   `json:"-B,omitempty" jsonschema:"Number of lines to show before each match (content mode only)"`
	After       *int   `json:"-A,omitempty" jsonschema:"Number of lines to show after each match (content mode only)"`
	C           *int   `json:"-C,omitempty" jsonschema:"Number of lines to show before and after each match (content mode only)"`
	Context     *int   `json:"context,omitempty" jsonschema:"Same as -C; wins over -C, -A and -B"`
	LineNumbers *bool  `json:"-n,omitempty" jsonschema:"Show line numbers (content mode only). Defaults to true"`
	IgnoreCase  bool   `json:"-i,omitempty" jsonschema:"Search case-insensitively"`
	Type        string `json:"type,omitempty" jsonschema:"File type to search (ripgrep's --type), e.g. js, py, go, rust. More efficient than glob for standard file types"`
	HeadLimit   *int   `json:"head_limit,omitempty" jsonschema:"Return only the first N lines, files or count entries (after offset). Defaults to 250; 0 means no limit"`
	Offset      int    `json:"offset,omitempty" jsonschema:"Skip the first N lines, files or count entries before applying head_limit. Defaults to 0"`
	Multiline   bool   `json:"multiline,omitempty" jsonschema:"Let patterns span lines and . match newlines. Defaults to false"`
}

// GrepOutput is Grep's structured result.
type GrepOutput struct {
	Mode          string   `json:"mode"`
	NumFiles      int      `json:"numFiles"`
	Filenames     []string `json:"filenames"`
	Content       string   `json:"content,omitempty"`
	NumLines      int      `json:"numLines,omitempty"`
	NumMatches    int      `json:"numMatches,omitempty"`
	AppliedLimit  *int     `json:"appliedLimit,omitempty"`
	AppliedOffset int      `json:"appliedOffset,omitempty"`
	Engine        string   `json:"engine"`
	DurationMs    int64    `json:"durationMs"`
}

const grepPrompt = `A content search tool built on ripgrep.

- Use Grep for every content search. Do not run grep or rg through Bash: this tool has the right permissions and its output is sized for you.
- Takes a full regular expression (Rust/RE2 syntax), e.g. "log.*Error" or "func\s+\w+". Look-around and backreferences are not supported.
- Literal braces need escaping: search for "interface\{\}" to find interface{} in Go code.
- Narrow the files with the glob parameter (e.g. "*.js", "**/*.tsx") or the type parameter (e.g. "js", "py", "rust").
- Output modes: "files_with_matches" (the default) lists the files, newest first; "content" shows the matching lines with their file and line number; "count" shows how many lines matched per file.
- Patterns match within a single line. To match across lines (e.g. "struct \{[\s\S]*?field"), set multiline: true.
- Results stop at head_limit (250 by default); use offset to page through more. .gitignore'd files and version-control folders are skipped; hidden files are searched.
- For open-ended searches that may take several rounds of globbing and grepping, plan them step by step.`

// NewGrep returns the Grep tool.
func NewGrep(opts Options) tool.Tool {
	g := &grepTool{opts: opts}
	if opts.Ripgrep != "" {
		e := rgEngine{path: opts.Ripgrep}
		if opts.Getenv != nil {
			e.env = rgEnv(opts.Getenv)
		}
		g.engine = e
	} else {
		g.engine = goEngine{workers: opts.Workers}
	}
	return tool.Build(tool.Def[GrepInput]{
		Name:           GrepName,
		SearchHint:     "search file contents with regular expressions (ripgrep)",
		Description:    "Search file contents with a regular expression",
		Prompt:         grepPrompt,
		MaxResultChars: grepMaxResultChars,
		SchemaJSON: schemax.Static(GrepName, func() *jsonschema.Schema {
			return schemax.For[GrepInput](func(s *jsonschema.Schema) {
				schemax.Enum(s.Properties["output_mode"], string(modeContent), string(modeFiles), string(modeCount))
				for _, k := range []string{"-A", "-B", "-C", "context", "head_limit", "offset"} {
					s.Properties[k].Minimum = schemax.Ptr(0.0)
				}
			})
		}),
		Validate:         g.validate,
		CheckPermissions: g.checkPermissions,
		ReadOnly:         func(GrepInput) bool { return true },
		ConcurrencySafe:  func(GrepInput) bool { return true },
		Paths:            func(in GrepInput) []string { return []string{cmp.Or(in.Path, ".")} },
		UserFacingName:   func(GrepInput) string { return "Search" },
		Call:             g.call,
	})
}

// grepMaxResultChars is Grep's cap on the result the model sees whole, as Claude Code's.
const grepMaxResultChars = 20_000

// contentSinkLimit is the most content output held in memory (4 bytes a character the model
// may see) before it goes to a file. A variable so that tests can reach the file with little
// output.
var contentSinkLimit = 4 * grepMaxResultChars

type grepTool struct {
	opts   Options
	engine engine
}

func (g *grepTool) validate(ctx context.Context, in GrepInput, env *tool.Env) *tool.Failure {
	pc, err := permissionsOf(env)
	if err != nil {
		return tool.Fail(err.Error())
	}
	if in.Path != "" {
		abs, err := pc.ResolvePath(in.Path)
		if err != nil {
			return tool.Failf("Invalid path %q: %v", in.Path, err)
		}
		if _, err := os.Stat(abs); err != nil {
			return tool.Failf("Path does not exist: %s. %s", in.Path, cwdNote(pc.Cwd()))
		}
	}
	if fail := validatePattern(in.Pattern, in.IgnoreCase, in.Multiline); fail != nil {
		return fail
	}
	if in.Type != "" {
		if _, err := typeGlobs(in.Type); err != nil {
			return tool.Failf("Unknown file type %q for the type parameter (ripgrep: %v)", in.Type, err)
		}
	}
	if _, err := newOverrides(splitGlobs(in.Glob)); err != nil {
		return tool.Failf("Invalid glob parameter: %v", err)
	}
	return nil
}

func (g *grepTool) checkPermissions(ctx context.Context, pc *permission.Context, in GrepInput) permission.Decision {
	return pc.CheckRead(ctx, cmp.Or(in.Path, pc.Cwd()))
}

// contextLines resolves Claude Code's precedence: context, then -C, then -B/-A.
func contextLines(in GrepInput) (before, after int) {
	switch {
	case in.Context != nil:
		return *in.Context, *in.Context
	case in.C != nil:
		return *in.C, *in.C
	}
	if in.Before != nil {
		before = *in.Before
	}
	if in.After != nil {
		after = *in.After
	}
	return before, after
}

func (g *grepTool) call(ctx context.Context, in GrepInput, env *tool.Env) (tool.Result, error) {
	start := time.Now()
	pc, err := permissionsOf(env)
	if err != nil {
		return tool.Result{}, err
	}
	cwd := pc.Cwd()
	target := cwd
	if in.Path != "" {
		if target, err = pc.ResolvePath(in.Path); err != nil {
			return tool.Result{}, err
		}
	}
	fi, err := os.Stat(target)
	if err != nil {
		return tool.ErrorResult(fmt.Sprintf("Path does not exist: %s. %s", cmp.Or(in.Path, target), cwdNote(cwd))), nil
	}
	q := &query{
		pattern:     in.Pattern,
		ignoreCase:  in.IgnoreCase,
		multiline:   in.Multiline,
		mode:        outputMode(cmp.Or(in.OutputMode, string(modeFiles))),
		lineNumbers: in.LineNumbers == nil || *in.LineNumbers,
		globs:       splitGlobs(in.Glob),
		fileType:    in.Type,
		root:        target,
		getenv:      g.opts.getenv(),
		cwd:         cwd,
	}
	if q.mode == modeContent {
		q.before, q.after = contextLines(in)
	}
	if q.mode == modeContent && env.CreateResultFile != nil {
		// The output may go to a file: then the files' text need not stay in memory either.
		q.spill = &spill{}
		defer q.spill.close()
	}
	var results []*fileResult
	if fi.IsDir() {
		results, err = g.engine.search(ctx, q)
	} else {
		q.root, q.file = filepath.Dir(target), filepath.Base(target)
		// Both engines skip binary files; a binary file named explicitly is skipped too
		// rather than reported the way rg reports it ("binary file matches").
		if !isBinaryFile(target) {
			results, err = g.engine.search(ctx, q)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{}, ctx.Err()
		}
		return tool.Result{}, err
	}
	if denied := readDenied(ctx, pc); denied != nil {
		results = slices.DeleteFunc(results, func(r *fileResult) bool {
			return denied(filepath.Join(q.root, filepath.FromSlash(r.rel)))
		})
	}
	out, err := render(q, results, cwd, in.HeadLimit, in.Offset, env.CreateResultFile)
	if err != nil {
		return tool.Result{}, err
	}
	out.Engine = g.engine.name()
	out.DurationMs = time.Since(start).Milliseconds()
	res := tool.Result{Content: []tool.Content{tool.Text(out.text)}, Output: out.GrepOutput}
	if out.file != nil {
		res = tool.Result{TextFile: out.file, Output: out.GrepOutput}
	}
	res.Reads = matchedFiles(q, results)
	return res, nil
}

// matchedFiles are the files that matched, for the taint check: content mode shows their
// lines, and the other modes still tell what a file holds (a name listed for the pattern
// "KEY=a" says how the key starts; enough such searches spell it). Files a page leaves out
// count too, the safe side.
func matchedFiles(q *query, results []*fileResult) []string {
	reads := make([]string, len(results))
	for i, r := range results {
		reads[i] = filepath.Join(q.root, filepath.FromSlash(r.rel))
	}
	return reads
}

// isBinaryFile reports whether a file holds a NUL byte, ripgrep's test for binary data.
func isBinaryFile(path string) bool {
	var scratch []byte
	data, release, err := loadFile(path, &scratch)
	if err != nil {
		return false
	}
	defer release()
	return bytes.IndexByte(data, 0) >= 0
}

// rendered is a result's text, or the file that holds it, and structured output.
type rendered struct {
	GrepOutput
	text string
	file *tool.TextFile
}

// render sorts the results, applies pagination and formats them as Claude Code does. A
// content page that outgrows what the model may see whole (4 bytes a character) goes to a
// file from create, when set; its GrepOutput.Content is then empty.
func render(q *query, results []*fileResult, cwd string, headLimit *int, offset int, create func() (*os.File, error)) (rendered, error) {
	out := rendered{GrepOutput: GrepOutput{Mode: string(q.mode), Filenames: []string{}}}
	switch q.mode {
	case modeContent:
		if err := renderContentPage(&out, q, results, headLimit, offset, create); err != nil {
			return out, err
		}
	case modeCount:
		renderCountPage(&out, q, results, headLimit, offset)
	default:
		renderFilesPage(&out, q, results, headLimit, offset)
	}
	return out, nil
}

// renderContentPage renders content mode: the page of matched lines, in path order.
func renderContentPage(out *rendered, q *query, results []*fileResult, headLimit *int, offset int, create func() (*os.File, error)) error {
	// Stable: the parts of a file rg printed in parts (see parseRg) keep their order.
	slices.SortStableFunc(results, byRel)
	w := &textSink{create: create, limit: contentSinkLimit}
	n, limit, err := writeContent(w, q, results, headLimit, offset)
	if err != nil {
		w.abort()
		return err
	}
	w.trimNewline()
	contentLen := w.size
	if contentLen == 0 {
		w.WriteString("No matches found")
	}
	if info := limitInfo(limit, offset); info != "" {
		w.WriteString("\n\n[Showing results with pagination = " + info + "]")
	}
	text, file, err := w.finish()
	if err != nil {
		return err
	}
	out.text, out.file = text, file
	if file == nil {
		// The page itself, without the notes after it (no copy: a part of text).
		out.Content = text[:contentLen]
	}
	out.NumLines, out.AppliedLimit, out.AppliedOffset = n, limit, offset
	return nil
}

// renderCountPage renders count mode: "path:count" for each file of the page, in path order,
// and the total.
func renderCountPage(out *rendered, q *query, results []*fileResult, headLimit *int, offset int) {
	slices.SortFunc(results, byRel)
	lo, hi, limit := paginateRange(len(results), headLimit, offset)
	page := results[lo:hi]
	matches := 0
	names := make([]string, len(page))
	size := 0
	for i, r := range page {
		names[i] = q.display(r.rel)
		size += len(names[i]) + 12
	}
	var b strings.Builder
	b.Grow(size)
	for i, r := range page {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(names[i])
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(r.lines))
		matches += r.lines
	}
	content := b.String()
	out.Content, out.NumFiles, out.NumMatches, out.AppliedLimit, out.AppliedOffset = content, len(page), matches, limit, offset
	text := cmp.Or(content, "No matches found")
	text += fmt.Sprintf("\n\nFound %d total %s across %d %s.", matches, plural(matches, "occurrence", "occurrences"), len(page), plural(len(page), "file", "files"))
	if info := limitInfo(limit, offset); info != "" {
		text += " with pagination = " + info
	}
	out.text = text
}

// renderFilesPage renders files_with_matches mode: the page of paths, most recently modified
// first.
func renderFilesPage(out *rendered, q *query, results []*fileResult, headLimit *int, offset int) {
	page, limit := paginate(newestFirst(q, results), headLimit, offset)
	out.Filenames, out.NumFiles, out.AppliedLimit, out.AppliedOffset = page, len(page), limit, offset
	if len(page) == 0 {
		out.text = "No files found"
		return
	}
	head := fmt.Sprintf("Found %d %s", len(page), plural(len(page), "file", "files"))
	if info := limitInfo(limit, offset); info != "" {
		head += " " + info
	}
	out.text = head + "\n" + strings.Join(page, "\n")
}

// newestFirst returns the results' display names by modification time, newest first, and
// by path among equal times (a file that cannot be stat'ed counts as the oldest).
func newestFirst(q *query, results []*fileResult) []string {
	type entry struct {
		r     *fileResult
		mtime time.Time
	}
	entries := make([]entry, len(results))
	// One stat per matching file: on a large tree (19,000 matches) these are a fifth of
	// the search's time, so they are spread over the cores like the search itself.
	parallelChunks(len(entries), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			r := results[i]
			entries[i].r = r
			if mt, ok := modTime(filepath.Join(q.root, filepath.FromSlash(r.rel))); ok {
				entries[i].mtime = mt
			}
		}
	})
	slices.SortFunc(entries, func(a, b entry) int {
		if c := b.mtime.Compare(a.mtime); c != 0 {
			return c
		}
		return strings.Compare(a.r.rel, b.r.rel)
	})
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = q.display(e.r.rel)
	}
	return names
}

// byRel orders results by path.
func byRel(a, b *fileResult) int { return strings.Compare(a.rel, b.rel) }

// writeContent prints the page of content lines that offset and headLimit select (see
// paginate) from the results' text, which is already in print form: a file wholly on the
// page is copied in one piece, and a "--" separates files when context was asked for. The
// page ends with its '\n'; the text of spilled files is read back from q.spill. It returns
// the page's number of lines and the limit applied. Results next to each other with the same
// path are parts of one file's lines, with no "--" between them.
func writeContent(w *textSink, q *query, results []*fileResult, headLimit *int, offset int) (int, *int, error) {
	sepBetween := q.context()
	total := 0
	for i, r := range results {
		total += r.lines
		if sepBetween && i > 0 && results[i-1].rel != r.rel {
			total++
		}
	}
	lo, hi, limit := paginateRange(total, headLimit, offset)
	if err := q.spill.readable(); err != nil {
		return 0, nil, err
	}
	// The page's size, estimated from the text of the files it covers, so that a large page
	// held in memory is built in one allocation instead of by doubling.
	size, idx := 0, 0
	for i, r := range results {
		if idx >= hi {
			break
		}
		if sepBetween && i > 0 && results[i-1].rel != r.rel {
			idx++
			size += 3
		}
		k := min(idx+r.lines, hi) - max(idx, lo) // lines of r on the page
		idx += r.lines
		if k > 0 {
			n := int(r.size())
			if k == r.lines {
				size += n
			} else {
				// At most two files are cut by the page's edges; their lines are
				// assumed as long as their average, with room to spare.
				size += n*k/r.lines + min(n/4, 64<<10)
			}
		}
	}
	w.grow(size)
	idx = 0
	for i, r := range results {
		if idx >= hi {
			break
		}
		if sepBetween && i > 0 && results[i-1].rel != r.rel {
			if idx >= lo {
				w.WriteString("--\n")
			}
			idx++
		}
		switch {
		case idx+r.lines <= lo: // before the page
			idx += r.lines
		case idx >= lo && idx+r.lines <= hi: // wholly on it
			q.spill.writing(results[i:])
			if err := q.spill.writeText(w, r); err != nil {
				return 0, nil, err
			}
			idx += r.lines
		default:
			q.spill.writing(results[i:])
			err := q.spill.forLines(r, func(line []byte) bool {
				if idx >= hi {
					return false
				}
				if idx >= lo {
					w.Write(line)
				}
				idx++
				return true
			})
			if err != nil {
				return 0, nil, err
			}
		}
	}
	return hi - lo, limit, w.err
}

// paginate skips offset items and keeps headLimit of the rest (default 250, 0 = all). The
// returned limit is set only when items were cut, as Claude Code reports it.
func paginate(items []string, headLimit *int, offset int) ([]string, *int) {
	lo, hi, limit := paginateRange(len(items), headLimit, offset)
	return items[lo:hi], limit
}

// paginateRange is paginate for n items: it returns the range kept.
func paginateRange(n int, headLimit *int, offset int) (lo, hi int, applied *int) {
	lo = min(offset, n)
	limit := defaultHeadLimit
	if headLimit != nil {
		limit = *headLimit
	}
	if limit == 0 || n-lo <= limit {
		return lo, n, nil
	}
	return lo, lo + limit, &limit
}

func limitInfo(limit *int, offset int) string {
	var parts []string
	if limit != nil {
		parts = append(parts, "limit: "+strconv.Itoa(*limit))
	}
	if offset > 0 {
		parts = append(parts, "offset: "+strconv.Itoa(offset))
	}
	return strings.Join(parts, ", ")
}

// parallelChunks calls f on consecutive chunks of [0, n) from up to GOMAXPROCS goroutines and
// returns when all are done. Small n runs in the caller's goroutine.
func parallelChunks(n int, f func(lo, hi int)) {
	const minChunk = 256
	workers := min(runtime.GOMAXPROCS(0), (n+minChunk-1)/minChunk)
	if workers <= 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	size := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += size {
		hi := min(lo+size, n)
		wg.Go(func() { f(lo, hi) })
	}
	wg.Wait()
}
