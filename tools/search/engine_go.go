package search

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"unicode/utf8"
)

// goEngine is the built-in engine: a parallel walk with ripgrep's filters and a search that
// reproduces ripgrep's output line for line.
type goEngine struct {
	workers int
}

func (goEngine) name() string { return "go" }

func (e goEngine) search(ctx context.Context, q *query) ([]*fileResult, error) {
	m, err := compileMatcher(q.pattern, q.ignoreCase, q.multiline)
	if err != nil {
		return nil, err
	}
	workers := e.workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	scratch := make([]workerScratch, workers)
	if q.file != "" {
		r := m.searchPath(q, q.file, filepath.Join(q.root, q.file), &scratch[0])
		if r == nil {
			return nil, nil
		}
		return []*fileResult{r}, nil
	}
	ov, err := newOverrides(append(vcsExclusions(), q.globs...))
	if err != nil {
		return nil, err
	}
	types, err := newTypeFilter(q.fileType)
	if err != nil {
		return nil, err
	}
	var (
		mu      sync.Mutex
		results []*fileResult
	)
	cfg := walkConfig{root: q.root, ignoreFiles: true, overrides: ov, types: types, getenv: q.getenv, workers: workers}
	err = walk(ctx, cfg, func(worker int, f fileEntry) {
		if r := m.searchPath(q, f.rel, f.abs, &scratch[worker]); r != nil {
			scratch[worker].done(r, q.spill)
			mu.Lock()
			results = append(results, r)
			mu.Unlock()
		}
	})
	return results, err
}

// workerScratch is the memory one worker reuses from file to file: the buffer a file is read
// into, and the one its content lines are built in. Most files' text is spilled as soon as it
// is built (see spill.done): built in a new slice grown by doubling, it was garbage several
// times its size, for every file, and on a large tree the collector ran forty times and let
// the heap grow past what it held.
type workerScratch struct {
	file []byte
	text []byte
}

// maxTextScratch bounds the text buffer kept for the next file: one file with a great many
// matching lines should not leave its worker holding their size.
const maxTextScratch = 1 << 20

// done is called when r, whose text was built in the text buffer, is complete: it takes the
// buffer back for the next file, unless it grew too large, and passes r to s.done. When r's
// text is not spilled but held in a buffer taken back, r gets a copy of its own (of its size,
// which a result held to the end is better off with anyway).
func (w *workerScratch) done(r *fileResult, s *spill) {
	reuse := len(r.text) == 1 && cap(r.text[0]) <= maxTextScratch
	if reuse {
		w.text = r.text[0][:0]
	}
	s.done(r)
	if reuse && len(r.text) == 1 {
		r.text[0] = bytes.Clone(r.text[0])
	}
}

// matcher finds matches of one pattern. The regexp is compiled with line anchors ((?m)), so
// a search of the whole buffer finds every candidate a line-by-line search would; literal
// patterns skip the regexp altogether.
type matcher struct {
	re        *regexp.Regexp
	lit       []byte // case-sensitive literal
	fold      []byte // ASCII literal searched case-insensitively (lower case)
	multiline bool
	// matchesNL reports whether a match can contain a newline. In multiline mode ripgrep
	// counts matches when it can, and matching lines when it cannot (it then searches line
	// by line).
	matchesNL bool
	// req is a literal every match contains (lower-case ASCII searched ignoring case when
	// reqFold), used to skip to the few lines worth running the regexp on; nil if none.
	req     []byte
	reqFold bool
	// tail, when the pattern is a sequence with req as one of its parts, is the sequence
	// from req on, anchored at the start: a line where it matches at no occurrence of req
	// cannot match, and the anchored check is much cheaper than the whole pattern's (for
	// [A-Z][a-z]+Error\b, most lines holding Error are fmt.Errorf calls that fail at \b).
	tail *regexp.Regexp
	// litRare and reqRare are the offsets of the rarest byte of lit (or fold) and req.
	litRare, reqRare int
}

