package bashrules

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// access is what a command does with a path argument.
type access uint8

const (
	accRead         access = iota // reads the file (or lists the directory)
	accReadTree                   // reads everything below the path (grep -r, rg, cp -r source)
	accWrite                      // creates or changes the file
	accRemove                     // removes the path (rm, rmdir, the source of mv)
	accRemoveUnder                // removes files below the path (find -delete, find -exec rm {})
	accProbe                      // an argument of a command the analysis does not know that names an existing file
	accReadIfExists               // an argument that is a path if such a file exists (git's revisions and paths)
	accRemoveIfExists
)

var accessNames = [...]string{"read", "read below", "write", "remove", "remove below", "argument", "read", "remove"}

func (a access) String() string { return accessNames[a] }

// pathUse is one path a command touches.
type pathUse struct {
	w   Word
	acc access
	// dir, when known, is the directory a relative path is relative to (git -C, tar -C).
	dir *Word
	// base is the source's file name for a destination that may be a directory (cp a dir/
	// writes dir/a).
	base string
	// noHidden marks a recursive read that skips hidden files (rg without --hidden).
	noHidden bool
	// linkIn, for a symbolic link's target, is the word naming where the link is made: a
	// relative target is read from the link's directory (linkIn itself when it is a
	// directory and linkFile is not set, else its parent), not from where ln runs.
	linkIn   *Word
	linkFile bool
}

// pathsResult is what a command does to the file system, as far as its arguments show.
type pathsResult struct {
	uses []pathUse
	// issues are effects on files the arguments do not name (curl -O writes a file named by
	// the server); they make the command impossible to allow without asking.
	issues []string
}

func (r *pathsResult) add(acc access, ws ...Word) {
	for _, w := range ws {
		r.uses = append(r.uses, pathUse{w: w, acc: acc})
	}
}

func (r *pathsResult) issue(s string) { r.issues = append(r.issues, s) }

type pathFunc func(args []Word) pathsResult

