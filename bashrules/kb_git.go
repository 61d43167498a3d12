package bashrules

import "strings"

// The path and read-only code of the programs whose entries are in
// knowledge/programs/git.kb: what their entries cannot state as data (a paths role, the
// read-only judgement of their arguments).

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

// gitGlobal splits git's global options from the subcommand.
func gitGlobal(args []Word) (global []Word, sub string, rest []Word, why string) {
	i := 0
	for i < len(args) {
		v := args[i].Value
		switch {
		case v == "-C":
			i += 2
			continue
		case contains([]string{"--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--no-replace-objects",
			"--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-advice", "--bare"}, v):
			i++
			continue
		case v == "-c" || v == "--config-env" || strings.HasPrefix(v, "--config-env=") || strings.HasPrefix(v, "-c"):
			why = "git -c sets configuration that can run programs"
			i += 2
			continue
		case strings.HasPrefix(v, "-"):
			if why == "" {
				why = "git option " + v + " can change what git runs"
			}
			if !strings.Contains(v, "=") && (v == "--git-dir" || v == "--work-tree" || v == "--namespace" || v == "--exec-path") {
				i++
			}
			i++
			continue
		}
		break
	}
	if i >= len(args) {
		return args, "", nil, "git needs a subcommand"
	}
	return args[:i], args[i].Value, args[i+1:], why
}

// gitForbidden are options that make a reading git command write, page or run programs.
var gitForbidden = []string{"--output", "--ext-diff", "--textconv", "-O", "--open-files-in-pager", "--upload-pack", "-u",
	"--exec", "--receive-pack", "--paginate", "-p"}

var gitReadSubcommands = map[string]bool{"status": true, "log": true, "show": true, "diff": true, "shortlog": true,
	"blame": true, "annotate": true, "ls-files": true, "merge-base": true, "rev-parse": true, "rev-list": true, "describe": true,
	"cat-file": true, "for-each-ref": true, "grep": true, "ls-tree": true, "name-rev": true, "count-objects": true,
	"version": true, "whatchanged": true, "check-ignore": true, "show-ref": true, "ls-remote": true, "cherry": true,
	"diff-tree": true, "diff-files": true, "diff-index": true, "show-branch": true, "verify-commit": true, "verify-tag": true}

func gitRO(args []Word) string {
	if len(args) == 1 && (args[0].Value == "--version" || args[0].Value == "version") {
		return ""
	}
	_, sub, rest, why := gitGlobal(args)
	if why != "" {
		return why
	}
	forbidden := func() string {
		for _, a := range rest {
			v := a.Value
			if v == "--" {
				break
			}
			name, _, _ := strings.Cut(v, "=")
			// -p is patch output for log/show/diff; it only pages in git's global options.
			if (name == "-p" || name == "-u") && sub != "ls-remote" {
				continue
			}
			if contains(gitForbidden, name) {
				return "git " + sub + " " + name + " is not read-only"
			}
		}
		return ""
	}
	switch {
	case gitReadSubcommands[sub]:
		return forbidden()
	case sub == "reflog":
		if len(rest) == 0 || rest[0].Value == "show" || strings.HasPrefix(rest[0].Value, "-") {
			return forbidden()
		}
	case sub == "stash":
		if len(rest) > 0 && (rest[0].Value == "list" || rest[0].Value == "show") {
			return forbidden()
		}
	case sub == "worktree":
		if len(rest) > 0 && rest[0].Value == "list" {
			return ""
		}
	case sub == "remote":
		if len(rest) == 0 || rest[0].Value == "-v" || rest[0].Value == "--verbose" || rest[0].Value == "show" || rest[0].Value == "get-url" {
			return ""
		}
	case sub == "config":
		return gitConfigRO(rest)
	case sub == "tag", sub == "branch":
		return gitListRO(sub, rest)
	}
	return "git " + sub + " is not read-only"
}

