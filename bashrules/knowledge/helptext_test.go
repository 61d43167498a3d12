package knowledge

import (
	"regexp"
	"slices"
	"strings"
)

// helpOpt is one line of a help text that describes an option: its spellings as the help
// writes them, and whether it shows a value.
type helpOpt struct {
	spellings []string
	arities   []Arity // each spelling's
	line      string
}

var (
	// helpSpellingRE is an option spelling at the start of what is left of a help line.
	helpSpellingRE = regexp.MustCompile(`^(--?[A-Za-z0-9?#][A-Za-z0-9_.+#-]*)`)
	// valueWordRE is a value placeholder after a spelling: <x>, [<x>], WORD, 'quoted', or a
	// lowercase type word (docker's list, string, int).
	valueWordRE = regexp.MustCompile(`^(\([^)]*\)|\[?<[^>]*>\]?(\.\.\.)?|\[[^\]]*\]|'[^']*'|"[^"]*"|[A-Z][A-Z0-9_:|-]*(\.\.\.)?|[a-z][a-zA-Z0-9_-]*|\{[^}]*\})`)
)

// helpOptions reads the options a help text describes: each line whose text starts with a
// dash lists spellings (-a, --all, -word), separated by commas, slashes or " | ", each perhaps
// with a value, until the description starts (two spaces, a colon, or a word that is no value).
func helpOptions(text string) []helpOpt {
	var out []helpOpt
	for _, line := range strings.Split(text, "\n") {
		rest := strings.TrimLeft(line, " \t")
		if !strings.HasPrefix(rest, "-") || strings.HasPrefix(rest, "---") {
			continue
		}
		var ho helpOpt
		ho.line = strings.TrimSpace(line)
		rest = strings.ReplaceAll(rest, "--[no-]", "--")
		for rest != "" {
			if strings.HasPrefix(rest, "-<") || strings.HasPrefix(rest, "-[") {
				// A placeholder for a number or a letter (git log -<number>): skip to the next
				// spelling.
				end := strings.IndexAny(rest, ">]")
				if end < 0 {
					break
				}
				rest = strings.TrimLeft(rest[end+1:], ", ")
				continue
			}
			m := helpSpellingRE.FindString(rest)
			if m == "" || m == "-" || m == "--" {
				break
			}
			sp := strings.TrimRight(m, ".:")
			rest = rest[len(m):]
			var a Arity
			rest, a = helpValue(rest, None)
			if !slices.Contains(ho.spellings, sp) {
				ho.spellings = append(ho.spellings, sp)
				ho.arities = append(ho.arities, a)
			}
			// Separators between spellings.
			sep := false
			for _, s := range []string{", ", ",", " | ", "|", " / ", "/", " or ", " "} {
				if strings.HasPrefix(rest, s) && strings.HasPrefix(strings.TrimLeft(rest[len(s):], " "), "-") && (s != " " || !strings.HasPrefix(rest, "  ")) {
					rest = strings.TrimLeft(rest[len(s):], " ")
					sep = true
					break
				}
			}
			if !sep {
				break
			}
		}
		if len(ho.spellings) > 0 {
			// A value shown once (-f, --file FILE) is every spelling's, but a --no- form's.
			var shown Arity
			for _, a := range ho.arities {
				shown = max(shown, a)
			}
			for i, a := range ho.arities {
				if a == None && !strings.HasPrefix(ho.spellings[i], "--no-") && i < len(ho.arities)-1 {
					ho.arities[i] = shown
				}
			}
			out = append(out, ho)
		}
	}
	return out
}

