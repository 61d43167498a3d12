package search

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"sync"

	"github.com/reinsdev/reins/tool"
)

// outputMode is Grep's output_mode.
type outputMode string

const (
	modeFiles   outputMode = "files_with_matches"
	modeContent outputMode = "content"
	modeCount   outputMode = "count"
)

// maxColumns is ripgrep's --max-columns as Claude Code sets it: a printed line longer than
// this many bytes, its line terminator included, is replaced by a notice.
const maxColumns = 500

const (
	omittedMatch   = "[Omitted long matching line]"
	omittedContext = "[Omitted long context line]"
)

// query is one search, resolved from the tool input.
type query struct {
	pattern     string
	ignoreCase  bool
	multiline   bool
	mode        outputMode
	lineNumbers bool
	before      int
	after       int
	globs       []string // the glob parameter, split
	fileType    string
	// root is the directory searched; when file is set, only root/file is searched and
	// neither ignore files, globs nor the type apply to it (as for a path given to rg).
	root string
	file string
	// getenv reads HOME and XDG_CONFIG_HOME for the global gitignore.
	getenv func(string) string
	// cwd is the session's working directory, which displayed paths are relative to (when
	// empty, as in some tests, a file is shown by its path under the root).
	cwd string
	// spill, when set, takes finished files' text out of memory (see spill.go).
	spill    *spill
	dispOnce sync.Once
	rootRel  string // root relative to cwd, "" when root lies outside it
}

// display returns how a file under the root is shown: relative to the working directory when
// inside it, absolute otherwise. When the root lies inside the working directory, so does
// every file under it, and its displayed path is the root's followed by the file's (rel is
// clean): no filepath.Rel per file, which costs more than reading rg's line about it. It is
// safe for concurrent use.
func (q *query) display(rel string) string {
	if q.cwd == "" {
		return filepath.FromSlash(rel)
	}
	q.dispOnce.Do(func() {
		if r := displayPath(q.cwd, q.root); !filepath.IsAbs(r) {
			q.rootRel = r
		}
	})
	switch q.rootRel {
	case "":
		return displayPath(q.cwd, filepath.Join(q.root, filepath.FromSlash(rel)))
	case ".":
		return filepath.FromSlash(rel)
	}
	return q.rootRel + string(filepath.Separator) + filepath.FromSlash(rel)
}

// linePrefix is what each content line of a file starts with: its displayed path (the kind
// byte follows), or nothing when a single file was searched.
func (q *query) linePrefix(rel string) string {
	if q.mode != modeContent || q.file != "" {
		return ""
	}
	return q.display(rel)
}

func (q *query) context() bool { return q.mode == modeContent && (q.before > 0 || q.after > 0) }

// lineKind says how a content line is printed: ':' after a match's path and line number,
// '-' after a context line's.
type lineKind byte

const (
	kindMatch   lineKind = ':'
	kindContext lineKind = '-'
)

// fileResult is what one file contributed. Files without matches have no result.
type fileResult struct {
	rel string // slash-separated, relative to the query root
	// text holds content mode's lines as they are printed, in one or more pieces, each line
	// ended by '\n': the prefix and the kind byte (unless prefix is empty), then with line
	// numbers the number and the kind byte again, then the line ("a/b.go:12:text",
	// "a/b.go-13-text", "12:text"), or "--" between non-adjacent groups. Both engines build it
	// in this form, so rendering a page copies whole files. The prefix is the query's
	// linePrefix for the file; it is not kept with the file, which only needs it while its
	// lines are built (a large search holds tens of thousands of results).
	text [][]byte
	// lines is, in content mode, the number of lines of text; in count mode, the count of
	// matching lines (multiline: matches, joined per line).
	lines int
	// spilled is where the text is in the search's spill file when it was moved there (see
	// spill.done); its n is 0 when the text is in memory.
	spilled spilledSpan
}

// size is the length of r's text in bytes, in memory or spilled.
func (r *fileResult) size() int64 {
	n := r.spilled.n
	for _, t := range r.text {
		n += int64(len(t))
	}
	return n
}

// last returns r's last piece of text, adding one if there is none.
func (r *fileResult) last() *[]byte {
	if len(r.text) == 0 {
		r.text = append(r.text, nil)
	}
	return &r.text[len(r.text)-1]
}

// addLine appends a match or context line, printed after prefix, to r's last piece of
// text.
func (r *fileResult) addLine(prefix string, kind lineKind, num int, numbers bool, line []byte) {
	t := r.last()
	if prefix != "" {
		*t = append(*t, prefix...)
		*t = append(*t, byte(kind))
	}
	if numbers {
		*t = strconv.AppendInt(*t, int64(num), 10)
		*t = append(*t, byte(kind))
	}
	*t = append(*t, line...)
	*t = append(*t, '\n')
	r.lines++
}

