package bashrules

import "strings"

// The path and read-only code of the programs whose entries are in
// knowledge/programs/runs.kb: what their entries cannot state as data (a paths role, the
// read-only judgement of their arguments).

func init() {
	registerReadOnly("test", testRO)
	registerReadOnly("[", testRO)
	registerReadOnly("alias", noArgs)
	registerReadOnly("command", commandRO)
	registerReadOnly("jq", jqRO)
	registerReadOnly("node", versionOnly("-v", "--version"))
	registerReadOnly("gh", ghRO)
	registerPaths("jq", jqPaths)
	registerPaths("source", sourcePaths)
	registerPaths(".", sourcePaths)
	registerPaths("tree", treePaths)
	registerPaths("dd", ddPaths)
	registerPaths("xargs", xargsPaths)
	registerPaths("node", noPaths)
	registerPaths("flock", flockPaths)
}

// flockPaths: the lock file, flock's first operand, is created when it is not there; the
// words after it are the command, which the wrapper's peel finds. A number alone is a file
// descriptor.
func flockPaths(args []Word) pathsResult {
	_, ops := parseArgs(args, optSpec{value: "wE", long: []string{"timeout", "conflict-exit-code"}, posix: true})
	var r pathsResult
	if len(ops) > 1 || len(ops) == 1 && !numericRE().MatchString(ops[0].Value) {
		r.add(accWrite, ops[0])
	}
	return r
}

func ddPaths(args []Word) pathsResult {
	var r pathsResult
	for _, a := range args {
		if !a.Known {
			r.issue("dd operand is not literal")
			continue
		}
		if v, ok := strings.CutPrefix(a.Value, "if="); ok {
			r.add(accRead, subWord(a, v))
		}
		if v, ok := strings.CutPrefix(a.Value, "of="); ok {
			r.add(accWrite, subWord(a, v))
		}
	}
	return r
}

func xargsPaths(args []Word) pathsResult {
	var r pathsResult
	inner, _, _ := xargsReplace(args)
	opts, _ := parseArgs(args[:min(inner, len(args))], optSpec{value: "adELnPsI", long: []string{"arg-file", "delimiter", "eof", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"}})
	r.add(accRead, optVals(opts, "-a", "--arg-file")...)
	return r
}

// jqPaths knows jq's two-value options (--arg name value) and its filter operand.
func jqPaths(args []Word) pathsResult {
	var r pathsResult
	var ops []Word
	filterFromFile := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.Known || !strings.HasPrefix(a.Value, "-") || a.Value == "-" {
			ops = append(ops, a)
			continue
		}
		switch v := a.Value; v {
		case "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case "--arg", "--argjson":
			i += 2
		case "--slurpfile", "--rawfile":
			if i+2 < len(args) {
				r.add(accRead, args[i+2])
			}
			i += 2
		case "-f", "--from-file":
			filterFromFile = true
			if i+1 < len(args) {
				r.add(accRead, args[i+1])
			}
			i++
		case "-L", "--indent":
			if v == "-L" && i+1 < len(args) {
				r.add(accRead, args[i+1])
			}
			i++
		case "--args", "--jsonargs":
			// The remaining operands are values, not files.
			if len(ops) == 0 && !filterFromFile && i+1 < len(args) {
				ops = append(ops, args[i+1])
			}
			r.add(accRead, dropStdin(tail(ops, filterFromFile))...)
			return r
		}
	}
	r.add(accRead, dropStdin(tail(ops, filterFromFile))...)
	return r
}

// tail drops the filter operand.
func tail(ops []Word, filterFromFile bool) []Word {
	if filterFromFile || len(ops) == 0 {
		return ops
	}
	return ops[1:]
}

func sourcePaths(args []Word) pathsResult {
	var r pathsResult
	if len(args) > 0 {
		r.add(accRead, args[0])
	}
	return r
}

func treePaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, optSpec{value: "LPIHTo", long: []string{"charset", "filelimit", "timefmt", "sort", "fromfile", "infile"}})
	var r pathsResult
	r.add(accWrite, optVals(opts, "-o")...)
	if hasOpt(opts, "--fromfile", "--infile") {
		r.issue("tree --fromfile reads a listing from a file")
	}
	r.add(accRead, ops...)
	return r
}

// commandRO: command -v and -V only say what a name runs; otherwise command runs it.
func commandRO(args []Word) string {
	if len(args) > 0 && (args[0].Value == "-v" || args[0].Value == "-V") {
		return ""
	}
	return "command runs another command"
}

// testRO refuses test arguments that bash evaluates as array subscripts (test -v 'a[$(cmd)]').
func testRO(args []Word) string {
	for _, a := range args {
		if strings.Contains(a.Value, "$(") || strings.ContainsRune(a.Value, '`') {
			return "an argument of test holds a command substitution that -v would run"
		}
	}
	return ""
}

var jqEnvRE = lazyRE(`\$ENV|\benv\b|\binput_filename\b|\$__prog|\bget_search_list\b`)

// jqModuleRE finds a jq filter's module directives: import and include read .jq and .json
// files from the library path (~/.jq, next to jq, -L folders), which the path check never sees.
var jqModuleRE = lazyRE(`\b(import|include|modulemeta)\b`)

func jqRO(args []Word) string {
	for _, a := range args {
		switch v := a.Value; {
		case v == "-f" || v == "--from-file" || v == "--rawfile" || v == "--slurpfile" || v == "-L" || strings.HasPrefix(v, "--library-path") || strings.HasPrefix(v, "-L"):
			return "jq option " + v + " reads other files"
		case jqEnvRE().MatchString(v):
			return "jq filter reads the environment"
		case jqModuleRE().MatchString(v):
			return "jq filter imports modules, which it reads from its library path"
		}
	}
	return ""
}

var ghReadVerbs = map[string][]string{
	"pr":       {"list", "view", "diff", "checks", "status"},
	"issue":    {"list", "view", "status"},
	"repo":     {"view", "list"},
	"run":      {"list", "view"},
	"release":  {"list", "view"},
	"workflow": {"list", "view"},
	"label":    {"list"},
	"search":   {"repos", "issues", "prs", "commits", "code"},
}

func ghRO(args []Word) string {
	if len(args) < 2 {
		return "gh needs a command"
	}
	verbs, ok := ghReadVerbs[args[0].Value]
	if !ok || !contains(verbs, args[1].Value) {
		return "gh " + args[0].Value + " " + args[1].Value + " is not read-only"
	}
	return ""
}
