package bashrules

import "strings"

// The path and read-only code of the programs whose entries are in
// knowledge/programs/readonly.kb: what their entries cannot state as data (a paths role, the
// read-only judgement of their arguments).

func init() {
	registerReadOnly("date", dateRO)
	registerPaths("wc", wcPaths)
	registerPaths("hexdump", allOperands("hexdump", accRead))
	registerPaths("diff", diffPaths)
	registerPaths("realpath", allOperands("realpath", accRead))
	registerPaths("du", duPaths)
	registerPaths("uniq", uniqPaths)
	registerPaths("sort", sortPaths)
	registerPaths("sed", sedPaths)
	registerPaths("grep", grepPaths(false))
	registerPaths("base64", baseNPaths)
	registerPaths("base32", baseNPaths)
}

// baseNPaths reads base64's operands and the file of BSD base64's --input (-i is GNU's
// --ignore-garbage, so only the long form is taken as a path).
func baseNPaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, optSpec{value: "w", long: []string{"wrap", "input", "output"}})
	var r pathsResult
	r.add(accRead, optVals(opts, "--input")...)
	r.add(accWrite, optVals(opts, "--output")...)
	r.add(accRead, dropStdin(ops)...)
	return r
}

func wcPaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, kbSpec("wc"))
	var r pathsResult
	if hasOpt(opts, "--files0-from") {
		r.issue("wc --files0-from reads files named in another file")
	}
	r.add(accRead, dropStdin(ops)...)
	return r
}

func diffPaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, kbSpec("diff"))
	var r pathsResult
	acc := accRead
	if hasOpt(opts, "-r", "--recursive") {
		acc = accReadTree
	}
	r.add(acc, optVals(opts, "--from-file", "--to-file")...)
	r.add(acc, dropStdin(ops)...)
	return r
}

func duPaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, kbSpec("du"))
	var r pathsResult
	if hasOpt(opts, "--files0-from") {
		r.issue("du --files0-from reads files named in another file")
	}
	r.add(accRead, ops...)
	return r
}

func uniqPaths(args []Word) pathsResult {
	_, ops := parseArgs(args, kbSpec("uniq"))
	var r pathsResult
	if len(ops) > 0 {
		r.add(accRead, dropStdin(ops[:1])...)
	}
	if len(ops) > 1 {
		r.add(accWrite, dropStdin(ops[1:2])...)
	}
	return r
}

func sortPaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, kbSpec("sort"))
	var r pathsResult
	r.add(accWrite, optVals(opts, "-o", "--output")...)
	if hasOpt(opts, "--compress-program") {
		r.issue("sort --compress-program runs another program")
	}
	if hasOpt(opts, "--files0-from") {
		r.issue("sort --files0-from reads files named in another file")
	}
	r.add(accRead, dropStdin(ops)...)
	return r
}

// sedInPlace reports whether sed edits files in place (-i, -i.bak, --in-place[=suf]).
func sedInPlace(args []Word) bool {
	for _, a := range args {
		if !a.Known {
			continue
		}
		v := a.Value
		if v == "--" {
			return false
		}
		if strings.HasPrefix(v, "--in-place") || longPrefix(v, "--in-place") || (strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.ContainsRune(v, 'i') && !strings.ContainsAny(v[1:strings.IndexByte(v, 'i')], "efl")) {
			return true
		}
	}
	return false
}

// sedScripts returns sed's scripts and file operands.
func sedScripts(args []Word) (scripts, files []Word, fromFile []Word) {
	// -i takes an optional attached suffix, so it is removed before parsing.
	clean := make([]Word, 0, len(args))
	for _, a := range args {
		if a.Known && strings.HasPrefix(a.Value, "-i") && !strings.HasPrefix(a.Value, "--") {
			continue
		}
		if a.Known && (strings.HasPrefix(a.Value, "--in-place") || longPrefix(a.Value, "--in-place")) {
			continue
		}
		clean = append(clean, a)
	}
	opts, ops := parseArgs(clean, kbSpec("sed"))
	scripts = optVals(opts, "-e", "--expression")
	fromFile = optVals(opts, "-f", "--file")
	if len(scripts) == 0 && len(fromFile) == 0 && len(ops) > 0 {
		scripts, ops = ops[:1], ops[1:]
	}
	return scripts, ops, fromFile
}

func sedPaths(args []Word) pathsResult {
	scripts, files, fromFile := sedScripts(args)
	var r pathsResult
	if len(fromFile) > 0 {
		r.issue("sed -f runs a script from a file")
	}
	for _, s := range scripts {
		if !s.Known {
			r.issue("sed script is not literal text")
			continue
		}
		info := analyzeSed(s.Value)
		if info.unparsed {
			r.issue("sed script could not be fully understood")
		}
		if info.exec {
			r.issue("sed script runs commands (e)")
		}
		for _, f := range info.reads {
			r.add(accRead, Word{Src: f, Value: f, Known: true})
		}
		for _, f := range info.writes {
			r.add(accWrite, Word{Src: f, Value: f, Known: true})
		}
	}
	acc := accRead
	if sedInPlace(args) {
		acc = accWrite
	}
	r.add(acc, dropStdin(files)...)
	return r
}

func grepPaths(recursive bool) pathFunc {
	return func(args []Word) pathsResult {
		opts, ops := parseArgs(args, kbSpec("grep"))
		var r pathsResult
		if !hasOpt(opts, "-e", "--regexp", "-f", "--file") && len(ops) > 0 {
			ops = ops[1:]
		}
		rec := recursive || hasOpt(opts, "-r", "-R", "--recursive", "--dereference-recursive")
		for _, v := range optVals(opts, "-d", "--directories") {
			if !v.Known || v.Value == "recurse" {
				rec = true
			}
		}
		acc := accRead
		if rec {
			acc = accReadTree
			if len(ops) == 0 {
				ops = []Word{dotWord}
			}
		}
		r.add(acc, dropStdin(ops)...)
		return r
	}
}

func dateRO(args []Word) string {
	for _, a := range args {
		v := a.Value
		switch {
		case v == "-s" || strings.HasPrefix(v, "--set") || longPrefix(v, "--set"):
			return "date --set changes the clock"
		case strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && !strings.HasPrefix(v, "-I") && strings.ContainsRune(v, 's') && clusterOnly(v):
			return "date -s changes the clock"
		}
	}
	_, ops := parseArgs(args, kbSpec("date"))
	for _, o := range ops {
		if !strings.HasPrefix(o.Value, "+") {
			return "date with an operand sets the clock"
		}
	}
	return ""
}
