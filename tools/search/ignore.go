package search

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/reinsdev/reins/boundedfile"
)

// A globPattern is one line of an ignore file, one --glob override or one file-type glob,
// compiled. The syntax is gitignore's, as ripgrep reads it: "*" and "?" stay inside one path
// element, "**" as a whole element spans directories, "[...]" is a character class, "{a,b}"
// an alternation, a backslash escapes, a leading "!" negates, a trailing "/" matches
// directories only, and a pattern with a slash before its last character is anchored to the
// directory it was read in (otherwise it matches a name at any depth).
type globPattern struct {
	negate  bool
	dirOnly bool
	// One of the three matchers is set. literal and suffix are fast paths for the most common
	// lines ("node_modules", "*.log"); they test the last path element.
	literal string
	suffix  string
	re      *regexp.Regexp
}

// errSkipLine marks ignore-file lines that hold no pattern (blank lines and comments).
var errSkipLine = fmt.Errorf("no pattern on this line")

// parseGlob compiles one gitignore-style line.
func parseGlob(line string) (globPattern, error) {
	var p globPattern
	line = strings.TrimSuffix(line, "\r")
	if line == "" || line[0] == '#' {
		return p, errSkipLine
	}
	line = trimTrailingSpaces(line)
	if line == "" {
		return p, errSkipLine
	}
	if line[0] == '!' {
		p.negate = true
		line = line[1:]
	}
	for strings.HasSuffix(line, "/") && !strings.HasSuffix(line, `\/`) {
		p.dirOnly = true
		line = line[:len(line)-1]
	}
	if line == "" {
		return p, errSkipLine
	}
	anchored := strings.Contains(line, "/")
	line = strings.TrimPrefix(line, "/")
	if line == "" {
		return p, errSkipLine
	}
	if !anchored && !strings.ContainsAny(line, `*?[\{`) {
		p.literal = line
		return p, nil
	}
	if !anchored && line[0] == '*' && len(line) > 1 && !strings.ContainsAny(line[1:], `*?[\{`) {
		p.suffix = line[1:]
		return p, nil
	}
	body, err := globToRegexp(line)
	if err != nil {
		return p, err
	}
	prefix := "^"
	if !anchored {
		prefix = "^(?:.*/)?"
	}
	re, err := regexp.Compile(prefix + body + "$")
	if err != nil {
		return p, fmt.Errorf("glob %q: %w", line, err)
	}
	p.re = re
	return p, nil
}

// trimTrailingSpaces drops trailing spaces that are not escaped with a backslash.
func trimTrailingSpaces(s string) string {
	end := len(s)
	for end > 0 && s[end-1] == ' ' {
		if end >= 2 && s[end-2] == '\\' {
			break
		}
		end--
	}
	return s[:end]
}

// globToRegexp translates the body of a glob (no negation, anchoring or trailing slash left)
// into a regular expression over slash-separated paths.
func globToRegexp(g string) (string, error) {
	var b strings.Builder
	inAlt := false
	for i := 0; i < len(g); {
		c := g[i]
		switch {
		case c == '*' && i+1 < len(g) && g[i+1] == '*' && (i == 0 || g[i-1] == '/') && (i+2 == len(g) || g[i+2] == '/'):
			if i+2 == len(g) {
				b.WriteString(".*")
				i += 2
			} else {
				b.WriteString("(?:.*/)?")
				i += 3
			}
		case c == '*':
			for i < len(g) && g[i] == '*' {
				i++
			}
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
			i++
		case c == '[':
			class, n, ok := translateClass(g[i:])
			if !ok {
				b.WriteString(`\[`)
				i++
				continue
			}
			b.WriteString(class)
			i += n
		case c == '\\':
			if i+1 == len(g) {
				return "", fmt.Errorf("glob %q ends with a backslash", g)
			}
			b.WriteString(regexp.QuoteMeta(g[i+1 : i+2]))
			i += 2
		case c == '{' && !inAlt:
			inAlt = true
			b.WriteString("(?:")
			i++
		case c == ',' && inAlt:
			b.WriteString("|")
			i++
		case c == '}' && inAlt:
			inAlt = false
			b.WriteString(")")
			i++
		default:
			b.WriteString(regexp.QuoteMeta(g[i : i+1]))
			i++
		}
	}
	if inAlt {
		return "", fmt.Errorf("glob %q has an unclosed {", g)
	}
	return b.String(), nil
}

