package permission

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"
)

// A file with more than one hard link is one file under several names: a write through any
// name changes what every other name reads, including names in protected folders (.git/hooks)
// and outside the working directories (~/.bashrc). The write check therefore treats a write
// to such a file as a write to every name it has. The kernel does not list a file's names,
// so Reins searches the places whose names matter, by inode number (directory entries carry
// it, no stat per file is needed):
//
//   - every working directory, whole: a name in it is checked like the written one (rules,
//     protected paths);
//   - the home folder's protected files and folders (~/.bashrc, ~/.claude/**, ...) and the
//     session's settings files: a name among them is a protected path.
//
// Names the search does not find lie elsewhere: outside the working directories, where
// acceptEdits does not reach and an Edit allow rule for the project does not either, so the
// write asks. When the search could not finish (too many entries, an unreadable folder), a
// missing name could be a protected one in a folder it did not read: the write asks as a
// safety check, which bypassPermissions does not skip.

// sep is the system's path separator, for joining names the walk reads without cleaning.
const sep = string(filepath.Separator)

// maxLinkSearch bounds the directory entries one search reads (a variable for tests).
var maxLinkSearch = 200_000

// hardLinks is what the search found of the names of a file with more than one.
type hardLinks struct {
	links uint64
	// names holds every name found, the written one included (its resolved form).
	names []string
	// aliases are protected symlinks that name the file (~/.bashrc into a dotfiles
	// folder): forms to check, not names to count.
	aliases []string
	// complete is set when every place searched was read to the end.
	complete bool
	// unknown is set when the system did not say how many names the file has (a file
	// Windows would not open to tell): it may have any number, none of them searched.
	unknown bool
}

// missing is the number of names the search did not find.
func (h *hardLinks) missing() uint64 {
	if h.unknown {
		return 1
	}
	if n := uint64(len(h.names)); n < h.links {
		return h.links - n
	}
	return 0
}

// hardLinksOf returns the names of the file a write to forms lands on when it has more than
// one, or nil. The search runs once per file and decision when ctx has a stat cache.
func (c *Context) hardLinksOf(ctx context.Context, forms []pathForm) *hardLinks {
	sc := statCacheOf(ctx)
	var file fileStat
	name := ""
	// The last form is the resolved one; an earlier one that is itself a file (no symlink
	// in its way) is the same file.
	for i := len(forms) - 1; i >= 0 && name == ""; i-- {
		st, ok := forms[i].stat, forms[i].stated
		if !forms[i].stated && !forms[i].dir {
			r := lstatCached(sc, forms[i].path)
			st, ok = r.fileStat, r.err == nil && !r.plain
		}
		if ok && st.mode&(fs.ModeDir|fs.ModeSymlink) == 0 {
			file, name = st, forms[i].path
		}
	}
	if name == "" || file.links == 1 {
		return nil
	}
	if file.links == 0 {
		return &hardLinks{unknown: true}
	}
	key := [2]uint64{file.dev, file.ino}
	if sc != nil {
		sc.mu.Lock()
		h, ok := sc.links[key]
		sc.mu.Unlock()
		if ok {
			return h
		}
	}
	h := c.findLinks(file, name)
	if sc != nil {
		sc.mu.Lock()
		if sc.links == nil {
			sc.links = map[[2]uint64]*hardLinks{}
		}
		sc.links[key] = h
		sc.mu.Unlock()
	}
	return h
}

// linkSearch is one search for the names of the file want.
type linkSearch struct {
	want    fileStat
	budget  int
	names   []string
	entries map[[2]uint64]map[string]bool // the names found, by their folder's identity
	visited map[[2]uint64]bool
	// aliases are symlinks to the file found among the protected names.
	aliases []string
	// failed is set when a folder could not be read or the budget ran out.
	failed bool
}

func (c *Context) findLinks(file fileStat, name string) *hardLinks {
	s := &linkSearch{want: file, budget: maxLinkSearch, entries: map[[2]uint64]map[string]bool{}, visited: map[[2]uint64]bool{}}
	s.add(name)
	for _, d := range c.WorkingDirs() {
		if r, err := evalLinks(d); err == nil {
			s.walk(r, nil)
		} else {
			s.failed = true
		}
	}
	if !s.done() {
		s.searchHome(c.home)
	}
	for _, f := range c.settingsFiles {
		if !s.done() {
			s.add(f)
		}
	}
	return &hardLinks{links: file.links, names: s.names, aliases: s.aliases, complete: !s.failed}
}

func (s *linkSearch) done() bool { return uint64(len(s.names)) >= s.want.links }

