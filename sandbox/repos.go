package sandbox

import (
	"os"
	"path/filepath"
)

// maxRepoWalk bounds the search for nested repositories: the folders read below one working
// directory. The search runs when the session starts and after every sandboxed command, so
// it must stay cheap in a large tree (bench/sandbox.sh measures it); past the bound,
// repositories are not looked for (`reins sandbox status` says where it stopped).
const maxRepoWalk = 256

// searchRepos looks for the nested repositories below the working directories and keeps what
// it found for the next command's spec.
func (s *Sandbox) searchRepos() []string {
	var all, cut []string
	for _, wd := range s.cfg.WorkingDirs {
		repos, complete := findRepos(resolve(wd), maxRepoWalk)
		all = append(all, repos...)
		if !complete {
			cut = append(cut, resolve(wd))
		}
	}
	s.mu.Lock()
	s.repos, s.reposCut = all, cut
	s.mu.Unlock()
	return all
}

// findRepos returns the .git entries (folders or files) below root, not root's own, reading
// at most limit folders. It goes breadth first, so shallow repositories are found first, in
// the order the file system lists them, so that two searches of an unchanged tree read the
// same folders. It neither follows symlinks nor enters .git folders; it does enter a nested
// repository's working tree, which may hold repositories of its own. complete is false when
// it stopped at the limit.
func findRepos(root string, limit int) (gits []string, complete bool) {
	queue := []string{root}
	var buf []byte
	short := fillsReads(root)
	for read := 0; len(queue) > 0; read++ {
		if read == limit {
			return gits, false
		}
		dir := queue[0]
		queue = queue[1:]
		var subdirs []string
		var hasGit bool
		subdirs, hasGit, buf = listDirs(dir, buf, short)
		if hasGit && dir != root {
			gits = append(gits, filepath.Join(dir, ".git"))
		}
		for _, d := range subdirs {
			queue = append(queue, filepath.Join(dir, d))
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