// translateClass translates a "[...]" class at the start of s, returning the regexp class,
// the number of bytes consumed, and false when the class is not terminated.
func translateClass(s string) (string, int, bool) {
	var b strings.Builder
	b.WriteByte('[')
	i := 1
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		// A negated class never matches the path separator.
		b.WriteString("^/")
		i++
	}
	first := true
	for i < len(s) {
		c := s[i]
		if c == ']' && !first {
			b.WriteByte(']')
			return b.String(), i + 1, true
		}
		first = false
		if c == '[' && strings.HasPrefix(s[i:], "[:") {
			if end := strings.Index(s[i+2:], ":]"); end >= 0 {
				b.WriteString(s[i : i+2+end+2])
				i += 2 + end + 2
				continue
			}
		}
		if c == '\\' && i+1 < len(s) {
			i++
			c = s[i]
		}
		writeClassByte(&b, c)
		i++
		if i+1 < len(s) && s[i] == '-' && s[i+1] != ']' {
			hi := s[i+1]
			i += 2
			if hi == '\\' && i < len(s) {
				hi = s[i]
				i++
			}
			b.WriteByte('-')
			writeClassByte(&b, hi)
		}
	}
	return "", 0, false
}

func writeClassByte(b *strings.Builder, c byte) {
	if strings.IndexByte(`\]^-[`, c) >= 0 {
		b.WriteByte('\\')
	}
	b.WriteByte(c)
}

// match reports whether the pattern covers rel, a slash path relative to the pattern's
// directory (never empty).
func (p *globPattern) match(rel string, isDir bool) bool {
	if p.dirOnly && !isDir {
		return false
	}
	switch {
	case p.literal != "":
		return baseName(rel) == p.literal
	case p.suffix != "":
		return strings.HasSuffix(baseName(rel), p.suffix)
	}
	return p.re.MatchString(rel)
}

func baseName(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[i+1:]
	}
	return rel
}

// matchResult is the verdict of an ignore matcher on one path.
type matchResult uint8

const (
	noMatch matchResult = iota
	ignored
	whitelisted
)

// ignoreFile is the patterns of one ignore file, with the directory they are relative to.
type ignoreFile struct {
	dir      string // absolute, slash-separated, no trailing slash ("" for the root)
	patterns []globPattern
}

// parseIgnoreFile compiles the lines of an ignore file. Lines that do not compile are
// skipped, as git and ripgrep skip them.
func parseIgnoreFile(dir string, data []byte) *ignoreFile {
	f := &ignoreFile{dir: strings.TrimSuffix(filepath.ToSlash(dir), "/")}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		p, err := parseGlob(sc.Text())
		if err != nil {
			continue
		}
		f.patterns = append(f.patterns, p)
	}
	if len(f.patterns) == 0 {
		return nil
	}
	return f
}

// ignoreLimits bound an ignore file or a git config read while walking: a repository may plant
// a FIFO or a link to /dev/zero as .gitignore, which must neither hang nor swell a search. A
// file refused is taken as absent.
var ignoreLimits = boundedfile.Limits{MaxBytes: 8 << 20, Kind: "ignore file"}

// readBounded reads an ignore or config file within ignoreLimits.
func readBounded(path string) ([]byte, error) {
	return boundedfile.Read(context.Background(), path, ignoreLimits)
}

func readIgnoreFile(dir, name string) *ignoreFile {
	data, err := readBounded(filepath.Join(dir, name))
	if err != nil {
		return nil
	}
	return parseIgnoreFile(dir, data)
}

// match tests an absolute slash path; the last matching line wins.
func (f *ignoreFile) match(abs string, isDir bool) matchResult {
	if f == nil {
		return noMatch
	}
	rel, ok := strings.CutPrefix(abs, f.dir+"/")
	if !ok || rel == "" {
		return noMatch
	}
	for i := len(f.patterns) - 1; i >= 0; i-- {
		p := &f.patterns[i]
		if p.match(rel, isDir) {
			if p.negate {
				return whitelisted
			}
			return ignored
		}
	}
	return noMatch
}

// dirIgnore is the ignore state of one directory: its own ignore files and a link to its
// parent's. Nodes are immutable once built, so workers share them freely.
type dirIgnore struct {
	parent                     *dirIgnore
	custom, ignore, git, exclu *ignoreFile // .rgignore, .ignore, .gitignore, .git/info/exclude
	anyGit                     bool        // this directory or an ancestor holds a git repository
	global                     *ignoreFile // the user's global gitignore, kept on every node
}

// ignoreNames are the files that extend a directory's ignore state.
var ignoreNames = [...]string{".rgignore", ".ignore", ".gitignore", ".git"}