// helpValue reads the value a help line shows right after a spelling (=X, [=X], " X",
// "[X]") and returns what follows it.
func helpValue(rest string, a Arity) (string, Arity) {
	switch {
	case strings.HasPrefix(rest, "[="), strings.HasPrefix(rest, "[<"), strings.HasPrefix(rest, "[:"):
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return "", Optional
		}
		return rest[end+1:], max(a, Optional)
	case strings.HasPrefix(rest, "="):
		v := rest[1:]
		end := strings.IndexAny(v, " ,\t")
		if end < 0 {
			end = len(v)
		}
		if strings.HasPrefix(v, "false") || strings.HasPrefix(v, "true") {
			// pflag's booleans (kubectl --all=false:) take an attached value only.
			return strings.TrimPrefix(v[end:], ":"), max(a, Optional)
		}
		return v[end:], Required
	case strings.HasPrefix(rest, " ") && !strings.HasPrefix(rest, "  "):
		v := rest[1:]
		if strings.HasPrefix(v, "-") {
			return rest, a // the next spelling
		}
		m := valueWordRE.FindString(v)
		if m == "" {
			return rest, a
		}
		after := v[len(m):]
		// A value word is followed by the description (two spaces), the end, a separator
		// or a colon; a lowercase word followed by one space is the description itself.
		if strings.HasPrefix(m, "<") || strings.HasPrefix(m, "[<") || after == "" || strings.HasPrefix(after, "  ") || strings.HasPrefix(after, "\t") || strings.HasPrefix(after, ",") ||
			strings.HasPrefix(after, " :") || strings.HasPrefix(after, " |") || strings.HasPrefix(after, ":") || strings.HasPrefix(after, " /") ||
			m[0] != strings.ToLower(m)[0] && strings.HasPrefix(after, " ") {
			if strings.HasPrefix(m, "[") {
				return after, max(a, Optional)
			}
			return after, Required
		}
		return rest, a
	case strings.HasPrefix(rest, "<"), strings.HasPrefix(rest, "[") && !strings.HasPrefix(rest, "[-"):
		// -Iinclude, -O[level]: a value written against the spelling.
		end := strings.IndexAny(rest, "]>")
		if end < 0 {
			return "", Optional
		}
		return rest[end+1:], max(a, Optional)
	}
	return rest, a
}

// entrySpellings are the spellings a command accepts: its own, and its program's when it
// inherits them.
func entrySpellings(c *Command, prog *Command) map[string]bool {
	out := map[string]bool{}
	for _, cmd := range []*Command{c, prog} {
		if cmd == nil || (cmd == prog && c != prog && !prog.Inherit) {
			continue
		}
		for _, o := range cmd.Options {
			for _, s := range o.Spellings {
				out[s] = true
			}
		}
		for _, s := range cmd.HelpSkip {
			out[s] = true
		}
	}
	return out
}

// helpSpelling normalises a spelling a help text shows: +x is how set writes -x off; a
// trailing "=" or "[" left by the help's layout goes.
func helpSpelling(s string) string {
	return strings.TrimRight(s, "=[")
}

// missingFrom lists the help's spellings the entry lacks, each with its help line, in the
// order of the help.
func missingFrom(help []helpOpt, have map[string]bool) (missing []string, lines []helpOpt) {
	for _, ho := range help {
		var miss []string
		var ar []Arity
		for i, s := range ho.spellings {
			s = helpSpelling(s)
			if s == "-" || have[s] || slices.Contains(missing, s) || slices.Contains(miss, s) {
				continue
			}
			miss = append(miss, s)
			ar = append(ar, ho.arities[i])
		}
		if len(miss) > 0 {
			missing = append(missing, miss...)
			lines = append(lines, helpOpt{spellings: miss, arities: ar, line: ho.line})
		}
	}
	return missing, lines
}

// kbLine writes a help line's spellings as an opt line of an entry, for the -missing report.
func kbLine(ho helpOpt) string {
	var b strings.Builder
	b.WriteString("opt")
	for i, s := range ho.spellings {
		b.WriteString(" " + s)
		switch ho.arities[i] {
		case Required:
			b.WriteString("=")
		case Optional:
			if kindOf(s) != kShort {
				b.WriteString("?")
			}
		}
	}
	line := ho.line
	if len(line) > 70 {
		line = line[:70]
	}
	return b.String() + "  # " + line
}
