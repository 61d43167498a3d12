package bashrules

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/reinsdev/reins/permission"
)

// destroyerFunc lists what a command would delete or overwrite, its paths resolved in pc.
// Words the analysis does not know are left out: other checks already ask for them.
type destroyerFunc func(pc *permission.Context, args []Word) []damageTarget

// damageKinds are the damage budget's code for each kind a destroys role names
// (knowledge.DestroyKinds), given the program's name; which programs destroy is said in their
// entries alone.
var damageKinds = map[string]func(name string) destroyerFunc{
	"remove": always(rmDamage),
	// The operands are destroyed; the entry says which options take a value.
	"files":  func(name string) destroyerFunc { return fileDamage(kbSpec(name)) },
	"shrink": always(truncateDamage),
	"output": always(teeDamage),
	"blocks": always(ddDamage),
	"move":   always(copyDamage(false)),
	"copy":   always(copyDamage(true)),
	"walk":   always(findDamage),
	"mirror": always(rsyncDamage),
	"repo":   always(gitDamage),
}

func always(f destroyerFunc) func(string) destroyerFunc {
	return func(string) destroyerFunc { return f }
}

// destroyer is the damage code of a program whose entry says it destroys, else nil.
func destroyer(name string) destroyerFunc { return roles().destroyers[name] }

// damagePath resolves a known word as the command will see it; globs are expanded by the
// callers that take them.
func damagePath(pc *permission.Context, w Word) (string, bool) {
	if !w.Known || w.Placeholder || w.Tilde == TildeOther || w.Value == "" {
		return "", false
	}
	p, _ := usePath(pathUse{w: w})
	abs, err := pc.ResolvePath(p)
	return abs, err == nil
}

// damagePaths resolves words, expanding globs within the glob budget. What it cannot resolve
// is in bad: a word the analysis does not know, or a glob too large to expand, as an
// opUnknown target; a placeholder as a feed target, whose op the caller sets.
func damagePaths(pc *permission.Context, ws []Word) (paths []string, bad []damageTarget) {
	for _, w := range ws {
		switch {
		case w.Placeholder:
			bad = append(bad, damageTarget{op: opUnknown, feed: true, src: w.Value,
				why: w.Src + " is a file name known only when the command runs"})
			continue
		case !w.Known || w.Tilde == TildeOther:
			t := unknownWord(w)
			t.one = w.OneField
			bad = append(bad, t)
			continue
		case w.Value == "":
			continue
		}
		abs, ok := damagePath(pc, w)
		if !ok {
			bad = append(bad, unknownTarget(w.Src+" cannot be resolved"))
			continue
		}
		if !w.Glob {
			paths = append(paths, abs)
			continue
		}
		matches, err := boundedGlob(abs, globBudget)
		if err != nil {
			bad = append(bad, unknownTarget(fmt.Sprintf("the glob %s cannot be expanded: %v", w.Src, err)))
			continue
		}
		paths = append(paths, matches...)
	}
	return paths, bad
}

// unknownWord is a target for a word whose value is known only when the command runs.
func unknownWord(w Word) damageTarget {
	why := w.Src + " is known only when the command runs"
	if w.Why != "" {
		why += " (" + w.Why + ")"
	}
	return unknownTarget(why)
}

func unknownTarget(why string) damageTarget { return damageTarget{op: opUnknown, why: why} }

// operandTargets are the targets of words a command destroys as op: placeholders among them
// stand for the files fed to it at run time, destroyed the same way.
func operandTargets(pc *permission.Context, op damageOp, ws []Word) []damageTarget {
	paths, bad := damagePaths(pc, ws)
	out := targets(op, paths)
	for _, b := range bad {
		switch {
		case b.feed:
			b.op = op
		case b.one && op == opFile:
			b.op = opOneFile
		}
		out = append(out, b)
	}
	return out
}

// knownPaths are the paths words name, for words that are not themselves destroyed (a
// source, a start folder, a pathspec): whatever cannot be resolved is unknown, placeholders
// too.
func knownPaths(pc *permission.Context, ws []Word) ([]string, []damageTarget) {
	paths, bad := damagePaths(pc, ws)
	for i := range bad {
		bad[i].op, bad[i].feed = opUnknown, false
	}
	return paths, bad
}

func targets(op damageOp, paths []string) []damageTarget {
	out := make([]damageTarget, 0, len(paths))
	for _, p := range paths {
		out = append(out, damageTarget{op: op, abs: p})
	}
	return out
}

