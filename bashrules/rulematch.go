package bashrules

import (
	"math/bits"
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

// ruleSet is one behaviour's Bash rules, indexed by the first word of the commands each rule
// can match, so a check looks at the few rules that could match instead of all of them. It is
// built once per permission context (see bashIndexes): rules are parsed once, not per check.
type ruleSet struct {
	// exact holds exact-form rules by their trimmed content.
	exact map[string][]indexedRule
	// byWord holds prefix and wildcard rules whose first word is literal: every command they
	// match starts with that word followed by a space, or is the word alone.
	byWord map[string][]indexedRule
	// byTwo holds, by "first second", the prefix and wildcard rules whose first two words are
	// literal and complete (git push:*, git push *): every command they match starts with
	// those two words, each followed by a space or the end. Many rules share a first word.
	byTwo map[string][]indexedRule
	// firstWords are the first words of the byWord and byTwo rules.
	firstWords map[string]bool
	// exactFirst holds the first words of the exact rules.
	exactFirst map[string]bool
	// anyWord holds the rest (a wildcard or an escape in the first word) whose needle is
	// empty: tried on every candidate.
	anyWord []indexedRule
	// anyByByte holds the rest by one byte of their needle (the rarest by needleRank): a
	// candidate without that byte cannot contain the needle, so such a rule is tried only
	// on candidates that have it. anyKeys are the bytes with rules.
	anyByByte map[byte][]indexedRule
	anyKeys   byteSet
}

// needleRank orders bytes by how often they appear in commands, roughly: a rule is filed
// under its needle's least common byte so that few candidates reach it.
func needleRank(c byte) int {
	switch {
	case c == ' ':
		return 3
	case 'a' <= c && c <= 'z':
		return 2
	case c == '-' || c == '.' || c == '/':
		return 1
	}
	return 0
}

// keyByte is the needle's byte of lowest rank (the first of them).
func keyByte(needle string) byte {
	k := needle[0]
	for i := 1; i < len(needle); i++ {
		if needleRank(needle[i]) < needleRank(k) {
			k = needle[i]
		}
	}
	return k
}

type indexedRule struct {
	r *permission.Rule
	// content is the text matched: the rule's own, or the rule's under another name of the
	// program it names.
	content string
	pos     int // load order: among several matches the earliest rule is reported
	form    RuleForm
	// needle is the longest literal run of a wildcard pattern: a command without it cannot
	// match, and strings.Contains rules that out far faster than the matcher.
	needle string
	// needleBytes is the set of bytes of needle: a command lacking one of them cannot contain
	// it, which a few word operations tell before strings.Contains looks.
	needleBytes byteSet
}

// byteSet is a set of byte values.
type byteSet [4]uint64

func bytesOf(s string) byteSet {
	// Commands are mostly ASCII: while they are, the set's first two words stay in registers;
	// the set is indexed only for the rest.
	var lo, hi uint64
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			break
		}
		if c < 64 {
			lo |= 1 << c
		} else {
			hi |= 1 << (c - 64)
		}
	}
	b := byteSet{lo, hi}
	for ; i < len(s); i++ {
		b[s[i]>>6] |= 1 << (s[i] & 63)
	}
	return b
}

// within reports whether every byte of b is in of.
func (b *byteSet) within(of *byteSet) bool {
	return b[0]&^of[0]|b[1]&^of[1]|b[2]&^of[2]|b[3]&^of[3] == 0
}

// newRuleSet indexes rules. With sameProgram (deny and ask rules), a rule naming a program
// also names it under every other name of its knowledge-base entry (fd is fdfind, sh is dash):
// a deny rule stops the program, however it is called.
func newRuleSet(rules []*permission.Rule, sameProgram bool) *ruleSet {
	rs := &ruleSet{exact: map[string][]indexedRule{}, byWord: map[string][]indexedRule{}, byTwo: map[string][]indexedRule{},
		firstWords: map[string]bool{}, exactFirst: map[string]bool{}, anyByByte: map[byte][]indexedRule{}}
	for i, r := range rules {
		rs.index(r, i, r.Value.Content)
		if sameProgram {
			for _, content := range otherNames(r.Value.Content) {
				rs.index(r, i, content)
			}
		}
	}
	return rs
}

// index adds one rule, as the text content, to its index.
func (rs *ruleSet) index(r *permission.Rule, pos int, content string) {
	ir := indexedRule{r: r, content: content, pos: pos, form: Form(content)}
	if ir.form == FormWildcard {
		p := strings.TrimSpace(content)
		if stars(p) == 1 && strings.HasSuffix(p, " *") && !escapedAt(p, len(p)-1) {
			p = p[:len(p)-2] // "git *" also matches a bare "git"
		}
		ir.needle = longestLiteral(p)
		ir.needleBytes = bytesOf(ir.needle)
	}
	if ir.form == FormExact {
		key := strings.TrimSpace(content)
		rs.exact[key] = append(rs.exact[key], ir)
		rs.exactFirst[leadingWord(key)] = true
		return
	}
	if w, ok := literalFirstWord(content, ir.form); ok {
		rs.firstWords[w] = true
		if two, ok := literalTwoWords(content, ir.form); ok {
			rs.byTwo[two] = append(rs.byTwo[two], ir)
		} else {
			rs.byWord[w] = append(rs.byWord[w], ir)
		}
		return
	}
	if ir.needle == "" {
		rs.anyWord = append(rs.anyWord, ir)
		return
	}
	k := keyByte(ir.needle)
	rs.anyByByte[k] = append(rs.anyByByte[k], ir)
	rs.anyKeys[k>>6] |= 1 << (k & 63)
}