func compileMatcher(pattern string, ignoreCase, multiline bool) (*matcher, error) {
	re, err := regexp.Compile(regexpFlags(ignoreCase, multiline) + pattern)
	if err != nil {
		return nil, err
	}
	m := &matcher{re: re, multiline: multiline}
	if multiline {
		m.matchesNL = canMatchNewline(regexpFlags(ignoreCase, multiline) + pattern)
	}
	if lit, ok := literalOf(pattern); ok && lit != "" {
		switch {
		case !ignoreCase:
			m.lit = []byte(lit)
		case foldableASCII(lit):
			m.fold = bytes.ToLower([]byte(lit))
		}
	}
	if m.lit == nil && m.fold == nil {
		if re, err := syntax.Parse(regexpFlags(ignoreCase, multiline)+pattern, syntax.Perl); err == nil {
			re = re.Simplify()
			m.req, m.reqFold = requiredLiteral(re)
			m.tail = tailFrom(re, m.req, m.reqFold)
		}
	}
	switch {
	case m.lit != nil:
		m.litRare = rarest(m.lit, false)
	case m.fold != nil:
		m.litRare = rarest(m.fold, true)
	}
	m.reqRare = rarest(m.req, m.reqFold)
	return m, nil
}

// requiredLiteral finds a literal that every match of re contains: the best literal of the
// parts a match cannot skip. Case-folded literals are cut to their longest run that folds
// to ASCII only (see foldableASCII), so a byte-wise case-insensitive search finds them.
func requiredLiteral(re *syntax.Regexp) ([]byte, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase == 0 {
			return []byte(string(re.Rune)), false
		}
		best := ""
		for _, run := range strings.FieldsFunc(string(re.Rune), func(r rune) bool { return !foldableASCII(string(r)) }) {
			if len(run) > len(best) {
				best = run
			}
		}
		if best == "" {
			return nil, false
		}
		return bytes.ToLower([]byte(best)), true
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []byte
		var fold bool
		for _, sub := range re.Sub {
			if l, f := requiredLiteral(sub); len(l) > len(best) {
				best, fold = l, f
			}
		}
		return best, fold
	}
	return nil, false
}

// tailFrom returns re's parts from the literal req on, anchored at the start of the text, when
// req is one of re's top-level parts and not the first (nil otherwise).
func tailFrom(re *syntax.Regexp, req []byte, fold bool) *regexp.Regexp {
	if re.Op != syntax.OpConcat || len(req) == 0 {
		return nil
	}
	for k, sub := range re.Sub {
		if sub.Op != syntax.OpLiteral || (sub.Flags&syntax.FoldCase != 0) != fold {
			continue
		}
		lit := string(sub.Rune)
		if fold && (!foldableASCII(lit) || strings.ToLower(lit) != string(req)) || !fold && lit != string(req) {
			continue
		}
		if k == 0 {
			return nil // the tail is the whole pattern
		}
		tail := &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags,
			Sub: append([]*syntax.Regexp{{Op: syntax.OpBeginText}}, re.Sub[k:]...)}
		t, err := regexp.Compile(tail.String())
		if err != nil {
			return nil
		}
		return t
	}
	return nil
}

// tailMatches reports whether m.tail matches at some occurrence of req in buf[i:le], the
// rest of a line whose first occurrence of req is at i.
func (m *matcher) tailMatches(buf []byte, i, le int) bool {
	line := buf[:le]
	for i >= 0 {
		if m.tail.Match(line[i:]) {
			return true
		}
		if i+1 >= le {
			return false
		}
		i = m.indexReq(line, i+1)
	}
	return false
}

// indexReq finds the required literal at or after from, or returns -1.
func (m *matcher) indexReq(buf []byte, from int) int {
	var i int
	if m.reqFold {
		i = rareFoldIndex(buf[from:], m.req, m.reqRare)
	} else {
		i = rareIndex(buf[from:], m.req, m.reqRare)
	}
	if i < 0 {
		return -1
	}
	return from + i
}

// literalOf reports whether a pattern matches exactly one fixed string, and which.
func literalOf(pattern string) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	re = re.Simplify()
	if re.Op != syntax.OpLiteral || re.Flags&syntax.FoldCase != 0 {
		return "", false
	}
	return string(re.Rune), true
}

// canMatchNewline reports whether some match of the pattern contains a newline byte.
func canMatchNewline(pattern string) bool {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return true
	}
	var can func(r *syntax.Regexp) bool
	can = func(r *syntax.Regexp) bool {
		switch r.Op {
		case syntax.OpAnyChar:
			return true
		case syntax.OpLiteral:
			for _, c := range r.Rune {
				if c == '\n' {
					return true
				}
			}
		case syntax.OpCharClass:
			for i := 0; i+1 < len(r.Rune); i += 2 {
				if r.Rune[i] <= '\n' && '\n' <= r.Rune[i+1] {
					return true
				}
			}
		}
		for _, s := range r.Sub {
			if can(s) {
				return true
			}
		}
		return false
	}
	return can(re)
}