func rmDamage(pc *permission.Context, args []Word) []damageTarget {
	opts, ops := parseArgs(args, optSpec{long: []string{"interactive"}})
	op := opFile
	if hasOpt(opts, "-r", "-R", "--recursive") {
		op = opTree
	}
	return operandTargets(pc, op, ops)
}

func fileDamage(spec optSpec) destroyerFunc {
	return func(pc *permission.Context, args []Word) []damageTarget {
		_, ops := parseArgs(args, spec)
		return operandTargets(pc, opFile, ops)
	}
}

// truncateDamage: a size that only grows (+N, >N) destroys nothing.
func truncateDamage(pc *permission.Context, args []Word) []damageTarget {
	opts, ops := parseArgs(args, optSpec{value: "sro", long: []string{"size", "reference"}})
	for _, s := range optVals(opts, "-s", "--size") {
		if s.Known && (strings.HasPrefix(s.Value, "+") || strings.HasPrefix(s.Value, ">")) {
			return nil
		}
	}
	return operandTargets(pc, opFile, ops)
}

func teeDamage(pc *permission.Context, args []Word) []damageTarget {
	opts, ops := parseArgs(args, optSpec{long: []string{"output-error"}})
	if hasOpt(opts, "-a", "--append") {
		return nil
	}
	return operandTargets(pc, opFile, dropStdin(ops))
}

func ddDamage(pc *permission.Context, args []Word) []damageTarget {
	var of []Word
	for _, a := range args {
		if !a.Known {
			if strings.HasPrefix(a.Src, "of=") {
				of = append(of, a)
			}
			continue
		}
		if strings.HasPrefix(a.Value, "conv=") && strings.Contains(a.Value, "notrunc") {
			return nil
		}
		if v, ok := strings.CutPrefix(a.Value, "of="); ok {
			of = append(of, subWord(a, v))
		}
	}
	return operandTargets(pc, opFile, of)
}

// copyDamage: cp and mv overwrite an existing destination file (dest/name when dest is a
// folder); cp -r overwrites the files below the destination folder that the source has.
// --no-clobber, --update=none and a backup destroy nothing.
func copyDamage(cp bool) destroyerFunc {
	return func(pc *permission.Context, args []Word) []damageTarget {
		opts, ops := parseArgs(args, optSpec{value: "tS", long: []string{"target-directory", "suffix", "backup", "update", "reflink", "sparse", "preserve", "no-preserve", "context"}})
		if hasOpt(opts, "-n", "--no-clobber", "-b", "--backup") {
			return nil
		}
		for _, u := range optVals(opts, "--update") {
			if u.Known && (u.Value == "none" || u.Value == "none-fail") {
				return nil
			}
		}
		var dest Word
		if t := optVals(opts, "-t", "--target-directory"); len(t) > 0 {
			dest = t[len(t)-1]
		} else if len(ops) >= 2 {
			dest, ops = ops[len(ops)-1], ops[:len(ops)-1]
		} else {
			return nil
		}
		dsts, bad := knownPaths(pc, []Word{dest})
		if len(bad) > 0 || len(dsts) != 1 {
			if len(bad) > 0 {
				return bad
			}
			return nil // a glob destination: the glob check asks
		}
		dst := dsts[0]
		tree := cp && hasOpt(opts, "-r", "-R", "-a", "--recursive", "--archive")
		noTarget := hasOpt(opts, "-T", "--no-target-directory")
		srcs, bad := knownPaths(pc, ops)
		if !isDir(dst) || noTarget {
			bad = nil // the destination is overwritten whatever the sources are
		}
		out := bad
		for _, src := range srcs {
			to := dst
			if isDir(dst) && !noTarget {
				to = filepath.Join(dst, filepath.Base(src))
			}
			switch {
			case tree && isDir(src):
				out = append(out, damageTarget{op: opOverTree, src: src, abs: to})
			case !isDir(src):
				out = append(out, damageTarget{op: opFile, abs: to})
			}
		}
		return out
	}
}

// findDamage: find -delete removes what its expression selects below its start paths.
func findDamage(pc *permission.Context, args []Word) []damageTarget {
	sel := findSelection(args)
	if !sel.deletes {
		return nil
	}
	return sel.targets(pc, opFile)
}

