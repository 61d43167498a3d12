package bashrules

import "strings"

// Builtins that change what later words of the shell mean, or that run text as commands
// outside any word the analysis reads (issue 39):
//
//   - set -k (set -o keyword): every NAME=value word anywhere on a command line becomes the
//     command's environment (set -k; git status GIT_CONFIG_COUNT=1 ...), so the words the
//     analysis takes for operands may be GIT_*, LD_PRELOAD or PATH;
//   - declare/typeset/local/export/readonly -i or -n: an integer attribute makes every later
//     assignment to the name arithmetic (x='a[$(cmd)]' runs cmd), a nameref makes it name
//     another variable, subscripts included;
//   - mapfile/readarray -C: the callback is a command line, run every -c lines;
//   - compgen -C: the command is run to produce the completions; compgen -F calls a function;
//   - fc: re-runs commands from the history, after an editor (-e) has changed them.
//
// Each is a safety ask when a Bash deny or ask rule exists (what runs may be what a rule
// names), and needs approval otherwise.

// shellMeaningWhy says why a builtin changes what later words mean or runs text as commands.
func shellMeaningWhy(name string, args []Word) string {
	switch name {
	case "set":
		for i, a := range args {
			if !a.Known {
				return "set is given an option only known when it runs (" + a.Src + ")"
			}
			v := a.Value
			if v == "--" || v == "-" {
				break // positional parameters follow
			}
			if v == "-o" && i+1 < len(args) && args[i+1].Value == "keyword" {
				return "set -o keyword makes every NAME=value word of later commands their environment"
			}
			if len(v) > 1 && v[0] == '-' && v[1] != '-' && v != "-o" && strings.ContainsRune(v[1:], 'k') {
				return "set -k makes every NAME=value word of later commands their environment"
			}
		}
	case "declare", "typeset", "local", "export", "readonly":
		for _, a := range args {
			v := a.Value
			if a.Known && len(v) > 1 && v[0] == '-' && strings.ContainsAny(v[1:], "in") {
				return name + " " + v + " makes later assignments to these names evaluate their values (integer or nameref attribute), which can run commands hidden in a value"
			}
		}
	case "mapfile", "readarray":
		for _, a := range args {
			if a.Known && strings.HasPrefix(a.Value, "-") && !strings.HasPrefix(a.Value, "--") && strings.ContainsRune(a.Value, 'C') {
				return name + " -C runs its callback as a command line"
			}
		}
	case "compgen":
		for _, a := range args {
			if a.Known && (strings.HasPrefix(a.Value, "-C") || strings.HasPrefix(a.Value, "-F")) {
				return "compgen " + a.Value[:2] + " runs a command or a function to produce its words"
			}
		}
	case "fc":
		return "fc runs commands again from the history"
	}
	return ""
}
