package bashrules

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/reinsdev/reins/permission"
)

// destroyerFunc lists what a command would delete or overwrite, its paths resolved in pc.
// Words the analysis does not know are left out: other checks already ask for them.
type destroyerFunc func(pc *permission.Context, args []Word) []damageTarget

// destroyers are the commands the damage count knows.
var destroyers = map[string]destroyerFunc{
	"rm":       rmDamage,
	"unlink":   fileDamage(optSpec{}),
	"shred":    fileDamage(optSpec{value: "ns", long: []string{"iterations", "size", "random-source", "remove"}}),
	"truncate": truncateDamage,
	"tee":      teeDamage,
	"dd":       ddDamage,
	"mv":       copyDamage(false),
	"cp":       copyDamage(true),
	"find":     findDamage,
	"rsync":    rsyncDamage,
	"git":      gitDamage,
}

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

// damagePaths resolves words, expanding globs within the glob budget; a pattern whose
// expansion is too large is left out (the glob check asks for it).
func damagePaths(pc *permission.Context, ws []Word) []string {
	var out []string
	for _, w := range ws {
		abs, ok := damagePath(pc, w)
		if !ok {
			continue
		}
		if !w.Glob {
			out = append(out, abs)
			continue
		}
		matches, err := boundedGlob(abs, globBudget)
		if err == nil {
			out = append(out, matches...)
		}
	}
	return out
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
	return targets(op, damagePaths(pc, ops))
}

func fileDamage(spec optSpec) destroyerFunc {
	return func(pc *permission.Context, args []Word) []damageTarget {
		_, ops := parseArgs(args, spec)
		return targets(opFile, damagePaths(pc, ops))
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
	return targets(opFile, damagePaths(pc, ops))
}

func teeDamage(pc *permission.Context, args []Word) []damageTarget {
	opts, ops := parseArgs(args, optSpec{long: []string{"output-error"}})
	if hasOpt(opts, "-a", "--append") {
		return nil
	}
	return targets(opFile, damagePaths(pc, dropStdin(ops)))
}

func ddDamage(pc *permission.Context, args []Word) []damageTarget {
	var of []Word
	for _, a := range args {
		if !a.Known {
			continue
		}
		if strings.HasPrefix(a.Value, "conv=") && strings.Contains(a.Value, "notrunc") {
			return nil
		}
		if v, ok := strings.CutPrefix(a.Value, "of="); ok {
			of = append(of, subWord(a, v))
		}
	}
	return targets(opFile, damagePaths(pc, of))
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
		dst, ok := damagePath(pc, dest)
		if !ok {
			return nil
		}
		tree := cp && hasOpt(opts, "-r", "-R", "-a", "--recursive", "--archive")
		noTarget := hasOpt(opts, "-T", "--no-target-directory")
		var out []damageTarget
		for _, src := range damagePaths(pc, ops) {
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

// findDamage: find -delete removes what its expression selects below its start paths. An
// expression of -name or -iname tests (with -type f and depth options) is followed; any other
// is not, and everything below the start paths is counted.
func findDamage(pc *permission.Context, args []Word) []damageTarget {
	roots, expr := findRoots(args)
	deletes, simple := false, true
	var names []string
	fold := false
	for i := 0; i < len(expr); i++ {
		a := expr[i]
		if !a.Known {
			simple = false
			continue
		}
		switch a.Value {
		case "-delete":
			deletes = true
		case "-name", "-iname":
			if i+1 >= len(expr) || !expr[i+1].Known {
				simple = false
				continue
			}
			fold = fold || a.Value == "-iname"
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
	if !deletes {
		return nil
	}
	if len(roots) == 0 {
		roots = []Word{dotWord}
	}
	if !simple || len(names) != 1 {
		names = nil
	}
	var out []damageTarget
	for _, p := range damagePaths(pc, roots) {
		out = append(out, damageTarget{op: opTree, abs: p, names: names, fold: fold})
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
				out = append(out, targets(opTree, damagePaths(pc, []Word{s}))...)
			}
		}
	}
	deletes := false
	for _, o := range opts {
		if o.name == "--del" || strings.HasPrefix(o.name, "--delete") {
			deletes = true
		}
	}
	dst, ok := damagePath(pc, dest)
	if !deletes || remoteWord(dest) || !ok {
		return out
	}
	for _, s := range srcs {
		if remoteWord(s) {
			out = append(out, damageTarget{op: opMissing, abs: dst})
			continue
		}
		for _, src := range damagePaths(pc, []Word{s}) {
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

// gitDamage: git clean, and the commands that discard uncommitted changes: checkout with
// paths or --force, restore of the work tree, reset --hard.
func gitDamage(pc *permission.Context, args []Word) []damageTarget {
	global, sub, rest, _ := gitGlobal(args)
	if sub == "" || len(global) > 0 {
		// -C and the like move the command: the path checks already ask for it.
		return nil
	}
	opts, ops := parseArgs(rest, optSpec{value: "esp", long: []string{"exclude", "source", "pathspec-from-file", "conflict"}})
	dashDash := -1
	for i, a := range rest {
		if a.Known && a.Value == "--" {
			dashDash = i
			break
		}
	}
	t := damageTarget{dir: pc.Cwd()}
	pathspecs := func(ws []Word) []string {
		ps := damagePaths(pc, ws)
		if len(ps) == 0 {
			ps = []string{pc.Cwd()}
		}
		return ps
	}
	switch sub {
	case "clean":
		if hasOpt(opts, "-n", "--dry-run") {
			return nil
		}
		t.op = opGitClean
		t.dirs = hasOpt(opts, "-d")
		t.ignored = hasOpt(opts, "-x")
		t.onlyIgnored = hasOpt(opts, "-X")
		t.paths = pathspecs(ops)
	case "checkout":
		t.op = opGitChange
		switch {
		case dashDash >= 0:
			_, before := parseArgs(rest[:dashDash], optSpec{})
			t.staged = len(before) > 0 // a tree-ish: the index is replaced too
			t.paths = pathspecs(rest[dashDash+1:])
		case hasOpt(opts, "-f", "--force"):
			t.staged, t.paths = true, wholeRepo
		default:
			// Operands that name existing files are paths; a branch name discards nothing.
			var files []Word
			for _, w := range ops {
				if abs, ok := damagePath(pc, w); ok && exists(abs) {
					files = append(files, w)
				}
			}
			if len(files) == 0 {
				return nil
			}
			t.paths = damagePaths(pc, files)
		}
	case "restore":
		if hasOpt(opts, "-S", "--staged") && !hasOpt(opts, "-W", "--worktree") {
			return nil
		}
		t.op = opGitChange
		t.staged = hasOpt(opts, "-s", "--source")
		t.paths = pathspecs(ops)
	case "reset":
		if !hasOpt(opts, "--hard") {
			return nil
		}
		t.op, t.staged, t.paths = opGitChange, true, wholeRepo
	default:
		return nil
	}
	return []damageTarget{t}
}

// wholeRepo is the pathspec of a git command that acts on the whole repository, wherever in
// it it runs: "/" holds every repository.
var wholeRepo = []string{"/"}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
