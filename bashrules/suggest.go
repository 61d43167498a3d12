package bashrules

import (
	"strings"
)

const maxSuggestions = 5

var subcommandRE = lazyRE(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// noSuggest are shells, wrappers and interpreters: a rule for them would allow anything.
var noSuggest = map[string]bool{"sh": true, "bash": true, "zsh": true, "fish": true, "csh": true, "tcsh": true, "ksh": true,
	"dash": true, "cmd": true, "powershell": true, "pwsh": true, "env": true, "xargs": true, "nice": true, "stdbuf": true,
	"nohup": true, "timeout": true, "time": true, "sudo": true, "doas": true, "pkexec": true, "eval": true, "exec": true,
	"source": true, ".": true, "command": true, "builtin": true, "watch": true, "ssh": true, "su": true, "find": false}

// suggestion proposes an allow rule for a command nothing allowed: "cmd sub:*" when the second
// word looks like a subcommand, the command name alone for a bare command, else the exact
// command.
func suggestion(c *Command) []string {
	if c.Kind != KindCall || !fullyKnown(c, c.Issues) || len(c.Argv) == 0 {
		return nil
	}
	name, _ := commandName(c.Argv[0])
	if noSuggest[name] || isShell(name) || isInterpreter(name) || wrappers[name].Peel != nil || wrappers[name].Safe {
		return nil
	}
	if _, ok := wrappers[name]; ok {
		return nil
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
