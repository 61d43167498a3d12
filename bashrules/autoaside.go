package bashrules

import (
	"fmt"
	"path"
	"strings"

	"github.com/reinsdev/reins/permission"
)

// In auto mode the classifier judges what an allow rule would otherwise let through unseen:
// code. A Bash allow rule is set aside there when some command it matches runs code of its
// own: an interpreter, a shell, a runner, a database client or a launcher's subcommand (the
// knowledge base's roles), under any name the analysis knows it by (python3.12, /usr/bin/python3,
// nodejs), or a wrapper (timeout, env, nice, sudo, xargs) whose wrapped command may be one.
// What the rule's text leaves open counts as anything: Bash(timeout:*) may wrap python3, and
// Bash(py*) may name it.

// SetAsideInAuto says why auto mode sets an allow rule of the Bash tool aside (its classifier,
// not the rule, then judges the calls), or "" when it keeps it. Rules of other tools are kept.
// Every rule Claude Code sets aside is set aside too (permission.IsDangerousAllowRule).
func SetAsideInAuto(v permission.RuleValue) string {
	if v.Tool != "Bash" {
		return ""
	}
	if v.Content == "" {
		return "a tool-wide Bash rule allows every command"
	}
	if why := ruleRunsCode(v.Content); why != "" {
		return why
	}
	if permission.IsDangerousAllowRule(v) {
		return "Claude Code sets this rule aside in auto mode"
	}
	return ""
}

// ruleRunsCode says what lets a command the rule content matches run code of its own, or "".
func ruleRunsCode(content string) string {
	text, open, partial := content, false, false
	switch Form(content) {
	case FormPrefix:
		text, open = strings.TrimSuffix(content, ":*"), true
	case FormWildcard:
		text, open = literalPart(content), true
		partial = !endsWord(text)
	}
	// Each command of a compound text is a command the rule may allow; the last one is left
	// as open as the rule.
	parts := strings.FieldsFunc(text, func(r rune) bool { return r == ';' || r == '&' || r == '|' || r == '\n' })
	if len(parts) == 0 {
		if open {
			return "the rule allows any command"
		}
		return ""
	}
	for i, p := range parts {
		last := i == len(parts)-1
		if why := wordsRunCode(ruleWords(p, last && partial), last && open, 0); why != "" {
			return why
		}
	}
	return ""
}

// literalPart is a wildcard rule's text up to its first unescaped star.
func literalPart(p string) string {
	p = strings.TrimSpace(p)
	for i := 0; i < len(p); i++ {
		if p[i] == '*' && !escapedAt(p, i) {
			return p[:i]
		}
	}
	return p
}

// endsWord reports whether the literal text ends at a word boundary, so that its last word is
// whole: "git " and "git" of "git:*" do; "py" of "py*" does not.
func endsWord(text string) bool {
	return text == "" || strings.HasSuffix(text, " ") || strings.HasSuffix(text, "\t")
}

// ruleWords splits a rule's literal text into words. A word with quotes, escapes, expansions
// or glob characters is unknown: it may be any word. partial marks the last word as cut short
// by a wildcard, so it too may be any word.
func ruleWords(text string, partial bool) []Word {
	fields := strings.Fields(text)
	out := make([]Word, len(fields))
	for i, f := range fields {
		known := !strings.ContainsAny(f, "'\"\\$`*?[]{}~()<>")
		out[i] = Word{Src: f, Value: f, Known: known}
	}
	if partial && len(out) > 0 {
		out[len(out)-1].Known = false
	}
	return out
}

// wordsRunCode walks one command of a rule's text: through leading assignments and wrappers to
// the program, and says what about it runs code. open says the rule allows more words after
// these.
func wordsRunCode(words []Word, open bool, depth int) string {
	for len(words) > 0 && words[0].Known && envAssignRE().MatchString(words[0].Value) {
		words = words[1:]
	}
	if len(words) == 0 {
		if open {
			return "the rule allows any command after it"
		}
		return ""
	}
	if depth > 8 {
		return "the rule wraps commands too deep to follow"
	}
	w, args := words[0], words[1:]
	if !w.Known {
		return fmt.Sprintf("%q may name any program", w.Src)
	}
	name := path.Base(w.Value)
	if why := programRunsCode(name, args, open); why != "" {
		return why
	}
	spec, ok := wrapperOf(name)
	if !ok {
		return ""
	}
	if spec.Peel == nil {
		return name + " runs the command it is given"
	}
	inner, script, _, ok := spec.Peel(args)
	switch {
	case script != nil:
		return name + " runs a command line through a shell"
	case !ok && (open || inner < len(args)):
		return fmt.Sprintf("%s runs a command the rule does not name", name)
	case inner >= len(args):
		if open {
			return name + " runs whatever command follows"
		}
		return ""
	}
	return wordsRunCode(args[inner:], open, depth+1)
}

// programRunsCode says what role of a program (by the name it was run as) runs code, or "".
func programRunsCode(name string, args []Word, open bool) string {
	t := roles()
	if why, ok := t.shellText[name]; ok {
		return why
	}
	switch _, runner := t.runners[name]; {
	case isInterpreter(name):
		return name + " is an interpreter"
	case isShell(name):
		return name + " is a shell"
	case runner:
		return t.runners[name].why
	case isDBClient(name):
		return name + " runs database statements, and its shell escapes"
	}
	ls, ok := t.launchers[name]
	if !ok {
		return ""
	}
	if ls.Subs[0] == "" {
		return name + " runs the command it is given"
	}
	for _, a := range args {
		opt, _, _ := strings.Cut(a.Value, "=")
		switch {
		case !a.Known:
			return fmt.Sprintf("%s %s may be a subcommand that runs a command", name, a.Src)
		case contains(ls.Scripts, opt):
			return fmt.Sprintf("%s %s runs a command line", name, opt)
		case strings.HasPrefix(a.Value, "-"):
			continue
		case contains(ls.Subs, a.Value):
			return fmt.Sprintf("%s %s runs the command it is given", name, a.Value)
		}
		return ""
	}
	if open {
		return fmt.Sprintf("%s may be followed by %s, which runs a command", name, strings.Join(ls.Subs, " or "))
	}
	return ""
}
