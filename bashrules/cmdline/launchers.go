package cmdline

import (
	"slices"
	"strings"
)

// Launchers are tools whose subcommand runs another command given as its arguments (npx
// prettier, devbox run make, uv run pytest): their knowledge-base entries say "role launcher".
// Their options are too many and change too often to follow, so the command they run is
// guessed at every later word: deny and ask rules and the guessed command's safety checks
// (protected writes, exec-family options) apply to it, while allowing still needs a rule for
// the launcher itself.

// launched returns the words after a launcher's subcommand, and the script its entry's
// script options give (nix-shell --run).
func launched(name string, args []Word) (rest []Word, script *Word, ok bool) {
	spec, ok := Launcher(name)
	if !ok {
		return nil, nil, false
	}
	subs := spec.Subs
	for i, a := range args {
		if a.Known && slices.Contains(spec.Scripts, a.Value) && i+1 < len(args) {
			s := args[i+1]
			script = &s
		}
	}
	if subs[0] == "" {
		return args, script, true
	}
	for i, a := range args {
		if !a.Known {
			return nil, script, script != nil
		}
		if strings.HasPrefix(a.Value, "-") {
			continue
		}
		if slices.Contains(subs, a.Value) {
			return args[i+1:], script, true
		}
		break
	}
	return nil, script, script != nil
}
