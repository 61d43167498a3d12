package bashrules

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/reinsdev/reins/permission"
)

// A git command reads the configuration of the repository it runs in, and that configuration
// runs programs: core.fsmonitor on git status, core.pager, aliases, diff and filter drivers,
// hooks. The project's own repository is the one the session works in; a repository the agent
// planted below it (git -C planted status, git --git-dir=planted/.git log) is another, whose
// configuration nobody has looked at. So a git command pointed by -C, --git-dir or --work-tree
// at a repository that is not the one the session started in is not read-only, and with a Bash
// deny or ask rule in force it is a safety ask (what it runs may be what a rule names).

// gitElsewhere says why git's global options point it at a repository other than the
// project's, or "". cwd is where the command runs; orig is the session's starting directory.
func gitElsewhere(ctx context.Context, cwd, orig string, args []Word) string {
	dir, gitDir, moved := cwd, "", false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.Known {
			return "git's options name a folder only known when it runs (" + a.Src + ")"
		}
		v := a.Value
		if !strings.HasPrefix(v, "-") || v == "--" {
			break // the subcommand
		}
		name, val, has := strings.Cut(v, "=")
		switch name {
		case "-C", "--git-dir", "--work-tree":
		default:
			if name == "-c" || name == "--config-env" || name == "--namespace" || name == "--exec-path" && !has {
				i++ // a value of its own
			}
			continue
		}
		if !has {
			if i+1 >= len(args) {
				return ""
			}
			i++
			if !args[i].Known {
				return "git " + name + " names a folder only known when it runs (" + args[i].Src + ")"
			}
			val = args[i].Value
		}
		p := val
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		switch name {
		case "-C":
			dir, moved = p, true
		case "--git-dir":
			gitDir, moved = p, true
		case "--work-tree":
			// Without --git-dir git still finds the repository from where it runs (after
			// every -C): the work tree's own .git is not read.
			moved = true
		}
	}
	if !moved {
		return ""
	}
	repo := gitDir
	if repo == "" {
		repo = repoOf(ctx, dir)
	} else if _, err := permission.Lstat(ctx, repo); err != nil {
		return "" // no such repository: git stops with an error before it reads anything
	}
	if repo == "" || filepath.Clean(repo) == repoOf(ctx, orig) {
		return ""
	}
	return "git would run in the repository at " + repo + ", not the project's: its configuration (core.fsmonitor, core.pager, aliases, hooks) can run programs"
}

// repoOf finds the repository git would use in dir: the nearest .git (a folder, or a file
// pointing elsewhere, as in a worktree or submodule) at or above it, or a folder laid out as
// a bare repository; "" when there is none.
func repoOf(ctx context.Context, dir string) string {
	dir = filepath.Clean(dir)
	for range 64 {
		dotGit := filepath.Join(dir, ".git")
		if _, err := permission.Lstat(ctx, dotGit); err == nil {
			return dotGit
		}
		if bareLayout(dir) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	return ""
}

// bareLayout reports a folder laid out as a bare repository: HEAD, objects/ and refs/.
func bareLayout(dir string) bool {
	head, err1 := lstatMode(filepath.Join(dir, "HEAD"))
	objs, err2 := lstatMode(filepath.Join(dir, "objects"))
	refs, err3 := lstatMode(filepath.Join(dir, "refs"))
	return err1 == nil && err2 == nil && err3 == nil && !head.IsDir() && objs.IsDir() && refs.IsDir()
}

func lstatMode(p string) (fs.FileMode, error) { return permission.Lstat(context.Background(), p) }
