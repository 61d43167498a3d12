package bashrules

import "strings"

// The path and read-only code of the programs whose entries are in knowledge/programs/git.kb: what their
// entries cannot state as data (a paths role, the read-only
// judgement of their arguments).

func init() {
	registerReadOnly("git", gitRO)
	registerPaths("git", gitPaths)
}

// gitPaths finds the files a git command reads or writes: -C's directory, rev:path
// arguments, pathspecs after "--", and arguments that name existing files.
func gitPaths(args []Word) pathsResult {
	var r pathsResult
	var dir *Word
	i := 0
	for i < len(args) && args[i].Known && strings.HasPrefix(args[i].Value, "-") {
		v := args[i].Value
		switch {
		case v == "-C" && i+1 < len(args):
			d := args[i+1]
			dir = &d
			r.add(accRead, d)
			i += 2
			continue
		case v == "-c" || v == "--git-dir" || v == "--work-tree" || v == "--namespace" || v == "--exec-path" || v == "--config-env":
			if v == "--git-dir" || v == "--work-tree" {
				if i+1 < len(args) {
					r.add(accRead, args[i+1])
				}
			}
			i += 2
			continue
		}
		i++
	}
	if i >= len(args) || !args[i].Known {
		return r
	}
	sub, rest := args[i].Value, args[i+1:]
	use := func(acc access, w Word) {
		r.uses = append(r.uses, pathUse{w: w, acc: acc, dir: dir})
	}
	if sub == "config" {
		r.uses = append(r.uses, gitConfigWrites(rest, dir)...)
		return r
	}
	if sub == "clone" {
		var ops []Word
		for _, a := range rest {
			if a.Known && !strings.HasPrefix(a.Value, "-") {
				ops = append(ops, a)
			}
		}
		if len(ops) >= 2 {
			use(accWrite, ops[len(ops)-1])
		}
		return r
	}
	afterDash := false
	for _, a := range rest {
		if !a.Known {
			continue
		}
		v := a.Value
		if v == "--" && !afterDash {
			afterDash = true
			continue
		}
		if !afterDash && strings.HasPrefix(v, "-") {
			continue
		}
		switch sub {
		case "rm":
			if afterDash {
				use(accRemove, a)
			} else {
				use(accRemoveIfExists, a)
			}
		case "checkout", "restore":
			if afterDash {
				use(accWrite, a)
			}
		case "init", "submodule", "worktree", "apply", "am", "mv", "commit", "push", "pull", "fetch", "remote", "config", "tag", "branch", "merge", "rebase", "reset", "switch", "stash", "cherry-pick", "revert":
			if afterDash {
				use(accReadIfExists, a)
			}
		default:
			if k := strings.IndexByte(v, ':'); k >= 0 && !afterDash {
				p := v[k+1:]
				if len(p) >= 2 && p[0] >= '0' && p[0] <= '3' && p[1] == ':' {
					p = p[2:] // :0:path names a stage of the index
				}
				if p != "" && !strings.Contains(v[:k], "//") {
					w := a
					w.Value, w.Src = p, p
					use(accRead, w)
				}
				continue
			}
			if afterDash {
				use(accRead, a)
			} else {
				use(accReadIfExists, a)
			}
		}
	}
	return r
}