// readers returns a pathFunc for a command whose operands are files it reads. The listed
// options make it read whole trees.
func readers(spec optSpec, tree ...string) pathFunc {
	return func(args []Word) pathsResult {
		opts, ops := parseArgs(args, spec)
		acc := accRead
		if hasOpt(opts, tree...) {
			acc = accReadTree
		}
		var r pathsResult
		r.add(acc, dropStdin(ops)...)
		return r
	}
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

// noPaths is for commands whose arguments are not files.
func noPaths([]Word) pathsResult { return pathsResult{} }

func dropStdin(ws []Word) []Word {
	if !slices.ContainsFunc(ws, isStdin) {
		return ws // callers only read it
	}
	out := ws[:0:0]
	for _, w := range ws {
		if w.Known && w.Value == "-" {
			continue
		}
		out = append(out, w)
	}
	return out
}

func isStdin(w Word) bool { return w.Known && w.Value == "-" }

// pathSpecs says, for the commands the analysis knows, which arguments are paths and what the
// command does with them. Commands not listed have their arguments probed: an argument naming
// an existing file is checked against Read deny and ask rules only.
var pathSpecs = sync.OnceValue(func() map[string]pathFunc {
	return map[string]pathFunc{
		// Commands whose arguments are not files.
		"echo": noPaths, "printf": noPaths, "true": noPaths, "false": noPaths, "sleep": noPaths, "seq": noPaths,
		"expr": noPaths, "test": noPaths, "[": noPaths, "which": noPaths, "type": noPaths, "command": noPaths,
		"basename": noPaths, "dirname": noPaths, "tr": noPaths, "pwd": noPaths, "whoami": noPaths, "id": noPaths,
		"groups": noPaths, "uname": noPaths, "arch": noPaths, "nproc": noPaths, "free": noPaths, "uptime": noPaths,
		"locale": noPaths, "getconf": noPaths, "numfmt": noPaths, "cal": noPaths, "ps": noPaths, "pgrep": noPaths,
		"tput": noPaths, "ss": noPaths, "netstat": noPaths, "hostname": noPaths, "history": noPaths, "alias": noPaths,
		"help": noPaths, "man": noPaths, "info": noPaths, "ip": noPaths, "ifconfig": noPaths, "date": datePaths,
		"cd": noPaths, "pushd": noPaths, "popd": noPaths, "export": noPaths, "declare": noPaths, "local": noPaths,
		"readonly": noPaths, "typeset": noPaths, "unset": noPaths, "set": noPaths, "shift": noPaths, "exit": noPaths,
		"return": noPaths, "break": noPaths, "continue": noPaths, ":": noPaths, "wait": noPaths, "jobs": noPaths,
		"kill": noPaths, "lsof": noPaths, "gh": noPaths, "docker": noPaths, "node": noPaths,

		// Readers.
		"cat":      readers(optSpec{}),
		"tac":      readers(kbSpec("tac")),
		"nl":       readers(kbSpec("nl")),
		"head":     readers(kbSpec("head")),
		"tail":     readers(kbSpec("tail")),
		"wc":       wcPaths,
		"strings":  responseFileReaders(kbSpec("strings")),
		"hexdump":  hexdumpPaths,
		"od":       readers(kbSpec("od")),
		"cut":      readers(kbSpec("cut")),
		"paste":    readers(kbSpec("paste")),
		"column":   readers(optSpec{value: "cstoNlRHWEdJn"}),
		"rev":      readers(kbSpec("rev")),
		"fold":     readers(kbSpec("fold")),
		"expand":   readers(kbSpec("expand")),
		"unexpand": readers(kbSpec("unexpand")),
		"fmt":      readers(kbSpec("fmt")),
		"comm":     readers(kbSpec("comm")),
		"cmp":      readers(kbSpec("cmp")),
		"diff":     diffPaths,
		"tsort":    readers(optSpec{}),
		"pr":       readers(optSpec{value: "hwloNsSeiW", long: []string{"header", "width", "length", "first-line-number", "sep-string", "separator", "page-width"}}),
		"base64":   baseNPaths,
		"base32":   baseNPaths,
		"md5sum":   sumPaths, "sha1sum": sumPaths, "sha224sum": sumPaths, "sha256sum": sumPaths, "sha384sum": sumPaths,
		"sha512sum": sumPaths, "b2sum": sumPaths, "cksum": sumPaths, "sum": sumPaths, "shasum": sumPaths,
		"file":     filePaths,
		"stat":     readers(kbSpec("stat")),
		"readlink": readers(kbSpec("readlink")),
		"realpath": realpathPaths,
		"du":       duPaths,
		"df":       readers(kbSpec("df")),
		"ls":       readers(kbSpec("ls")),
		"tree":     treePaths,
		"less":     readers(optSpec{value: "bhjkoOpPtTxyz#", long: []string{"log-file", "LOG-FILE", "tag-file"}}),
		"more":     readers(optSpec{value: "n"}),
		"bat":      readers(optSpec{value: "lmHr", long: []string{"language", "map-syntax", "highlight-line", "line-range", "style", "theme", "tabs", "wrap", "color", "paging", "pager"}}),
		"uniq":     uniqPaths,
		"sort":     sortPaths,
		"sed":      sedPaths,
		"grep":     grepPaths(false), "egrep": grepPaths(false), "fgrep": grepPaths(false), "rgrep": grepPaths(true),
		"rg": rgPaths,
		"fd": fdPaths, "fdfind": fdPaths,
		"find":   findPaths,
		"jq":     jqPaths,
		"git":    gitPaths,
		"source": sourcePaths, ".": sourcePaths,
		"awk": awkPaths, "gawk": awkPaths, "mawk": awkPaths, "nawk": awkPaths,
		"xxd": xxdPaths,

		// Writers.
		"rm":     removers(kbSpec("rm")),
		"rmdir":  removers(kbSpec("rmdir")),
		"unlink": removers(optSpec{}),
		"shred":  shredPaths,
		"mkdir":  writers(kbSpec("mkdir")),
		"touch":  touchPaths,
		"mv":     mvPaths,
		"cp":     cpPaths(false), "install": cpPaths(true),
		"ln": lnPaths, "link": linkPaths, "pax": paxPaths,
		"chmod": modePaths, "chown": modePaths, "chgrp": modePaths,
		"tee":      writers(kbSpec("tee")),
		"truncate": truncatePaths,
		"dd":       ddPaths,
		"curl":     curlPaths,
		"wget":     wgetPaths,
		"tar":      tarPaths,
		"zip":      zipPaths,
		"unzip":    unzipPaths,
		"xargs":    xargsPaths,
		"scp":      copyRemotePaths, "rsync": copyRemotePaths, "sftp": sshPaths, "ssh": sshPaths,
	}
})

// responseFileReaders are readers for the GNU binutils (strings), which take @FILE as a
// response file: more arguments, read from FILE, naming files the analysis does not see.
func responseFileReaders(spec optSpec) pathFunc {
	read := readers(spec)
	return func(args []Word) pathsResult {
		r := read(args)
		for _, a := range args {
			if a.Known && len(a.Value) > 1 && a.Value[0] == '@' {
				r.add(accRead, subWord(a, a.Value[1:]))
				r.issue(fmt.Sprintf("%s is a response file: the arguments read from it name files the analysis does not see", a.Src))
			}
		}
		return r
	}
}

func writers(spec optSpec) pathFunc {
	return func(args []Word) pathsResult {
		_, ops := parseArgs(args, spec)
		var r pathsResult
		r.add(accWrite, dropStdin(ops)...)
		return r
	}
}

func removers(spec optSpec) pathFunc {
	return func(args []Word) pathsResult {
		_, ops := parseArgs(args, spec)
		var r pathsResult
		r.add(accRemove, ops...)
		return r
	}
}

func datePaths(args []Word) pathsResult {
	opts, _ := parseArgs(args, kbSpec("date"))
	var r pathsResult
	r.add(accRead, optVals(opts, "-f", "--file", "-r", "--reference")...)
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

func hexdumpPaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, kbSpec("hexdump"))
	var r pathsResult
	r.add(accRead, optVals(opts, "-f", "--format-file")...)
	r.add(accRead, ops...)
	return r
}

func diffPaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, kbSpec("diff"))
	var r pathsResult
	acc := accRead
	if hasOpt(opts, "-r", "--recursive") {
		acc = accReadTree
	}
	r.add(accRead, optVals(opts, "-X", "--exclude-from")...)
	r.add(acc, optVals(opts, "--from-file", "--to-file")...)
	r.add(acc, dropStdin(ops)...)
	return r
}

func sumPaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, optSpec{value: "al", long: []string{"algorithm", "length"}})
	var r pathsResult
	if hasOpt(opts, "-c", "--check") {
		r.issue("checking sums reads the files named in the sum file")
	}
	r.add(accRead, dropStdin(ops)...)
	return r
}

func filePaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, optSpec{value: "efmFP", long: []string{"exclude", "exclude-quiet", "files-from", "magic-file", "separator", "parameter"}})
	var r pathsResult
	if hasOpt(opts, "-f", "--files-from") {
		r.issue("file -f reads files named in another file")
	}
	if hasOpt(opts, "-C", "--compile") {
		r.issue("file -C writes a compiled magic file")
	}
	r.add(accRead, optVals(opts, "-m", "--magic-file")...)
	r.add(accRead, dropStdin(ops)...)
	return r
}

func realpathPaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, kbSpec("realpath"))
	var r pathsResult
	r.add(accRead, optVals(opts, "--relative-to", "--relative-base")...)
	r.add(accRead, ops...)
	return r
}

func duPaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, kbSpec("du"))
	var r pathsResult
	if hasOpt(opts, "--files0-from") {
		r.issue("du --files0-from reads files named in another file")
	}
	r.add(accRead, optVals(opts, "-X", "--exclude-from")...)
	r.add(accRead, ops...)
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
	r.add(accRead, optVals(opts, "--random-source")...)
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
	r.add(accRead, fromFile...)
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
		r.add(accRead, optVals(opts, "-f", "--file", "--exclude-from")...)
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

var dotWord = Word{Src: ".", Value: ".", Known: true}

var rgSpec = optSpec{value: "efgtTmABCMjEdr", long: []string{"regexp", "file", "glob", "iglob", "type", "type-not", "max-count",
	"after-context", "before-context", "context", "max-columns", "threads", "encoding", "max-depth", "max-filesize", "sort", "sortr",
	"color", "colors", "type-add", "type-clear", "context-separator", "field-match-separator", "path-separator", "replace", "pre",
	"pre-glob", "ignore-file", "dfa-size-limit", "regex-size-limit", "engine", "hostname-bin", "hyperlink-format", "generate", "max-columns-preview"}}

func rgPaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, rgSpec)
	var r pathsResult
	r.add(accRead, optVals(opts, "-f", "--file", "--ignore-file")...)
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
	r.add(accRead, optVals(opts, "--base-directory", "--search-path", "--ignore-file")...)
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

func awkPaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, optSpec{value: "fvFiE", long: []string{"file", "assign", "field-separator", "include", "exec", "load"}})
	var r pathsResult
	progs := optVals(opts, "-f", "--file", "-i", "--include", "-E", "--exec")
	r.add(accRead, progs...)
	if len(progs) == 0 && len(ops) > 0 {
		ops = ops[1:]
	}
	for _, o := range ops {
		if o.Known && envAssignRE().MatchString(o.Value) {
			continue // var=value sets a variable
		}
		if o.Known && o.Value == "-" {
			continue
		}
		r.add(accRead, o)
	}
	return r
}

func xxdPaths(args []Word) pathsResult {
	_, ops := parseArgs(args, optSpec{value: "cglosn", long: []string{"cols", "groupsize", "len", "seek", "name"}})
	var r pathsResult
	if len(ops) > 0 {
		r.add(accRead, dropStdin(ops[:1])...)
	}
	if len(ops) > 1 {
		r.add(accWrite, dropStdin(ops[1:2])...)
	}
	return r
}

func shredPaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, kbSpec("shred"))
	var r pathsResult
	acc := accWrite
	if hasOpt(opts, "-u", "--remove") {
		acc = accRemove
	}
	r.add(acc, ops...)
	return r
}

func touchPaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, kbSpec("touch"))
	var r pathsResult
	r.add(accRead, optVals(opts, "-r", "--reference")...)
	r.add(accWrite, ops...)
	return r
}
