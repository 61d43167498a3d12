package bashrules

import (
	"slices"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Word is one shell word as the analysis sees it: its source text and, when the word is made
// only of literal and quoted-literal parts, the value bash will pass to the command.
type Word struct {
	// Src is the word exactly as written.
	Src string
	// Value is the word's value after quote removal. It is meaningful only when Known.
	Value string
	// Known reports whether the value can be read off the source: the word has only literal,
	// single-quoted and double-quoted literal parts. Any expansion makes it unknown.
	Known bool
	// Why says what made the word unknown.
	Why string
	// Glob reports an unquoted *, ? or [...] that bash would expand against the file system.
	Glob bool
	// Tilde is the kind of unquoted tilde prefix bash would expand.
	Tilde TildeKind
	// Placeholder marks the {} of find -exec and the replace string of xargs -I: a file name
	// only known when the command runs.
	Placeholder bool
	// OneField reports, for a word that is not Known, that it still becomes exactly one word
	// when it runs: every expansion in it is inside double quotes and none of them can expand
	// to several words ("$@", "${a[@]}", "${!p@}"), so it names one file, whichever.
	OneField bool
}

// TildeKind is the kind of tilde prefix a word starts with.
type TildeKind uint8

const (
	NoTilde    TildeKind = iota
	TildeHome            // ~ or ~/...: the home directory
	TildeOther           // ~user, ~+, ~-: another user's home or the directory stack
)

// IsPathLike reports whether the word's value is fully known as a path: known, no glob, no
// tilde other than the home directory's.
func (w Word) IsPathLike() bool {
	return w.Known && !w.Glob && w.Tilde != TildeOther && !w.Placeholder
}

func srcOf(src string, n syntax.Node) string {
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || e > len(src) || s > e {
		return ""
	}
	return src[s:e]
}

// evalWord reads a word's value without expanding anything.
func evalWord(src string, w *syntax.Word) Word {
	out := Word{Src: srcOf(src, w), Known: true}
	split := false // an expansion that field splitting or globbing may turn into several words
	var b strings.Builder
	var direct string
	isDirect := false
	unknown := func(why string) {
		if out.Known {
			out.Known, out.Why = false, why
		}
	}
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if len(w.Parts) == 1 && strings.IndexByte(p.Value, '\\') < 0 {
				// Most words: one literal without a backslash is its own value.
				out.Glob = unquoteLit(nil, p.Value)
				direct, isDirect = p.Value, true
			} else {
				glob := unquoteLit(&b, p.Value)
				out.Glob = out.Glob || glob
			}
			if i == 0 && strings.HasPrefix(p.Value, "~") {
				out.Tilde = tildeKind(p.Value, len(w.Parts) == 1)
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				unknown("ANSI-C quoting ($'...')")
				continue
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				unknown(`locale translation ($"...")`)
				continue
			}
			for _, dp := range p.Parts {
				if cs, ok := dp.(*syntax.CmdSubst); ok {
					if text, ok := catHeredoc(src, cs); ok {
						b.WriteString(text)
						continue
					}
				}
				lit, ok := dp.(*syntax.Lit)
				if !ok {
					unknown(partName(dp) + " inside double quotes")
					split = split || manyFields(dp)
					continue
				}
				unquoteDbl(&b, lit.Value)
			}
		case *syntax.CmdSubst:
			if text, ok := catHeredoc(src, p); ok && !strings.ContainsAny(text, " \t\n*?[") {
				b.WriteString(text)
				continue
			}
			unknown(partName(part))
			split = true
		default:
			unknown(partName(part))
			split = true
		}
	}
	out.OneField = !out.Known && !split && !out.Glob && out.Tilde == NoTilde
	if out.Known {
		out.Value = b.String()
		if isDirect {
			out.Value = direct
		}
	}
	return out
}

// manyFields reports whether a part inside double quotes may still expand to several words:
// "$@", "${a[@]}" and "${!prefix@}" do; "$*", "${a[*]}", "$x" and "$(cmd)" do not.
func manyFields(p syntax.WordPart) bool {
	pe, ok := p.(*syntax.ParamExp)
	if !ok {
		return false
	}
	if pe.Param != nil && pe.Param.Value == "@" {
		return true
	}
	if pe.Names != 0 || pe.Excl {
		return true // ${!p@}; ${!x} may name @
	}
	if pe.Exp != nil && pe.Exp.Word != nil && wordManyFields(pe.Exp.Word) {
		return true // ${x:-"$@"}
	}
	if pe.Index != nil {
		if w, ok := pe.Index.(*syntax.Word); ok && w.Lit() == "*" {
			return false
		}
		return true
	}
	return false
}

