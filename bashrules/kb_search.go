package bashrules

import "strings"

// The path and read-only code of the programs whose entries are in
// knowledge/programs/search.kb: what their entries cannot state as data (a paths role, the
// read-only judgement of their arguments).

func init() {
	registerReadOnly("find", forbid("-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls", "-files0-from"))
	registerPaths("rg", rgPaths)
	registerPaths("fd", fdPaths)
	registerPaths("fdfind", fdPaths)
	registerPaths("find", findPaths)
}

var rgSpec = optSpec{value: "efgtTmABCMjEdr", long: []string{"regexp", "file", "glob", "iglob", "type", "type-not", "max-count",
	"after-context", "before-context", "context", "max-columns", "threads", "encoding", "max-depth", "max-filesize", "sort", "sortr",
	"color", "colors", "type-add", "type-clear", "context-separator", "field-match-separator", "path-separator", "replace", "pre",
	"pre-glob", "ignore-file", "dfa-size-limit", "regex-size-limit", "engine", "hostname-bin", "hyperlink-format", "generate", "max-columns-preview"}}

func rgPaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, rgSpec)
	var r pathsResult
	if hasOpt(opts, "--pre") {
		r.issue("rg --pre runs a program on every file")
	}
	if hasOpt(opts, "--hostname-bin") {
		r.issue("rg --hostname-bin runs a program")
	}
	listing := hasOpt(opts, "--files", "--type-list")
	if !listing && !hasOpt(opts, "-e", "--regexp", "-f", "--file") && len(ops) > 0 {
		ops = ops[1:]
	}
	if hasOpt(opts, "--type-list") {
		return r
	}
	if len(ops) == 0 {
		ops = []Word{dotWord}
	}
	acc := accReadTree
	if listing {
		acc = accRead
	}
	hidden := hasOpt(opts, "--hidden", "-.")
	us := 0
	for _, a := range args {
		if a.Known && strings.HasPrefix(a.Value, "-") && !strings.HasPrefix(a.Value, "--") && strings.Trim(a.Value[1:], "u") == "" {
			us += len(a.Value) - 1
		}
	}
	hidden = hidden || us >= 2
	for _, o := range dropStdin(ops) {
		r.uses = append(r.uses, pathUse{w: o, acc: acc, noHidden: !hidden})
	}
	return r
}

var fdSpec = optSpec{value: "edEtSjcxX", long: []string{"extension", "max-depth", "min-depth", "exact-depth", "exclude", "type", "size",
	"changed-within", "changed-before", "owner", "threads", "color", "exec", "exec-batch", "base-directory", "search-path", "ignore-file",
	"max-results", "path-separator", "format", "batch-size"}}

func fdPaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, fdSpec)
	var r pathsResult
	if hasOpt(opts, "-x", "--exec", "-X", "--exec-batch") {
		r.issue("fd --exec runs a command on every match")
	}
	if len(ops) > 0 {
		ops = ops[1:] // the pattern
	}
	r.add(accRead, ops...)
	return r
}

func findPaths(args []Word) pathsResult {
	roots, expr := findRoots(args)
	var r pathsResult
	r.add(accRead, roots...)
	for i := 0; i < len(expr); i++ {
		a := expr[i]
		if !a.Known {
			continue
		}
		next := func() (Word, bool) {
			if i+1 < len(expr) {
				i++
				return expr[i], true
			}
			return Word{}, false
		}
		switch a.Value {
		case "-delete":
			r.add(accRemoveUnder, roots...)
		case "-fprint", "-fprint0", "-fls":
			if w, ok := next(); ok {
				r.add(accWrite, w)
			}
		case "-fprintf":
			if w, ok := next(); ok {
				r.add(accWrite, w)
			}
			i++
		case "-files0-from":
			r.issue("find -files0-from reads start points from a file")
		case "-newer", "-anewer", "-cnewer", "-samefile":
			if w, ok := next(); ok {
				r.add(accRead, w)
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			for i+1 < len(expr) && !(expr[i+1].Known && (expr[i+1].Value == ";" || expr[i+1].Value == "+")) {
				i++
			}
			i++
		}
	}
	return r
}