// searchHome looks at the home folder's protected files and walks its protected folders (and
// .config/git): the places outside the project a write through a link most likely aims at.
func (s *linkSearch) searchHome(home string) {
	if home == "" {
		return
	}
	r, err := evalLinks(home)
	if err != nil {
		s.failed = true
		return
	}
	s.walk(r, func(name string, typ fs.FileMode) string {
		lower, isDir := strings.ToLower(name), typ.IsDir()
		switch {
		case isDir && lower == ".config":
			return filepath.Join(name, "git")
		case isDir && protectedDirs[lower], !isDir && protectedFiles[lower]:
			// A protected file that is a symlink (~/.bashrc into a dotfiles folder) is
			// followed: the file it names is as protected.
			return name
		}
		return ""
	})
	// The home folder's own protected paths: a file is looked at, a folder walked.
	for _, p := range protectedHome {
		if s.done() || s.failed {
			return
		}
		full := filepath.Join(r, filepath.FromSlash(p))
		s.add(full)
		s.walk(full, nil)
	}
}

// walk reads the tree under root breadth-first, adding each entry that is the wanted file.
// At root's own level, pick (when not nil) chooses the entries to look at and says where to
// go on from each (a folder below it, or "" to skip it); below it, every entry counts.
// Folders on another device are skipped: a hard link cannot cross file systems.
func (s *linkSearch) walk(root string, pick func(name string, typ fs.FileMode) string) {
	queue := []string{root}
	for len(queue) > 0 && !s.done() && !s.failed {
		dir := queue[0]
		queue = queue[1:]
		top := dir == root
		err := readDirInodes(dir, s.enter, func(name string, ino uint64, typ fs.FileMode) bool {
			if s.budget--; s.budget < 0 {
				s.failed = true
				return false
			}
			p := dir + sep + name
			if top && pick != nil {
				if p = pick(name, typ); p == "" {
					return true
				}
				p = dir + sep + p
				if typ&fs.ModeSymlink != 0 {
					s.addThrough(p)
					return !s.done()
				}
			}
			switch {
			case typ.IsDir():
				queue = append(queue, p)
			case ino == s.want.ino:
				s.add(p)
			}
			return !s.done()
		})
		// A folder gone, or a name that is no folder (~/.config/git as a file), holds no name.
		if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			s.failed = true
		}
	}
}

// enter says whether to read a folder: one on the wanted file's device not read before.
func (s *linkSearch) enter(st fileStat) bool {
	id := [2]uint64{st.dev, st.ino}
	if st.dev != s.want.dev || s.visited[id] {
		return false
	}
	s.visited[id] = true
	return true
}

// add records p when it is a name of the wanted file not seen yet. A name is one entry of
// one folder, so two paths to one folder (a bind mount) count once.
func (s *linkSearch) add(p string) {
	st, err := lstatFile(p)
	if err != nil || st.dev != s.want.dev || st.ino != s.want.ino || st.mode&fs.ModeSymlink != 0 {
		return
	}
	dir, err := lstatFile(filepath.Dir(p))
	if err != nil {
		s.failed = true
		return
	}
	id := [2]uint64{dir.dev, dir.ino}
	base := filepath.Base(p)
	if s.entries[id][base] {
		return
	}
	if s.entries[id] == nil {
		s.entries[id] = map[string]bool{}
	}
	s.entries[id][base] = true
	s.names = append(s.names, p)
}

// addThrough records the file the symlink p names when it is the wanted one, and p itself as
// a form the write check looks at (it is what makes the file protected), not as a name.
func (s *linkSearch) addThrough(p string) {
	r, err := evalLinks(p)
	if err != nil {
		return
	}
	if st, err := lstatFile(r); err == nil && st.dev == s.want.dev && st.ino == s.want.ino {
		s.add(r)
		s.aliases = append(s.aliases, p)
	}
}

// linkForms adds the names of h that are not among forms, marked as links.
func (h *hardLinks) linkForms(forms []pathForm) []pathForm {
	out := forms[:len(forms):len(forms)]
	for _, n := range append(h.names[:len(h.names):len(h.names)], h.aliases...) {
		if !containsForm(out, n) {
			out = append(out, pathForm{path: n, lower: foldPath(n), link: true})
		}
	}
	return out
}

func containsForm(forms []pathForm, p string) bool {
	for _, f := range forms {
		if f.path == p {
			return true
		}
	}
	return false
}

// missingDetail says why a write to a file whose names were not all found asks.
func (h *hardLinks) missingDetail(abs string) string {
	if h.unknown {
		return fmt.Sprintf("the system did not say how many names (hard links) %s has", abs)
	}
	if !h.complete {
		return fmt.Sprintf("%s has %d hard links and Reins could not search every place for the other names", abs, h.links)
	}
	return fmt.Sprintf("%s has %d hard links, %d of them not in the working directories", abs, h.links, h.missing())
}