// child returns the ignore state of directory dir (absolute) whose entry names are known: a
// directory without ignore files shares its parent's state.
func (d *dirIgnore) child(dir string, has func(name string) bool) *dirIgnore {
	n := &dirIgnore{parent: d}
	if d != nil {
		n.anyGit, n.global = d.anyGit, d.global
	}
	changed := false
	if has(".rgignore") {
		n.custom, changed = readIgnoreFile(dir, ".rgignore"), true
	}
	if has(".ignore") {
		n.ignore, changed = readIgnoreFile(dir, ".ignore"), true
	}
	if has(".gitignore") {
		n.git, changed = readIgnoreFile(dir, ".gitignore"), true
	}
	if has(".git") {
		n.anyGit, changed = true, true
		n.exclu = readIgnoreFile(dir, filepath.Join(".git", "info", "exclude"))
		if n.exclu != nil {
			n.exclu.dir = strings.TrimSuffix(filepath.ToSlash(dir), "/")
		}
	}
	if !changed {
		return d
	}
	return n
}

// match applies ripgrep's precedence: every .rgignore from the deepest directory up, then
// every .ignore, then (inside a git repository) every .gitignore, every info/exclude and the
// global gitignore. The first file with a matching line decides.
func (d *dirIgnore) match(abs string, isDir bool) matchResult {
	if d == nil {
		return noMatch
	}
	for n := d; n != nil; n = n.parent {
		if r := n.custom.match(abs, isDir); r != noMatch {
			return r
		}
	}
	for n := d; n != nil; n = n.parent {
		if r := n.ignore.match(abs, isDir); r != noMatch {
			return r
		}
	}
	if !d.anyGit {
		return noMatch
	}
	for n := d; n != nil; n = n.parent {
		if r := n.git.match(abs, isDir); r != noMatch {
			return r
		}
	}
	for n := d; n != nil; n = n.parent {
		if r := n.exclu.match(abs, isDir); r != noMatch {
			return r
		}
	}
	return d.global.match(abs, isDir)
}

// ancestorsIgnore builds the ignore state of root's ancestors (not root itself), from the
// file-system root down, with the global gitignore at the bottom.
func ancestorsIgnore(root string, getenv func(string) string) *dirIgnore {
	var dirs []string
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if root == filepath.Dir(root) {
		dirs = nil
	}
	base := &dirIgnore{global: globalGitignore(root, getenv)}
	node := base
	for i := len(dirs) - 1; i >= 0; i-- {
		dir := dirs[i]
		node = node.child(dir, func(name string) bool {
			_, err := os.Lstat(filepath.Join(dir, name))
			return err == nil
		})
	}
	return node
}

// globalGitignore reads git's core.excludesFile, or its default location
// ($XDG_CONFIG_HOME/git/ignore, else ~/.config/git/ignore). Its patterns are relative to the
// search root.
func globalGitignore(root string, getenv func(string) string) *ignoreFile {
	home := getenv("HOME")
	xdg := getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	var path string
	for _, cfg := range []string{filepath.Join(xdg, "git", "config"), filepath.Join(home, ".gitconfig")} {
		if home == "" && xdg == "" {
			break
		}
		if v := gitConfigExcludesFile(cfg); v != "" {
			path = v
		}
	}
	if path == "" {
		if xdg == "" {
			return nil
		}
		path = filepath.Join(xdg, "git", "ignore")
	}
	if path == "~" || strings.HasPrefix(path, "~/") {
		path = filepath.Join(home, path[1:])
	}
	data, err := readBounded(path)
	if err != nil {
		return nil
	}
	return parseIgnoreFile(root, data)
}

// gitConfigExcludesFile finds core.excludesFile in one git config file. It understands the
// plain "[core]" / "excludesfile = path" form, which is all git writes.
func gitConfigExcludesFile(path string) string {
	data, err := readBounded(path)
	if err != nil {
		return ""
	}
	inCore := false
	value := ""
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			inCore = strings.EqualFold(strings.Trim(line, "[] \t"), "core")
			continue
		}
		if !inCore {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "excludesfile") {
			value = strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return value
}

// overrides are the --glob patterns of a search, relative to the search root. A plain glob
// whitelists, a "!glob" excludes, the last matching glob wins, and once any plain glob is
// given, files that match none are excluded. A whitelisted path skips the ignore files.
type overrides struct {
	patterns   []globPattern
	whitelists int
}

func newOverrides(globs []string) (*overrides, error) {
	o := &overrides{}
	for _, g := range globs {
		p, err := parseGlob(g)
		if err == errSkipLine {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("invalid glob %q: %w", g, err)
		}
		if !p.negate {
			o.whitelists++
		}
		o.patterns = append(o.patterns, p)
	}
	return o, nil
}

func (o *overrides) match(rel string, isDir bool) matchResult {
	if o == nil || len(o.patterns) == 0 {
		return noMatch
	}
	for i := len(o.patterns) - 1; i >= 0; i-- {
		p := &o.patterns[i]
		if p.match(rel, isDir) {
			if p.negate {
				return ignored
			}
			return whitelisted
		}
	}
	if o.whitelists > 0 && !isDir {
		return ignored
	}
	return noMatch
}
