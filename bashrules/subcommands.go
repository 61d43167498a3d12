package bashrules

import (
	"strings"

	"github.com/reinsdev/reins/bashrules/knowledge"
)

// goCommands and cargoCommands are the commands of go and cargo: their first argument names
// one and is never opened as a file.
var (
	goCommands = map[string]bool{"bug": true, "build": true, "clean": true, "doc": true, "env": true, "fix": true, "fmt": true,
		"generate": true, "get": true, "help": true, "install": true, "list": true, "mod": true, "work": true, "run": true,
		"telemetry": true, "test": true, "tool": true, "version": true, "vet": true}
	cargoCommands = map[string]bool{"add": true, "bench": true, "build": true, "check": true, "clean": true, "clippy": true,
		"doc": true, "fetch": true, "fix": true, "fmt": true, "init": true, "install": true, "metadata": true, "new": true,
		"publish": true, "remove": true, "run": true, "search": true, "test": true, "tree": true, "uninstall": true,
		"update": true, "version": true}
)

// commandWords counts the first arguments of a command the analysis does not otherwise know
// that name the tool's own subcommand or script, which it never opens as files: go vet,
// cargo build, npm run build. probes skips them, which saves an Lstat each. Only an exact
// name as the very first argument counts: after an option, the word may be the option's
// value (npm --prefix ./x run).
func commandWords(name string, args []Word) int {
	if len(args) == 0 || !args[0].Known {
		return 0
	}
	sub := args[0].Value
	switch name {
	case "go":
		if goCommands[sub] {
			return 1
		}
	case "cargo":
		if cargoCommands[sub] {
			return 1
		}
	case "npm":
		// npm's commands and aliases are its knowledge-base entry's subcommands (exact names:
		// a prefix is not taken as a command here).
		npm, _ := knowledge.Lookup("npm")
		s, ok := npm.Subs[sub]
		if !ok {
			return 0
		}
		sub = s.Names[0]
		// npm run SCRIPT runs a script of package.json by its name. A name that looks like a
		// path (a/b, .env, ~x) is probed all the same.
		if sub == "run-script" && len(args) > 1 && args[1].Known && !strings.ContainsAny(args[1].Value[:min(1, len(args[1].Value))], "-.~") &&
			!strings.Contains(args[1].Value, "/") {
			return 2
		}
		return 1
	}
	return 0
}