func gitConfigRO(rest []Word) string {
	if len(rest) > 0 && (rest[0].Value == "get" || rest[0].Value == "list") {
		return ""
	}
	reading := false
	for _, a := range rest {
		v, _, _ := strings.Cut(a.Value, "=")
		switch v {
		case "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "--get-color", "--get-colorbool":
			reading = true
		case "--add", "--unset", "--unset-all", "--replace-all", "--edit", "-e", "--rename-section", "--remove-section":
			return "git config " + v + " changes the configuration"
		}
	}
	if !reading {
		return "git config without --get or --list changes the configuration"
	}
	return ""
}

// gitListRO allows git tag and git branch only when they list.
func gitListRO(sub string, rest []Word) string {
	listing := false
	var operands int
	for _, a := range rest {
		v, _, _ := strings.Cut(a.Value, "=")
		switch {
		case v == "-l" || v == "--list" || v == "--show-current":
			listing = true
		case contains([]string{"-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--contains", "--no-contains",
			"--merged", "--no-merged", "--sort", "--format", "--points-at", "--column", "--no-column", "-i", "--ignore-case",
			"--color", "--no-color", "--abbrev", "--no-abbrev", "--omit-empty"}, v) || strings.HasPrefix(v, "-n"):
		case strings.HasPrefix(v, "-"):
			return "git " + sub + " " + v + " is not read-only"
		default:
			operands++
		}
	}
	if operands > 0 && !listing {
		return "git " + sub + " with a name creates it"
	}
	return ""
}

// gitConfigWrites finds the configuration file a git config command writes: ~/.gitconfig for
// --global, /etc/gitconfig for --system, the --file, or .git/config when the key is one that
// runs programs (core.hooksPath, core.pager, alias.*, ...). Reading commands write nothing.
func gitConfigWrites(rest []Word, dir *Word) []pathUse {
	var file *Word
	scope := "local"
	var ops []Word
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if !a.Known {
			ops = append(ops, a)
			continue
		}
		v, val, hasVal := strings.Cut(a.Value, "=")
		switch {
		case v == "--get" || v == "--get-all" || v == "--get-regexp" || v == "--get-urlmatch" || v == "--list" || v == "-l" ||
			v == "--get-color" || v == "--get-colorbool" || (len(ops) == 0 && (v == "get" || v == "list")):
			return nil
		case v == "--global":
			scope = "global"
		case v == "--system":
			scope = "system"
		case v == "-f" || longPrefix(v, "--file") || v == "--file":
			if hasVal {
				w := subWord(a, val)
				file = &w
			} else if i+1 < len(rest) {
				w := rest[i+1]
				file = &w
				i++
			}
		case v == "--blob" || v == "--type" || v == "--default" || v == "--comment":
			if !hasVal {
				i++
			}
		case strings.HasPrefix(v, "-"):
		default:
			ops = append(ops, a)
		}
	}
	if len(ops) == 0 {
		return nil
	}
	if ops[0].Known && (ops[0].Value == "set" || ops[0].Value == "unset") {
		ops = ops[1:]
	}
	if len(ops) == 0 {
		return nil
	}
	var target Word
	switch {
	case file != nil:
		target = *file
	case scope == "global":
		target = Word{Src: "~/.gitconfig", Value: "~/.gitconfig", Known: true, Tilde: TildeHome}
	case scope == "system":
		target = Word{Src: "/etc/gitconfig", Value: "/etc/gitconfig", Known: true}
	default:
		key := strings.ToLower(ops[0].Value)
		runs := !ops[0].Known || key == "core.hookspath" || strings.HasPrefix(key, "include") || strings.HasSuffix(key, ".cmd") ||
			strings.HasSuffix(key, ".command") || strings.HasSuffix(key, ".textconv")
		for _, p := range gitCommandKeys {
			if key == p || (strings.HasSuffix(p, ".") && strings.HasPrefix(key, p)) {
				runs = true
			}
		}
		if !runs {
			return nil
		}
		target = Word{Src: ".git/config", Value: ".git/config", Known: true}
	}
	return []pathUse{{w: target, acc: accWrite, dir: dir}}
}
