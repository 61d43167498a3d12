package bashrules

import (
	"strings"

	"github.com/reinsdev/reins/permission"
)

// RuleForm is the form of a Bash rule's content.
type RuleForm uint8

const (
	// FormExact matches the command string exactly (after trimming).
	FormExact RuleForm = iota
	// FormPrefix is the legacy "cmd:*": the command is cmd, or starts with "cmd ".
	FormPrefix
	// FormWildcard has unescaped "*", each matching any characters; anchored at both ends.
	FormWildcard
)

// Form returns the form of a Bash rule content.
func Form(content string) RuleForm {
	if p, ok := strings.CutSuffix(content, ":*"); ok && p != "" {
		return FormPrefix
	}
	if stars(content) > 0 {
		return FormWildcard
	}
	return FormExact
}

// MatchRule reports whether a Bash rule content matches one command string, the way Claude
// Code matches it:
//
//   - exact: the trimmed content equals the trimmed command;
//   - legacy prefix "cmd:*": the command is cmd or starts with "cmd " (a space word boundary,
//     so "npm run test:*" does not match "npm run test:unit"); also "xargs cmd ...";
//   - wildcard: each unescaped "*" matches any characters, spaces and newlines included; "\*"
//     is a literal star and "\\" a backslash; the pattern is anchored at both ends; when its
//     only wildcard is a trailing " *", the arguments are optional ("git *" matches "git").
//
// MatchRule does not know whether the command is compound: callers must not let prefix and
// wildcard allow rules match a string holding more than one command.
func MatchRule(content, command string) bool {
	command = strings.TrimSpace(command)
	if p, ok := strings.CutSuffix(content, ":*"); ok && p != "" {
		return matchPrefix(p, command)
	}
	p := strings.TrimSpace(content)
	switch n := stars(p); {
	case n == 0:
		return p == command
	case n == 1 && strings.HasSuffix(p, " *") && !escapedAt(p, len(p)-1):
		return globMatch(p, command) || globMatch(p[:len(p)-2], command)
	default:
		return globMatch(p, command)
	}
}

func matchPrefix(p, s string) bool {
	if wordPrefix(p, s) {
		return true
	}
	rest, ok := strings.CutPrefix(s, "xargs ")
	return ok && wordPrefix(p, rest)
}

func wordPrefix(p, s string) bool {
	return strings.HasPrefix(s, p) && (len(s) == len(p) || s[len(p)] == ' ')
}

// stars counts the unescaped stars of a pattern.
func stars(p string) int {
	n := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			if i+1 < len(p) && (p[i+1] == '*' || p[i+1] == '\\') {
				i++
			}
		case '*':
			n++
		}
	}
	return n
}

func escapedAt(p string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && p[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// patToken returns the pattern byte at i: a literal byte (with \* and \\ unescaped) or a star.
func patToken(p string, i int) (c byte, width int, star bool) {
	if p[i] == '\\' && i+1 < len(p) && (p[i+1] == '*' || p[i+1] == '\\') {
		return p[i+1], 2, false
	}
	if p[i] == '*' {
		return 0, 1, true
	}
	return p[i], 1, false
}

// globMatch matches s against a pattern whose only special character is "*". It backtracks
// to the last star only, which is enough for a single wildcard kind and keeps it linear in
// practice and allocation-free.
func globMatch(p, s string) bool {
	pi, si := 0, 0
	starP, starS := -1, 0
	for si < len(s) {
		if pi < len(p) {
			c, w, star := patToken(p, pi)
			if star {
				starP, starS = pi+w, si
				pi += w
				continue
			}
			if c == s[si] {
				pi += w
				si++
				continue
			}
		}
		if starP < 0 {
			return false
		}
		starS++
		pi, si = starP, starS
	}
	for pi < len(p) {
		_, w, star := patToken(p, pi)
		if !star {
			return false
		}
		pi += w
	}
	return true
}

// ruleSet is one behaviour's Bash rules. Matching needs no compiled form: a rule whose
// first byte no candidate starts with is skipped after one comparison, and the few that remain
// are matched straight from their text, without allocating.
type ruleSet []*permission.Rule

// firstByte is the byte every command a rule matches starts with, or -1 when the rule may
// match commands starting with anything (it starts with a wildcard, an escape or a space).
func firstByte(content string) int {
	if content == "" {
		return -1
	}
	switch c := content[0]; {
	case c == '*' || c == '\\' || c <= ' ' || c >= 0x80:
		return -1
	default:
		return int(c)
	}
}

// byteSet is a set of bytes.
type byteSet [4]uint64

func (s *byteSet) add(b byte)      { s[b>>6] |= 1 << (b & 63) }
func (s *byteSet) has(b byte) bool { return s[b>>6]&(1<<(b&63)) != 0 }

// match returns the first rule matching any candidate. Prefix and wildcard rules are tried only
// when loose is set.
func (rs ruleSet) match(cands []string, loose bool) *permission.Rule {
	if len(rs) == 0 {
		return nil
	}
	var first byteSet
	for _, c := range cands {
		if c == "" {
			continue
		}
		first.add(c[0])
		if rest, ok := strings.CutPrefix(c, "xargs "); ok && rest != "" {
			first.add(rest[0]) // legacy prefix rules also match "xargs cmd"
		}
	}
	for _, r := range rs {
		content := r.Value.Content
		if b := firstByte(content); b >= 0 && !first.has(byte(b)) {
			continue
		}
		if !loose && Form(content) != FormExact {
			continue
		}
		for _, c := range cands {
			if MatchRule(content, c) {
				return r
			}
		}
	}
	return nil
}

// matchAny is match for a plain rule list.
func matchAny(rules []*permission.Rule, cands []string, loose bool) *permission.Rule {
	return ruleSet(rules).match(cands, loose)
}
