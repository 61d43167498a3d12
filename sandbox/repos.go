package sandbox

import (
	"os"
	"path/filepath"
)

// maxRepoWalk bounds the search for nested repositories: the folders read below one working
// directory. The search runs before and after every sandboxed command, so it must stay cheap
// in a large tree; past the bound, repositories are not looked for (`reins sandbox status`
// says so).
const maxRepoWalk = 4000

// findRepos returns the .git entries (folders or files) below root, not root's own, reading
// at most limit folders. It goes breadth first, so shallow repositories are found first, in
// name order, so that two searches of an unchanged tree read the same folders. It neither
// follows symlinks nor enters .git folders; it does enter a nested repository's working tree,
// which may hold repositories of its own. complete is false when it stopped at the limit.
func findRepos(root string, limit int) (gits []string, complete bool) {
	queue := []string{root}
	for read := 0; len(queue) > 0; read++ {
		if read == limit {
			return gits, false
		}
		dir := queue[0]
		queue = queue[1:]
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue // unreadable here is unreadable to the command too
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			switch {
			case e.Name() == ".git":
				if dir != root {
					gits = append(gits, p)
				}
			case e.IsDir():
				queue = append(queue, p)
			}
		}
	}
	return gits, true
}

// maxModuleDepth bounds how deep submodules of submodules are looked for.
const maxModuleDepth = 4

// moduleRepos returns the repositories git keeps for submodules under git/modules (a folder
// holding HEAD is one; its own modules/ holds those of its submodules). Their hooks run like
// the top repository's.
func moduleRepos(git string) []string {
	var out []string
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		if depth > maxModuleDepth {
			return
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			p := filepath.Join(dir, e.Name())
			if _, err := os.Lstat(filepath.Join(p, "HEAD")); err == nil {
				out = append(out, p)
				walk(filepath.Join(p, "modules"), depth+1)
			} else {
				walk(p, depth+1) // a submodule named a/b lives in modules/a/b
			}
		}
	}
	walk(filepath.Join(git, "modules"), 0)
	return out
}