// foldableASCII reports whether case-insensitive matching of s can be done byte by byte:
// ASCII only, and without k or s, whose Unicode case folds include the Kelvin sign and the
// long s, which regexp (and ripgrep) also match.
func foldableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if s[i] >= utf8.RuneSelf || c == 'k' || c == 's' {
			return false
		}
	}
	return true
}

// find returns the next candidate match at or after from.
func (m *matcher) find(buf []byte, from int) (start, end int, ok bool) {
	switch {
	case m.lit != nil:
		i := rareIndex(buf[from:], m.lit, m.litRare)
		if i < 0 {
			return 0, 0, false
		}
		return from + i, from + i + len(m.lit), true
	case m.fold != nil:
		i := rareFoldIndex(buf[from:], m.fold, m.litRare)
		if i < 0 {
			return 0, 0, false
		}
		return from + i, from + i + len(m.fold), true
	}
	loc := m.re.FindIndex(buf[from:])
	if loc == nil {
		return 0, 0, false
	}
	return from + loc[0], from + loc[1], true
}

func equalFoldASCII(s, lower []byte) bool {
	for i, c := range s {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// span is a run of matched lines: [start, end) in bytes, from the start of its first line to
// the newline that ends its last line (or the end of the buffer).
type span struct {
	start, end int
}

// searchPath searches one file and returns its result, or nil when nothing matched or the
// file cannot be read or is binary.
func (m *matcher) searchPath(q *query, rel, abs string, scratch *workerScratch) *fileResult {
	data, release, err := loadFile(abs, &scratch.file)
	if err != nil {
		return nil
	}
	defer release()
	return m.searchLoaded(q, rel, data, &scratch.text)
}

// searchLoaded searches a file's content as loadFile returned it. A mapped file truncated
// underneath the search faults on the pages past its new end: that file is skipped, not the
// program. Any other panic is a bug and goes on up.
func (m *matcher) searchLoaded(q *query, rel string, data []byte, text *[]byte) (r *fileResult) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if v := recover(); v != nil {
			if _, fault := v.(interface{ Addr() uintptr }); !fault {
				panic(v)
			}
			r = nil
		}
	}()
	if bytes.IndexByte(data, 0) >= 0 {
		return nil
	}
	return m.searchBuffer(q, rel, data, text)
}

// atEOF reports whether position p is past the last line of buf: the empty "line" after a
// final newline, or anywhere in an empty buffer, is not a line.
func atEOF(buf []byte, p int) bool {
	return p >= len(buf) && (len(buf) == 0 || buf[len(buf)-1] == '\n')
}

func lineEnd(buf []byte, p int) int {
	if i := bytes.IndexByte(buf[p:], '\n'); i >= 0 {
		return p + i
	}
	return len(buf)
}

// found is what a search of one buffer found.
type found struct {
	// spans are the matched lines. In line mode each span is one line; in multiline mode a
	// span covers every line a match touches, and matches that share a line join one span.
	spans []span
	// count is ripgrep's count: matching lines, or in multiline mode with a pattern that can
	// match a newline, matches.
	count int
	// eof and eofLine report an empty multiline match at the very end of the buffer, which
	// ripgrep (13) does not count, but still shows in content mode: after a final newline it
	// is on no line and only its before-context is printed (eof); otherwise the last line is
	// printed as a match (eofLine).
	eof, eofLine bool
}

// atEnd records an empty multiline match at the end of buf.
func (f *found) atEnd(buf []byte) {
	switch {
	case len(buf) == 0:
	case buf[len(buf)-1] == '\n':
		f.eof = true
	default:
		f.eofLine = true
	}
}

// want says what a search of one buffer must find: the first match (files_with_matches),
// the count (count mode: no spans are kept), or every matched line (content).
type want int

const (
	wantLines want = iota
	wantFirst
	wantCount
)

