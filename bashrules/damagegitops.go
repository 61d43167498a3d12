package bashrules

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/reinsdev/reins/permission"
)

// The git commands the damage count knows: git clean, and the commands that discard
// uncommitted changes or remove tracked files from the work tree. What they destroy is
// counted from git's own report (Git), never from a guess at its pathspecs.

// gitSpec are git's subcommand options that take a value.
var gitSpec = optSpec{value: "espm", long: []string{"exclude", "source", "pathspec-from-file", "conflict", "message"}}

// gitDamage lists what one git command would destroy.
func gitDamage(pc *permission.Context, args []Word) []damageTarget {
	global, sub, rest, _ := gitGlobal(args)
	if sub == "" {
		return nil
	}
	pc, bad := gitDir(pc, global)
	if bad != nil {
		if gitDestroys(sub) {
			return []damageTarget{*bad}
		}
		return nil
	}
	opts, ops := parseArgs(rest, gitSpec)
	if len(optVals(opts, "--pathspec-from-file")) > 0 {
		return []damageTarget{unknownTarget("git " + sub + " --pathspec-from-file: its paths are read when it runs")}
	}
	t := damageTarget{dir: pc.Cwd()}
	switch sub {
	case "clean":
		if hasOpt(opts, "-n", "--dry-run") {
			return nil
		}
		t.op = opGitClean
		t.dirs = hasOpt(opts, "-d")
		t.ignored = hasOpt(opts, "-x")
		t.onlyIgnored = hasOpt(opts, "-X")
		return t.withPaths(pc, ops)
	case "checkout":
		return checkoutDamage(pc, t, rest, opts, ops)
	case "switch":
		if !hasOpt(opts, "-f", "--force", "--discard-changes") {
			return nil
		}
		t.op, t.staged, t.paths = opGitChange, true, wholeRepo
	case "restore":
		if hasOpt(opts, "-S", "--staged") && !hasOpt(opts, "-W", "--worktree") {
			return nil
		}
		t.op = opGitChange
		t.staged = hasOpt(opts, "-s", "--source")
		return t.withPaths(pc, ops)
	case "reset":
		if !hasOpt(opts, "--hard") {
			return nil
		}
		t.op, t.staged, t.paths = opGitChange, true, wholeRepo
	case "read-tree":
		if !hasOpt(opts, "-u") {
			return nil // the index only
		}
		t.op, t.staged, t.paths = opGitChange, true, wholeRepo
	case "rm":
		if hasOpt(opts, "--cached", "-n", "--dry-run") {
			return nil
		}
		t.op, t.dirs = opGitRm, hasOpt(opts, "-r")
		return t.withPaths(pc, ops)
	case "stash":
		return stashDamage(pc, t, rest)
	default:
		return nil
	}
	return []damageTarget{t}
}

// gitDir is the context a git command's paths resolve in: its -C folders followed. A global
// option that moves the repository or the work tree elsewhere (--git-dir, --work-tree) cannot
// be followed: bad says so.
func gitDir(pc *permission.Context, global []Word) (*permission.Context, *damageTarget) {
	for i := 0; i < len(global); i++ {
		w := global[i]
		switch v := w.Value; {
		case !w.Known:
			t := unknownWord(w)
			return pc, &t
		case v == "-C":
			if i+1 >= len(global) {
				return pc, nil
			}
			dirs, bad := knownPaths(pc, global[i+1:i+2])
			if len(bad) > 0 || len(dirs) != 1 {
				t := unknownTarget("git -C " + global[i+1].Src + ": the folder is not known")
				return pc, &t
			}
			pc = pc.WithCwd(dirs[0])
			i++
		case v == "-c" || v == "--config-env":
			i++
		case strings.HasPrefix(v, "--git-dir") || strings.HasPrefix(v, "--work-tree") || strings.HasPrefix(v, "--namespace"):
			t := unknownTarget("git " + v + ": the repository is not the one the analysis asks about")
			return pc, &t
		}
	}
	return pc, nil
}

// gitDestroys reports a subcommand whose damage gitDamage counts in its own folder.
func gitDestroys(sub string) bool {
	switch sub {
	case "clean", "checkout", "switch", "restore", "reset", "read-tree", "rm", "stash":
		return true
	}
	return false
}