// findSel is what a find selects: the files below its start paths that its expression
// matches. An expression of -name or -iname tests (with -type f, depth options and the
// actions -print, -print0, -exec …, which select nothing more) is followed; any other is not,
// and everything below the start paths is selected.
type findSel struct {
	roots   []Word
	names   []string // nil: every file
	fold    bool     // -iname
	deletes bool     // -delete
}

func findSelection(args []Word) findSel {
	roots, expr := findRoots(args)
	sel := findSel{roots: roots}
	simple := true
	var names []string
	for i := 0; i < len(expr); i++ {
		a := expr[i]
		if !a.Known {
			simple = false
			continue
		}
		switch a.Value {
		case "-delete":
			sel.deletes = true
		case "-print", "-print0":
		case "-exec", "-execdir", "-ok", "-okdir":
			// A command run on each file selects no more files (as a test it selects fewer).
			for i++; i < len(expr) && !(expr[i].Known && (expr[i].Value == ";" || expr[i].Value == "+")); i++ {
			}
		case "-name", "-iname":
			if i+1 >= len(expr) || !expr[i+1].Known {
				simple = false
				continue
			}
			sel.fold = sel.fold || a.Value == "-iname"
			names = append(names, expr[i+1].Value)
			i++
		case "-type":
			if i+1 >= len(expr) || expr[i+1].Value != "f" {
				simple = false
			}
			i++
		case "-maxdepth", "-mindepth":
			i++
		default:
			simple = false
		}
	}
	if len(sel.roots) == 0 {
		sel.roots = []Word{dotWord}
	}
	if simple && len(names) == 1 {
		sel.names = names
	}
	return sel
}

// targets are what destroying each selected file as op destroys: rm -r (opTree) removes a
// selected folder whole.
func (sel findSel) targets(pc *permission.Context, op damageOp) []damageTarget {
	roots, out := knownPaths(pc, sel.roots)
	for _, p := range roots {
		out = append(out, damageTarget{op: opTree, abs: p, names: sel.names, fold: sel.fold, whole: op == opTree})
	}
	return out
}

// rsyncDamage: --delete removes the files of the destination the source lacks;
// --remove-source-files removes the sources' files.
func rsyncDamage(pc *permission.Context, args []Word) []damageTarget {
	opts, ops := parseArgs(args, optSpec{value: "eBfT", long: []string{"rsh", "rsync-path", "exclude", "include", "exclude-from", "include-from", "filter", "files-from", "temp-dir", "compare-dest", "copy-dest", "link-dest", "backup-dir", "suffix", "chmod", "chown", "timeout", "contimeout", "port", "password-file", "log-file", "log-file-format", "out-format", "partial-dir", "max-size", "min-size", "max-delete", "bwlimit", "block-size", "checksum-choice", "compress-choice", "compress-level", "skip-compress", "info", "debug", "modify-window", "usermap", "groupmap", "iconv", "sockopts", "outbuf", "stop-after", "stop-at", "write-batch", "only-write-batch", "read-batch", "protocol", "address"}})
	if len(ops) < 2 {
		return nil
	}
	dest, srcs := ops[len(ops)-1], ops[:len(ops)-1]
	var out []damageTarget
	if hasOpt(opts, "--remove-source-files") {
		for _, s := range srcs {
			if !remoteWord(s) {
				paths, bad := knownPaths(pc, []Word{s})
				out = append(append(out, bad...), targets(opTree, paths)...)
			}
		}
	}
	deletes := false
	for _, o := range opts {
		if o.name == "--del" || strings.HasPrefix(o.name, "--delete") {
			deletes = true
		}
	}
	if !deletes || remoteWord(dest) {
		return out
	}
	dsts, bad := knownPaths(pc, []Word{dest})
	if len(bad) > 0 || len(dsts) != 1 {
		return append(out, bad...)
	}
	dst := dsts[0]
	for _, s := range srcs {
		if remoteWord(s) {
			out = append(out, damageTarget{op: opMissing, abs: dst})
			continue
		}
		paths, bad := knownPaths(pc, []Word{s})
		out = append(out, bad...)
		for _, src := range paths {
			to := dst
			if !strings.HasSuffix(s.Value, "/") {
				to = filepath.Join(dst, filepath.Base(src))
			}
			out = append(out, damageTarget{op: opMissing, src: src, abs: to})
		}
	}
	return out
}

// remoteWord reports an rsync or scp operand on another host (host:path).
func remoteWord(w Word) bool {
	i := strings.IndexByte(w.Value, ':')
	return i > 0 && !strings.Contains(w.Value[:i], "/")
}