// search finds the matches of buf. It picks the cheapest strategy the pattern allows: the
// lines that hold its required literal, each line in turn, candidates found in the whole
// buffer and narrowed to their line, or, for a multiline pattern that can match a newline,
// the matches themselves.
func (m *matcher) search(buf []byte, w want) found {
	crossesLines := m.multiline && m.matchesNL
	switch {
	case m.req != nil && m.indexReq(buf, 0) < 0:
		return found{}
	case m.req != nil && !crossesLines:
		return m.searchRequired(buf, w)
	case !m.multiline && m.lit == nil && m.fold == nil:
		return m.searchEachLine(buf, w)
	case !crossesLines:
		return m.searchCandidates(buf, w)
	}
	return m.searchMatches(buf, w)
}

// hit records the matched line [ls, le) and reports whether to go on.
func (f *found) hit(ls, le int, w want) bool {
	f.count++
	if w != wantCount {
		f.spans = append(f.spans, span{ls, le})
	}
	return w != wantFirst
}

// searchRequired runs the regexp only on the lines that hold the required literal.
func (m *matcher) searchRequired(buf []byte, w want) found {
	var f found
	for pos := 0; pos < len(buf); {
		i := m.indexReq(buf, pos)
		if i < 0 {
			break
		}
		ls := bytes.LastIndexByte(buf[:i], '\n') + 1
		le := lineEnd(buf, i)
		if (m.tail == nil || m.tailMatches(buf, i, le)) && m.re.Match(buf[ls:le]) && !f.hit(ls, le, w) {
			break
		}
		pos = le + 1
	}
	return f
}

// searchEachLine runs the regexp on each line, for a pattern with no literal to look for.
// Go's regexp runs its backtracker on a short input and its slower NFA on a long one, so
// this is about 1.5 times as fast as searching the rest of the buffer for the next match.
func (m *matcher) searchEachLine(buf []byte, w want) found {
	var f found
	for pos := 0; pos < len(buf); {
		le := lineEnd(buf, pos)
		if m.re.Match(buf[pos:le]) && !f.hit(pos, le, w) {
			break
		}
		pos = le + 1
	}
	return f
}

// searchCandidates finds candidates in the whole buffer (a literal, or the regexp) and
// keeps the lines that match, one hit per line.
func (m *matcher) searchCandidates(buf []byte, w want) found {
	var f found
	for pos := 0; pos < len(buf); {
		s, e, ok := m.find(buf, pos)
		if ok && m.multiline && s == len(buf) {
			f.atEnd(buf)
			break
		}
		if !ok || atEOF(buf, s) {
			break
		}
		ls := bytes.LastIndexByte(buf[:s], '\n') + 1
		le := lineEnd(buf, s)
		if e > le && !m.re.Match(buf[ls:le]) {
			// The candidate crossed a line boundary (\s or [^x] can match a newline in
			// the whole buffer); the line itself does not match.
			pos = le + 1
			continue
		}
		if !f.hit(ls, le, w) {
			break
		}
		pos = le + 1
	}
	return f
}

// searchMatches finds the matches of a multiline pattern that can match a newline: each
// match counts, and its span covers every line it touches.
func (m *matcher) searchMatches(buf []byte, w want) found {
	var f found
	if m.lit != nil || m.fold != nil {
		for pos := 0; pos <= len(buf); {
			s, e, ok := m.find(buf, pos)
			if !ok || !f.match(buf, s, e, w) {
				break
			}
			pos = e
		}
		return f
	}
	// The regexp must see the whole buffer: searching from an offset would let (?m)^ match
	// in the middle of a line.
	if w == wantFirst {
		if loc := m.re.FindIndex(buf); loc != nil {
			f.match(buf, loc[0], loc[1], w)
		}
		return f
	}
	for _, loc := range m.re.FindAllIndex(buf, -1) {
		if !f.match(buf, loc[0], loc[1], w) {
			break
		}
	}
	return f
}

// match records the multiline match [s, e) of buf and reports whether to go on. Matches
// that share a line join one span.
func (f *found) match(buf []byte, s, e int, w want) bool {
	if s == len(buf) {
		f.atEnd(buf)
		return false
	}
	if w == wantCount {
		f.count++
		return true
	}
	last := max(s, e-1)
	ls := bytes.LastIndexByte(buf[:s], '\n') + 1
	le := lineEnd(buf, min(last, len(buf)))
	if n := len(f.spans); n > 0 && ls <= f.spans[n-1].end {
		f.count++
		f.spans[n-1].end = max(f.spans[n-1].end, le)
		return true // only wantLines gets a second match
	}
	return f.hit(ls, le, w)
}

