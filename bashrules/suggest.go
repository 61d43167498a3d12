package bashrules

import (
	"strings"
)

const maxSuggestions = 5

var subcommandRE = lazyRE(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// suggestion proposes the narrowest allow rule that covers a command nothing allowed: "cmd
// sub:*" when the second word looks like a subcommand, the command name alone for a bare
// command, else the exact command. An interpreter's is the exact command, but for a Python
// module ("python3 -m pytest:*"): a rule on the interpreter alone would allow any code.
func suggestion(c *Command) []string {
	if c.Kind != KindCall || !fullyKnown(c, c.Issues) || len(c.Argv) == 0 {
		return nil
	}
	name, _ := commandName(c.Argv[0])
	if roles().noSuggest[name] || isShell(name) || isWrapper(name) {
		return nil
	}
	if isInterpreter(name) {
		return interpreterSuggestion(c, name)
	}
	text := c.Text
	if safeAssigns(c.Assigns) {
		words := make([]string, len(c.Words))
		for i, w := range c.Words {
			words[i] = w.Src
		}
		text = strings.Join(words, " ")
	}
	if first, _, multi := strings.Cut(text, "\n"); multi {
		return []string{strings.TrimSpace(first) + ":*"}
	}
	switch {
	case len(c.Argv) >= 2 && subcommandRE().MatchString(c.Argv[1].Value) && !needsQuoting(c.Argv[0].Value) && !runsNamedProgram(name, c.Argv):
		return []string{c.Argv[0].Value + " " + c.Argv[1].Value + ":*"}
	case len(c.Argv) == 1:
		return []string{c.Argv[0].Value}
	}
	return []string{text}
}

// moduleRE is a Python module name as -m takes it (pytest, http.server, my_pkg.cli).
var moduleRE = lazyRE(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)

// interpreterSuggestion is the rule for an interpreter's command: "python3 -m MODULE:*" (with
// the module's subcommand, "python3 -m pip install:*", as for any program), else the exact
// command, which inline code or a script names whole. A command of several lines gets none.
func interpreterSuggestion(c *Command, name string) []string {
	text := c.Text
	if strings.ContainsRune(text, '\n') || len(c.Assigns) > 0 {
		return nil
	}
	argv := c.Argv
	python := strings.HasPrefix(name, "python") || strings.HasPrefix(name, "pypy")
	if python && len(argv) >= 3 && argv[1].Value == "-m" && moduleRE().MatchString(argv[2].Value) && !needsQuoting(argv[0].Value) {
		prefix := argv[0].Value + " -m " + argv[2].Value
		if len(argv) >= 4 && subcommandRE().MatchString(argv[3].Value) {
			prefix += " " + argv[3].Value
		}
		return []string{prefix + ":*"}
	}
	return []string{text}
}