// literalFirstWord returns the first word of a prefix or wildcard rule when it is plain text,
// so that every command the rule matches starts with it.
func literalFirstWord(content string, form RuleForm) (string, bool) {
	p := strings.TrimSpace(content)
	if form == FormPrefix {
		p = strings.TrimSuffix(content, ":*")
	}
	w, _, _ := strings.Cut(p, " ")
	if w == "" || strings.ContainsAny(w, "*\\") {
		return "", false
	}
	return w, true
}

// literalTwoWords returns "first second" for a prefix or wildcard rule whose text up to its
// first wildcard or escape holds two complete words: "git push" of git push:* (which matches
// git push or git push followed by a space) and of git push * or git push -f * (anchored
// wildcards that start with "git push "). Every command the rule matches then has these first
// two words, as twoWords splits them.
func literalTwoWords(content string, form RuleForm) (string, bool) {
	var lit string
	switch form {
	case FormPrefix:
		// wordPrefix: the command starts with p, then a space or its end.
		lit = strings.TrimSuffix(content, ":*") + " "
	case FormWildcard:
		p := strings.TrimSpace(content)
		end := strings.IndexAny(p, "*\\")
		if end < 0 {
			return "", false
		}
		lit = p[:end]
	default:
		return "", false
	}
	if strings.ContainsAny(lit, "*\\") {
		return "", false
	}
	i := strings.IndexByte(lit, ' ')
	if i <= 0 {
		return "", false
	}
	j := strings.IndexByte(lit[i+1:], ' ')
	if j <= 0 {
		return "", false // no second word, or one the wildcard may continue
	}
	return lit[:i+1+j], true
}

// twoWords returns the first two space-separated words of a command as "first second", or ""
// when it has fewer.
func twoWords(s string) string {
	i := strings.IndexByte(s, ' ')
	if i < 0 {
		return ""
	}
	if j := strings.IndexByte(s[i+1:], ' '); j >= 0 {
		return s[:i+1+j]
	}
	return s
}

// longestLiteral returns the longest run of a wildcard pattern without a star or an escape.
func longestLiteral(p string) string {
	best, start := "", 0
	for i := 0; i <= len(p); i++ {
		if i < len(p) && p[i] != '*' && p[i] != '\\' {
			continue
		}
		if i-start > len(best) {
			best = p[start:i]
		}
		start = i + 1
	}
	return best
}

func leadingWord(s string) string {
	w, _, _ := strings.Cut(s, " ")
	return w
}

// match returns the earliest rule matching any candidate. Prefix and wildcard rules are tried
// only when loose is set.
func (rs *ruleSet) match(cands []string, loose bool) *permission.Rule {
	if rs == nil {
		return nil
	}
	best := indexedRule{pos: -1}
	take := func(ir indexedRule) {
		if best.pos < 0 || ir.pos < best.pos {
			best = ir
		}
	}
	var cbytes byteSet // the bytes of the candidate being tried
	try := func(list []indexedRule, c string, onlyPrefix bool) {
		for i := range list {
			ir := &list[i]
			if (best.pos >= 0 && ir.pos > best.pos) || (onlyPrefix && ir.form != FormPrefix) {
				continue
			}
			if ir.needle != "" && (!ir.needleBytes.within(&cbytes) || !strings.Contains(c, ir.needle)) {
				continue
			}
			if MatchRule(ir.content, c) {
				take(*ir)
			}
		}
	}
	for _, c := range cands {
		c = strings.TrimSpace(c)
		for _, ir := range rs.exact[c] {
			take(ir)
		}
		if !loose {
			continue
		}
		cbytes = bytesOf(c)
		try(rs.byWord[leadingWord(c)], c, false)
		if two := twoWords(c); two != "" {
			try(rs.byTwo[two], c, false)
		}
		// Legacy prefix rules also match "xargs cmd ...".
		if rest, ok := strings.CutPrefix(c, "xargs "); ok {
			try(rs.byWord[leadingWord(rest)], c, true)
			if two := twoWords(rest); two != "" {
				try(rs.byTwo[two], c, true)
			}
		}
		try(rs.anyWord, c, false)
		for i, word := range rs.anyKeys {
			for word &= cbytes[i]; word != 0; word &= word - 1 {
				try(rs.anyByByte[byte(i<<6+bits.TrailingZeros64(word))], c, false)
			}
		}
	}
	if best.pos < 0 {
		return nil
	}
	return best.r
}

// bashIndexes are the Bash rules of a permission context, indexed once per context.
type bashIndexes struct {
	deny, ask, allow *ruleSet
	// normDeny and normAsk are the deny and ask rules in normal form, by command name.
	normDeny, normAsk normIndex
	denyAsk           bool
	// readRules reports that some Read deny or ask rule exists.
	readRules bool
}

type indexKey struct{}

func indexesFor(pc *permission.Context) *bashIndexes {
	return pc.Memo(indexKey{}, func() any {
		deny, ask := pc.ContentRules(permission.Deny, "Bash"), pc.ContentRules(permission.Ask, "Bash")
		return &bashIndexes{
			deny:      newRuleSet(deny, true),
			ask:       newRuleSet(ask, true),
			allow:     newRuleSet(pc.ContentRules(permission.Allow, "Bash"), false),
			normDeny:  normRules(deny),
			normAsk:   normRules(ask),
			denyAsk:   len(deny)+len(ask) > 0,
			readRules: len(pc.ContentRules(permission.Deny, "Read")) > 0 || len(pc.ContentRules(permission.Ask, "Read")) > 0,
		}
	}).(*bashIndexes)
}