// wordManyFields reports whether any expansion in w may expand to several words.
func wordManyFields(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if dq, ok := p.(*syntax.DblQuoted); ok {
			if slices.ContainsFunc(dq.Parts, manyFields) {
				return true
			}
			continue
		}
		if manyFields(p) {
			return true
		}
	}
	return false
}

// tildeKind classifies the tilde prefix of a word's first literal part. The prefix runs to the
// first slash; bash expands it only when none of it is quoted, so a prefix that does not end
// inside this literal (more parts follow and there is no slash) is not expanded.
func tildeKind(lit string, only bool) TildeKind {
	prefix, _, hasSlash := strings.Cut(lit, "/")
	if !hasSlash && !only {
		return NoTilde
	}
	if strings.ContainsRune(prefix, '\\') {
		return NoTilde
	}
	if prefix == "~" {
		return TildeHome
	}
	return TildeOther
}

// unquoteLit appends the value of an unquoted literal (a backslash quotes the next byte) and
// reports whether it holds an unquoted glob. With b nil it only reports.
func unquoteLit(b *strings.Builder, s string) (glob bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			if i+1 < len(s) {
				i++
				if b != nil {
					b.WriteByte(s[i])
				}
			}
			continue
		case '*', '?':
			glob = true
		case '[':
			if strings.IndexByte(s[i+1:], ']') >= 0 {
				glob = true
			}
		}
		if b != nil {
			b.WriteByte(c)
		}
	}
	return glob
}

// unquoteDbl appends the value of a literal inside double quotes, where a backslash only
// quotes $, `, ", \ and newline.
func unquoteDbl(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
				b.WriteByte(s[i])
				continue
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(c)
	}
}

func partName(p syntax.WordPart) string {
	switch p := p.(type) {
	case *syntax.ParamExp:
		return "parameter expansion ($" + paramName(p) + ")"
	case *syntax.CmdSubst:
		return "command substitution"
	case *syntax.ArithmExp:
		return "arithmetic expansion"
	case *syntax.ProcSubst:
		return "process substitution"
	case *syntax.ExtGlob:
		return "extended glob"
	case *syntax.BraceExp:
		return "brace expansion"
	case *syntax.SglQuoted:
		return "quoted string"
	}
	return "expansion"
}

func paramName(p *syntax.ParamExp) string {
	if p.Param != nil {
		return p.Param.Value
	}
	return "?"
}

// needsQuoting reports whether s must be quoted to stand as one shell word.
func needsQuoting(s string) bool {
	if s == "" {
		return true
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("-_./:@%+,=", c) >= 0:
		case c >= utf8.RuneSelf:
		default:
			return true
		}
	}
	return false
}

// quoteWord renders a value as a shell word that reads back as the same value.
func quoteWord(s string) string {
	if !needsQuoting(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// catHeredoc reads a command substitution that only prints a literal here-document,
// "$(cat <<'EOF' ... EOF)", the way commit messages are written: its value is the text, less
// the trailing newlines the substitution removes. Any other substitution is unknown.
func catHeredoc(src string, cs *syntax.CmdSubst) (string, bool) {
	if len(cs.Stmts) != 1 {
		return "", false
	}
	st := cs.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Negated || st.Background || st.Coprocess || len(call.Assigns) != 0 || len(call.Args) != 1 || len(st.Redirs) != 1 {
		return "", false
	}
	if lit := call.Args[0].Lit(); lit != "cat" {
		return "", false
	}
	rd := st.Redirs[0]
	if rd.Op != syntax.Hdoc || rd.N != nil || rd.Hdoc == nil {
		return "", false
	}
	quoted := false
	for _, p := range rd.Word.Parts {
		if _, ok := p.(*syntax.Lit); !ok {
			quoted = true
		}
	}
	if !quoted {
		return "", false
	}
	var b strings.Builder
	for _, p := range rd.Hdoc.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok {
			return "", false
		}
		b.WriteString(l.Value)
	}
	return strings.TrimRight(b.String(), "\n"), true
}
