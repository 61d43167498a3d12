package bashrules

import "strings"

// awk's program text, read as awk reads it: strings, regular expressions and comments are
// taken out before anything is looked for, so a ";" or "}" inside a string does not end a
// statement early (print "a;b" > "f" writes f) and a "|" inside one is no pipe. What makes a
// program more than a reader of its input:
//
//   - system(), a pipe to or from a command (print | "cmd", "cmd" | getline, |&), getline
//     from a file or a command (any getline but the plain one is refused: awk's grammar cannot
//     be told apart from here without a parser);
//   - print or printf with > or >> in the statement (a write; print (a > b) is refused too);
//   - gawk's indirect calls (@f(), f = "system"), @include and @load (other code);
//   - ARGV and ARGC, which change the files awk goes on to read (ARGV[1] = ".env").

// awkProgramWhy says why an awk program does more than read its input, or "".
func awkProgramWhy(prog string) string {
	toks := awkTokens(prog)
	inPrint := false
	for i, t := range toks {
		next := ""
		if i+1 < len(toks) {
			next = toks[i+1]
		}
		switch {
		case t == "system" && next == "(":
			return "the awk program runs a command (system)"
		case t == "|" || t == "|&":
			return "the awk program pipes to or from a command (" + t + ")"
		case t == "getline":
			return "the awk program reads with getline, from a file or a command"
		case t == "@":
			switch next {
			case "include", "load":
				return "the awk program loads other code (@" + next + ")"
			case "namespace":
			default:
				return "the awk program calls a function named by a value (@" + next + "), which may be system"
			}
		case t == "ARGV" || t == "ARGC":
			return "the awk program changes the files it reads (" + t + ")"
		case t == "print" || t == "printf":
			inPrint = true
		case t == ";" || t == "\n" || t == "{" || t == "}":
			inPrint = false
		case inPrint && (t == ">" || t == ">>"):
			return "the awk program writes to a file (print " + t + ")"
		}
	}
	return ""
}

// awkTokens splits an awk program into words and operators, dropping strings, regular
// expressions and comments (each string becomes the token `""`, each regex `//`). A program
// that does not tokenize cleanly (an unterminated string) ends there: what follows is still
// refused by being unknown to nothing, so the caller's other checks see it whole.
func awkTokens(s string) []string {
	var out []string
	regexOK := true // a "/" here starts a regular expression, not a division
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
			continue
		case c == '\\' && i+1 < len(s) && s[i+1] == '\n':
			i += 2 // a continued line
			continue
		case c == '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			continue
		case c == '"':
			i = skipQuoted(s, i+1, '"')
			out = append(out, `""`)
			regexOK = false
			continue
		case c == '/' && regexOK:
			i = skipQuoted(s, i+1, '/')
			out = append(out, "//")
			regexOK = false
			continue
		case isAwkIdent(c):
			j := i
			for j < len(s) && (isAwkIdent(s[j]) || (s[j] >= '0' && s[j] <= '9')) {
				j++
			}
			w := s[i:j]
			out = append(out, w)
			// After a keyword that takes an expression a "/" starts a regex (print /x/).
			regexOK = w == "print" || w == "printf" || w == "return" || w == "in" || w == "case"
			i = j
			continue
		case c >= '0' && c <= '9' || c == '.':
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'e' || s[j] == 'E' || s[j] == 'x' || s[j] >= 'a' && s[j] <= 'f') {
				j++
			}
			out = append(out, s[i:j])
			regexOK = false
			i = j
			continue
		}
		op := string(c)
		if i+1 < len(s) {
			if two := s[i : i+2]; contains(awkTwoCharOps, two) {
				op = two
			}
		}
		out = append(out, op)
		i += len(op)
		// After an operand a "/" divides; after an operator or an opening bracket it starts a
		// regular expression.
		regexOK = op != ")" && op != "]" && op != "$" && op != "++" && op != "--"
	}
	return out
}

var awkTwoCharOps = []string{"|&", "||", "&&", ">>", ">=", "<=", "==", "!=", "!~", "++", "--", "+=", "-=", "*=", "/=", "%=", "^=", "**"}

// skipQuoted returns the index after the closing quote of a string or regex starting at i
// (backslash escapes honoured), or len(s) when it is not closed.
func skipQuoted(s string, i int, q byte) int {
	for i < len(s) {
		switch s[i] {
		case '\\':
			i += 2
			continue
		case q:
			return i + 1
		case '\n':
			if q == '/' {
				return i // a regex does not span lines: it was a division after all
			}
		}
		i++
	}
	return len(s)
}

func isAwkIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// awkWhy is the exec-family check of awk's arguments: every word must be literal, and no
// word (the program, -v values, operands) may read as a program that runs, writes or reads
// more than its input. Strings inside the program are data.
func awkWhy(args []Word) string {
	for _, a := range args {
		if !a.Known {
			return "the awk program is not literal text"
		}
		if strings.HasPrefix(a.Value, "-") && !strings.ContainsAny(a.Value, " {;") {
			continue // an option; its effects are the knowledge base's
		}
		if why := awkProgramWhy(a.Value); why != "" {
			return why
		}
	}
	return ""
}
