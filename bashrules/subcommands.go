package bashrules

import (
	"strings"
)

// commandWords counts the first arguments of a command the analysis does not otherwise know
// that name the tool's own subcommand or script, which it never opens as files: go vet,
// cargo build, npm run build — the programs whose entries say "role commands". probes skips
// them, which saves an Lstat each. Only an exact name as the very first argument counts:
// after an option, the word may be the option's value (npm --prefix ./x run).
func commandWords(name string, args []Word) int {
	if len(args) == 0 || !args[0].Known {
		return 0
	}
	n := roles().commands[name][args[0].Value]
	// A script's name (npm run SCRIPT) that looks like a path (a/b, .env, ~x) is probed all
	// the same.
	if n == 2 && (len(args) < 2 || !args[1].Known || strings.ContainsAny(args[1].Value[:min(1, len(args[1].Value))], "-.~") ||
		strings.Contains(args[1].Value, "/")) {
		n = 1
	}
	return n
}
