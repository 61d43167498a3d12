package bashrules

import (
	"path"
	"strings"
)

// The path code of the programs whose entries are in knowledge/programs/fileops.kb: what their
// entries cannot state as data (a paths role).

func init() {
	registerPaths("shred", shredPaths)
	registerPaths("touch", allOperands("touch", accWrite))
	registerPaths("mv", mvPaths)
	registerPaths("cp", cpPaths(false))
	registerPaths("install", cpPaths(true))
	registerPaths("ln", lnPaths)
	registerPaths("chmod", modePaths("chmod"))
	registerPaths("chown", modePaths("chown"))
	registerPaths("chgrp", modePaths("chgrp"))
	registerPaths("truncate", allOperands("truncate", accWrite))
}

func mvPaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, kbSpec("mv"))
	return copyLike(opts, ops, accRemove, hasOpt(opts, "-T", "--no-target-directory"))
}

func cpPaths(install bool) pathFunc {
	name := "cp"
	if install {
		name = "install"
	}
	return func(args []Word) pathsResult {
		// The spec is read at the call, not at registration: the registry is filled in init,
		// which must not load the knowledge base.
		opts, ops := parseArgs(args, kbSpec(name))
		if install && hasOpt(opts, "-d", "--directory") {
			var r pathsResult
			r.add(accWrite, ops...)
			return r
		}
		src := accRead
		tree := hasOpt(opts, "-r", "-R", "-a", "--recursive", "--archive")
		if tree {
			src = accReadTree
		}
		if !install && hasOpt(opts, "-l", "--link") {
			// cp -l makes hard links: the sources are written through the copies later.
			if !tree {
				src = accWrite
			} else {
				r := copyLike(opts, ops, src, hasOpt(opts, "-T", "--no-target-directory"))
				r.issue("cp --link with a recursive copy makes every file below its sources writable through the copy")
				return r
			}
		}
		return copyLike(opts, ops, src, hasOpt(opts, "-T", "--no-target-directory"))
	}
}

// copyLike handles cp, mv and install: sources then a destination, or -t DIR and sources.
func copyLike(opts []opt, ops []Word, src access, noTargetDir bool) pathsResult {
	var r pathsResult
	targets := optVals(opts, "-t", "--target-directory")
	var dest *Word
	if len(targets) > 0 {
		dest = &targets[len(targets)-1]
	} else if len(ops) >= 2 {
		dest = &ops[len(ops)-1]
		ops = ops[:len(ops)-1]
	}
	r.add(src, ops...)
	if dest == nil {
		return r
	}
	r.uses = append(r.uses, pathUse{w: *dest, acc: accWrite})
	if !noTargetDir {
		for _, s := range ops {
			if s.IsPathLike() {
				r.uses = append(r.uses, pathUse{w: *dest, acc: accWrite, base: path.Base(strings.TrimRight(s.Value, "/"))})
			}
		}
	}
	return r
}

// lnPaths: a symbolic link's target is read through the link later (a later write through
// it is checked along the symlink); a hard link's target is the same file as the new name, so
// whatever may later be written through the name is written to the target: making the link is
// checked as a write to it (docs/security.md, "Hard links").
func lnPaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, kbSpec("ln"))
	var r pathsResult
	src := accWrite
	symbolic := hasOpt(opts, "-s", "--symbolic")
	if symbolic {
		src = accRead
	}
	targets := optVals(opts, "-t", "--target-directory")
	// A symbolic link's relative target is read from the link's directory, as the kernel
	// reads it; ln -r writes one relative to the target as named from here.
	relativeTo := func(at Word, file bool) {
		if !symbolic || hasOpt(opts, "-r", "--relative") {
			return
		}
		for i := range r.uses {
			if r.uses[i].acc == accRead && r.uses[i].linkIn == nil {
				r.uses[i].linkIn, r.uses[i].linkFile = &at, file
			}
		}
	}
	noDir := hasOpt(opts, "-T", "--no-target-directory", "-n", "--no-dereference")
	switch {
	case len(targets) > 0:
		r.add(src, ops...)
		relativeTo(targets[0], false)
		for _, t := range ops {
			if t.IsPathLike() {
				r.uses = append(r.uses, pathUse{w: targets[0], acc: accWrite, base: path.Base(t.Value)})
			}
		}
	case len(ops) == 1:
		r.add(src, ops[0])
		if ops[0].IsPathLike() {
			r.uses = append(r.uses, pathUse{w: dotWord, acc: accWrite, base: path.Base(ops[0].Value)})
		}
	case len(ops) >= 2:
		r.add(src, ops[:len(ops)-1]...)
		relativeTo(ops[len(ops)-1], noDir)
		r.add(accWrite, ops[len(ops)-1])
		for _, t := range ops[:len(ops)-1] {
			if t.IsPathLike() {
				r.uses = append(r.uses, pathUse{w: ops[len(ops)-1], acc: accWrite, base: path.Base(t.Value)})
			}
		}
	}
	return r
}

// modePaths: chmod, chown and chgrp change their operands after the mode or owner, which
// --reference (a read their entries type) replaces.
func modePaths(name string) pathFunc {
	return func(args []Word) pathsResult {
		opts, ops := parseArgs(args, kbSpec(name))
		var r pathsResult
		if len(optVals(opts, "--reference")) == 0 && len(ops) > 0 {
			ops = ops[1:] // the mode or owner
		}
		r.add(accWrite, ops...)
		return r
	}
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