// withPaths sets the target's pathspecs from the operands (the folder the command runs in
// when there are none) and returns it, with whatever cannot be resolved as unknown.
func (t damageTarget) withPaths(pc *permission.Context, ws []Word) []damageTarget {
	paths, patterns, bad := gitPathspecs(pc, ws)
	if len(bad) > 0 {
		return bad
	}
	if patterns && t.op == opGitRm {
		t.dirs = true // a pattern matches in every folder below, -r or not
	}
	if len(paths) == 0 {
		paths = []string{pc.Cwd()}
	}
	t.paths = paths
	return []damageTarget{t}
}

// gitPathspecs resolves git pathspecs: a word the shell expands as usual; a pattern git
// matches itself (a quoted '*.go', which matches in every folder below) as the folder before
// its first wildcard; a pathspec with magic (:/, :(glob)…) as the whole repository.
func gitPathspecs(pc *permission.Context, ws []Word) (paths []string, patterns bool, bad []damageTarget) {
	var plain []Word
	for _, w := range ws {
		switch {
		case w.Known && strings.HasPrefix(w.Value, ":"):
			paths, patterns = append(paths, wholeRepo...), true
		case w.Known && !w.Glob && strings.ContainsAny(w.Value, "*?["):
			prefix := w.Value[:strings.IndexAny(w.Value, "*?[")]
			plain, patterns = append(plain, subWord(w, filepath.Dir(prefix+"x"))), true
		default:
			plain = append(plain, w)
		}
	}
	resolved, bad := knownPaths(pc, plain)
	return append(paths, resolved...), patterns, bad
}

// checkoutDamage: git checkout with paths (after --, or operands that name files) discards
// their changes, the index's too when a tree-ish is named; -f discards every change.
func checkoutDamage(pc *permission.Context, t damageTarget, rest []Word, opts []opt, ops []Word) []damageTarget {
	t.op = opGitChange
	dashDash := -1
	for i, a := range rest {
		if a.Known && a.Value == "--" {
			dashDash = i
			break
		}
	}
	switch {
	case dashDash >= 0:
		_, before := parseArgs(rest[:dashDash], gitSpec)
		t.staged = len(before) > 0 // a tree-ish: the index is replaced too
		return t.withPaths(pc, rest[dashDash+1:])
	case hasOpt(opts, "-f", "--force"):
		t.staged, t.paths = true, wholeRepo
		return []damageTarget{t}
	}
	// Operands that name existing files are paths; a branch name discards nothing, but
	// with paths it is the tree-ish they are taken from.
	var files []Word
	for _, w := range ops {
		if !w.Known || w.Placeholder {
			return []damageTarget{unknownWord(w)}
		}
		if abs, ok := damagePath(pc, w); ok && (exists(abs) || w.Glob) {
			files = append(files, w)
		} else {
			t.staged = true
		}
	}
	if len(files) == 0 {
		return nil
	}
	return t.withPaths(pc, files)
}

// stashDamage: git stash (push, save) keeps what it takes; drop and clear destroy stashes.
// A drop of the stash a push of the same command line made is counted as what that push took
// (countDamage pairs them); any other drop, and clear, destroys what the analysis cannot see.
func stashDamage(pc *permission.Context, t damageTarget, rest []Word) []damageTarget {
	sub := "push"
	if len(rest) > 0 && rest[0].Known && !strings.HasPrefix(rest[0].Value, "-") {
		sub, rest = rest[0].Value, rest[1:]
	}
	opts, ops := parseArgs(rest, gitSpec)
	switch sub {
	case "push", "save":
		t.op = opGitStash
		t.dirs = true
		t.ignored = hasOpt(opts, "-a", "--all")
		t.untracked = t.ignored || hasOpt(opts, "-u", "--include-untracked")
		t.staged = true
		if sub == "save" {
			ops = nil // save's operand is its message
		}
		return t.withPaths(pc, ops)
	case "drop":
		t.op = opGitDrop
		if len(ops) > 0 && !(ops[0].Known && (ops[0].Value == "0" || ops[0].Value == "stash@{0}")) {
			t.why = "git stash drop " + ops[0].Src + ": what that stash holds is not counted"
		}
		return []damageTarget{t}
	case "clear":
		return []damageTarget{unknownTarget("git stash clear: what the stashes hold is not counted")}
	}
	return nil
}

// wholeRepo is the pathspec of a git command that acts on the whole repository, wherever in
// it it runs: "/" holds every repository.
var wholeRepo = []string{"/"}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
