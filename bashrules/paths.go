package bashrules

import (
	"slices"
	"strings"
	"sync"

	"github.com/reinsdev/reins/bashrules/knowledge"
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
	return func(args []Word) pathsResult { return readOperands(args, spec, tree...) }
}

// readOperands reads the operands past the options of spec, whole trees with one of tree.
func readOperands(args []Word, spec optSpec, tree ...string) pathsResult {
	opts, ops := parseArgs(args, spec)
	acc := accRead
	if hasOpt(opts, tree...) {
		acc = accReadTree
	}
	var r pathsResult
	r.add(acc, dropStdin(ops)...)
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

// pathFuncs gives, for the programs the analysis knows, which arguments are paths and what the
// program does with them: from the paths role of the program's entry, or from the code
// registered for its name (registerPaths, beside its entry). A registration covers the name
// it names, not the other names of its entry, so that a family's variants may differ (rgrep
// is recursive). Programs with neither have their arguments probed: an argument naming an
// existing file is checked against Read deny and ask rules only. Built once, after init.
var pathFuncs = sync.OnceValue(func() map[string]pathFunc {
	out := map[string]pathFunc{}
	for _, e := range knowledge.Builtin().Programs() {
		w, ok := e.Role(knowledge.RolePaths)
		if !ok {
			continue
		}
		f := roleFunc(e, w)
		for _, n := range e.Names {
			out[n] = f
		}
	}
	codeMu.Lock()
	defer codeMu.Unlock()
	for n, c := range programCodes {
		if c.paths == nil {
			continue
		}
		if _, dup := out[n]; dup {
			panic("bashrules: " + n + " has both a paths role and registered path code")
		}
		out[n] = c.paths
	}
	return out
})

// pathFuncOf is the path code of a program name, if the analysis knows its paths.
func pathFuncOf(name string) (pathFunc, bool) {
	f, ok := pathFuncs()[name]
	return f, ok
}

// roleFunc is the path code a paths role states: the operands, read (whole trees below them
// with one of the tree options), written or removed, past the entry's options.
func roleFunc(e *knowledge.Command, words []string) pathFunc {
	if words[0] == "none" {
		return noPaths
	}
	if e.Partial || len(e.Subcommands()) > 0 {
		// Only a complete option table says which words are option values.
		panic("bashrules: role paths " + words[0] + " of " + e.Pos + " needs a complete entry without subcommands")
	}
	spec := specOf(e)
	switch words[0] {
	case "read":
		if len(words) == 1 {
			return readers(spec)
		}
		return treeReaders(e, spec, words[1:])
	case "write":
		return writers(spec)
	default:
		return removers(spec)
	}
}

// treeReaders reads the operands, whole trees below them when one of the options in tree is
// given, spelt as the entry reads it (--rec for --recursive where it abbreviates).
func treeReaders(e *knowledge.Command, spec optSpec, tree []string) pathFunc {
	return func(args []Word) pathsResult {
		opts, ops := parseArgs(args, spec)
		acc := accRead
		for _, o := range opts {
			if contains(tree, o.name) {
				acc = accReadTree
				break
			}
			if long, ok := strings.CutPrefix(o.name, "--"); ok {
				if lo, amb := e.Long(long); lo != nil && !amb && slices.ContainsFunc(lo.Spellings, func(s string) bool { return contains(tree, s) }) {
					acc = accReadTree
					break
				}
			}
		}
		var r pathsResult
		r.add(acc, dropStdin(ops)...)
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

// allOperands is for a program whose every operand past its entry's options is a path it
// reads or writes, "-" included (a file of that name, not standard input). The entry is read
// at the call, not at registration, so that init does not load the knowledge base.
func allOperands(name string, acc access) pathFunc {
	return func(args []Word) pathsResult {
		_, ops := parseArgs(args, kbSpec(name))
		var r pathsResult
		r.add(acc, ops...)
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

var dotWord = Word{Src: ".", Value: ".", Known: true}
