package libcmp

// Copied from tools/search/ignore.go at 42c6106 (the matcher only, none of the walk's state), to
// be measured beside go-git's: internal/archtest's TestBenchCopiesInStep fails when they differ.

import (
	"fmt"
	"regexp"
	"strings"
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