// searchBuffer searches buf, the content of the file rel, and builds its result. Its content
// lines are built in *text, which the caller takes back (see workerScratch.done); nil means
// a slice of their own.
func (m *matcher) searchBuffer(q *query, rel string, buf []byte, text *[]byte) *fileResult {
	w := wantLines
	switch q.mode {
	case modeFiles:
		w = wantFirst
	case modeCount:
		w = wantCount
	}
	f := m.search(buf, w)
	eof := f.eof && q.mode == modeContent && q.before > 0
	if f.eofLine && q.mode == modeContent {
		ls := bytes.LastIndexByte(buf, '\n') + 1
		if n := len(f.spans); n > 0 && f.spans[n-1].end == len(buf) {
			// The last line is already a match.
		} else {
			f.spans = append(f.spans, span{ls, len(buf)})
		}
	}
	if f.count == 0 && len(f.spans) == 0 && !eof {
		return nil
	}
	r := &fileResult{rel: rel}
	switch q.mode {
	case modeFiles:
		return r
	case modeCount:
		r.lines = f.count
		return r
	}
	if text != nil {
		r.text = [][]byte{(*text)[:0]}
	}
	contentLines(r, q.linePrefix(rel), buf, f.spans, eof, q.before, q.after, q.lineNumbers)
	return r
}

var (
	omittedMatchText   = []byte(omittedMatch)
	omittedContextText = []byte(omittedContext)
)

// lineText is what ripgrep prints for the line [s, e): the line itself, or a notice when it
// is longer than maxColumns bytes counting its newline.
func lineText(buf []byte, s, e int, kind lineKind) []byte {
	n := e - s
	if e < len(buf) {
		n++
	}
	if n > maxColumns {
		if kind == kindMatch {
			return omittedMatchText
		}
		return omittedContextText
	}
	return buf[s:e]
}

// contentLines prints matched lines with before and after context into r, as ripgrep does:
// a line that matches is printed as a match even inside another match's context, and "--"
// separates groups that are not adjacent when context was asked for. eof adds the
// before-context of an empty match at the end of the buffer (see matchSpans).
func contentLines(r *fileResult, prefix string, buf []byte, spans []span, eof bool, before, after int, numbers bool) {
	lastNum := 0  // number of the last printed line
	lastEnd := -1 // byte offset of its newline
	lineNo := 1   // number of the line starting at offset counted
	counted := 0  // offset up to which newlines are counted
	numAt := func(off int) int {
		lineNo += bytes.Count(buf[counted:off], []byte{'\n'})
		counted = off
		return lineNo
	}
	ctx := before > 0 || after > 0
	if eof {
		spans = append(spans, span{start: len(buf), end: -1})
	}
	for i, sp := range spans {
		first := numAt(sp.start)
		// Before context: walk back from the span, not past what is already printed.
		type line struct{ s, e int }
		var pre [8]line
		pres := pre[:0]
		s := sp.start
		for k := 0; k < before && s > 0 && s-1 > lastEnd; k++ {
			ps := bytes.LastIndexByte(buf[:s-1], '\n') + 1
			pres = append(pres, line{ps, s - 1})
			s = ps
		}
		if startNum := first - len(pres); ctx && r.lines > 0 && startNum > lastNum+1 {
			r.addSep()
		}
		for k := len(pres) - 1; k >= 0; k-- {
			r.addLine(prefix, kindContext, first-1-k, numbers, lineText(buf, pres[k].s, pres[k].e, kindContext))
		}
		if sp.end < 0 {
			break // the end-of-buffer match has no line of its own
		}
		// The span's lines.
		num := first
		for ls := sp.start; ; {
			le := lineEnd(buf, ls)
			if le > sp.end {
				le = sp.end
			}
			r.addLine(prefix, kindMatch, num, numbers, lineText(buf, ls, le, kindMatch))
			lastNum, lastEnd = num, le
			if le >= sp.end {
				break
			}
			ls = le + 1
			num++
		}
		// After context, up to the next span.
		limit := len(buf)
		if i+1 < len(spans) {
			limit = spans[i+1].start
		}
		for k := 0; k < after; k++ {
			ls := lastEnd + 1
			if ls >= limit || atEOF(buf, ls) {
				break
			}
			le := lineEnd(buf, ls)
			lastNum++
			r.addLine(prefix, kindContext, lastNum, numbers, lineText(buf, ls, le, kindContext))
			lastEnd = le
		}
	}
}