// addSep appends a "--" to r's last piece of text.
func (r *fileResult) addSep() {
	t := r.last()
	*t = append(*t, "--\n"...)
	r.lines++
}

// lineArena hands out the space for the content lines of many files in chunks, so a large
// output is copied once into place instead of again each time a file's buffer doubles. A
// file's lines that arrive one after the other (as rg prints them) share one piece.
type lineArena struct {
	// maxChunk bounds the chunks; 0 means maxArenaChunk. A search that spills keeps them
	// small, since one file's text held in memory keeps its whole chunk alive.
	maxChunk   int
	chunk      []byte      // the current chunk; its length is the part handed out
	owner      *fileResult // the file whose last piece ends where the chunk's free space starts
	ownerStart int         // where that piece starts in the chunk
}

const (
	minArenaChunk = 4 << 10
	maxArenaChunk = 1 << 20
)

// extend adds n bytes to the end of r's text and returns them, to be filled. Pieces are cut
// to their length, so an append to one (addLine) copies it rather than writing into space
// the arena hands out later.
func (a *lineArena) extend(r *fileResult, n int) []byte {
	if cap(a.chunk)-len(a.chunk) < n {
		a.chunk = make([]byte, 0, max(n, min(2*cap(a.chunk), cmp.Or(a.maxChunk, maxArenaChunk)), minArenaChunk))
		a.owner = nil
	}
	start := len(a.chunk)
	a.chunk = a.chunk[:start+n]
	if a.owner == r && len(r.text) > 0 && len(r.text[len(r.text)-1]) > 0 && &r.text[len(r.text)-1][0] == &a.chunk[a.ownerStart] {
		r.text[len(r.text)-1] = a.chunk[a.ownerStart : start+n : start+n]
	} else {
		r.text = append(r.text, a.chunk[start:start+n:start+n])
		a.owner, a.ownerStart = r, start
	}
	return a.chunk[start : start+n]
}

// engine runs a query. Both engines return the same results for the same query and tree,
// in any order; the caller sorts them.
type engine interface {
	name() string
	search(ctx context.Context, q *query) ([]*fileResult, error)
}

// lookaround and backreferences are the constructs people bring from PCRE most often; Go's
// regexp rejects them with a terse message, ripgrep's default engine rejects them too.
var (
	lookaroundRE = regexp.MustCompile(`\(\?<?[=!]`)
	backrefRE    = regexp.MustCompile(`\\[1-9]|\\k<`)
)

// regexpFlags returns the Go flag prefix for a query: line anchors always (ripgrep's
// default), case folding with -i, and "." matching newlines in multiline mode.
func regexpFlags(ignoreCase, multiline bool) string {
	f := "(?m"
	if ignoreCase {
		f += "i"
	}
	if multiline {
		f += "s"
	}
	return f + ")"
}

// validatePattern checks a pattern before anything runs and explains what is wrong in the
// terms a model can act on.
func validatePattern(pattern string, ignoreCase, multiline bool) *tool.Failure {
	if lookaroundRE.MatchString(pattern) {
		return tool.Failf("Invalid regular expression %q: look-around, including look-ahead and look-behind, is not supported. Match the surrounding text instead, or search more broadly and narrow the results", pattern)
	}
	_, err := regexp.Compile(pattern)
	if err == nil {
		_, err = regexp.Compile(regexpFlags(ignoreCase, multiline) + pattern)
	}
	if err != nil {
		if backrefRE.MatchString(pattern) {
			return tool.Failf("Invalid regular expression %q: backreferences are not supported", pattern)
		}
		msg := err.Error()
		if se, ok := err.(*syntax.Error); ok {
			msg = fmt.Sprintf("%s: `%s`", se.Code, se.Expr)
		}
		return tool.Failf("Invalid regular expression %q: %s", pattern, msg)
	}
	if !multiline && hasLiteralNewline(pattern) {
		return tool.Failf(`Invalid regular expression %q: the literal "\n" is not allowed in a regex unless multiline is true`, pattern)
	}
	return nil
}

// hasLiteralNewline reports whether a pattern spells out a newline character, which can
// never match inside a single line (ripgrep refuses such patterns outside multiline mode).
func hasLiteralNewline(pattern string) bool {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return false
	}
	found := false
	var visit func(r *syntax.Regexp)
	visit = func(r *syntax.Regexp) {
		if r.Op == syntax.OpLiteral && strings.ContainsRune(string(r.Rune), '\n') {
			found = true
		}
		for _, s := range r.Sub {
			visit(s)
		}
	}
	visit(re)
	return found
}

// splitGlobs splits the glob parameter the way Claude Code does: on whitespace, then on
// commas unless the piece holds a {a,b} alternation.
func splitGlobs(s string) []string {
	var out []string
	for _, raw := range strings.Fields(s) {
		if strings.Contains(raw, "{") && strings.Contains(raw, "}") {
			out = append(out, raw)
			continue
		}
		for _, p := range strings.Split(raw, ",") {
			if p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}
