package permission

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
)

// statCache remembers Lstat results for the length of one decision. A Bash command line names
// several paths under the same directories, and each path check walks its elements from the
// root: with the cache each directory is looked at once per decision. Results are never kept
// past the decision, so a file that changes between two tool calls is seen as it is.
type statCache struct {
	mu sync.Mutex
	// A decision looks at a dozen paths or so: a short list searched from the end (the
	// latest paths are asked again soonest) costs less than building a map, which is made
	// only when the list is full.
	list [statListMax]lstatEntry
	n    int
	m    map[string]lstatResult
	// keepDir is set for a cache whose owner closes it (StatCacheContext.Close): the first
	// directory the decision proves plain in one call is then kept open as dirFD, and the
	// names directly in it (src and test in the working directory) are looked up through it,
	// relative to the directory the proof saw, without the kernel walking its path again.
	// atLookups counts those, for tests.
	keepDir   bool
	hasDir    bool
	dirFD     int
	dirPath   string
	atLookups int
	// links holds the hard-link search of each multi-link file the decision writes.
	links map[[2]uint64]*hardLinks
}

// lstat is lstatFile, through the kept directory when name is directly in it. name is
// looked up in the directory that was proven plain, which this decision already takes for
// plain: no symlink can have replaced it in between for this decision's answers.
func (sc *statCache) lstat(name string) (fileStat, error) {
	sc.mu.Lock()
	if sc.hasDir {
		if base, ok := childName(sc.dirPath, name); ok {
			// The lock is held through the call, so that close cannot close the descriptor
			// (and the kernel hand its number to another file) while it is in use.
			defer sc.mu.Unlock()
			sc.atLookups++
			return lstatFileAt(sc.dirFD, base)
		}
	}
	sc.mu.Unlock()
	return lstatFile(name)
}

// childName returns the last element of name when name is dir/base with a base that is one
// plain element (not . or ..).
func childName(dir, name string) (string, bool) {
	if len(name) <= len(dir)+1 || name[len(dir)] != '/' || name[:len(dir)] != dir {
		return "", false
	}
	base := name[len(dir)+1:]
	if base == "." || base == ".." || strings.IndexByte(base, '/') >= 0 {
		return "", false
	}
	return base, true
}

// keep records fd, open on the plain directory d, as the cache's directory, or closes it
// when there is no cache, or it cannot keep one or already has one.
func (sc *statCache) keep(d string, fd int) {
	if sc == nil {
		closeDir(fd)
		return
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if !sc.keepDir || sc.hasDir {
		closeDir(fd)
		return
	}
	sc.hasDir, sc.dirFD, sc.dirPath = true, fd, d
}

func (sc *statCache) close() {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.hasDir {
		closeDir(sc.dirFD)
		sc.hasDir = false
	}
	sc.keepDir = false
}

const statListMax = 16

type lstatEntry struct {
	name string
	lstatResult
}

// lstatResult is what the checks need of an Lstat: the type bits of the mode (whether the
// path is a directory or a symlink), the file's identity and link count (a write to a file
// with several names is a write to each, see hardlink.go) and the error. plain marks a
// directory that, with every directory above it, was seen to be a directory and no symlink
// (see plainDir); such an entry has no identity.
type lstatResult struct {
	fileStat
	err   error
	plain bool
}

// fileStat is the part of a stat the checks use. links is 0 where the system does not say.
type fileStat struct {
	mode     fs.FileMode
	links    uint64
	dev, ino uint64
}

func (sc *statCache) get(name string) (lstatResult, bool) {
	for i := sc.n - 1; i >= 0; i-- {
		if sc.list[i].name == name {
			return sc.list[i].lstatResult, true
		}
	}
	r, ok := sc.m[name]
	return r, ok
}

func (sc *statCache) put(name string, r lstatResult) {
	for i := sc.n - 1; i >= 0; i-- {
		if sc.list[i].name == name {
			sc.list[i].lstatResult = r
			return
		}
	}
	if sc.n < statListMax {
		sc.list[sc.n] = lstatEntry{name, r}
		sc.n++
		return
	}
	if sc.m == nil {
		sc.m = map[string]lstatResult{}
	}
	sc.m[name] = r
}

type statCacheKey struct{}

// WithStatCache returns a context under which [Lstat] and the path checks remember the Lstat
// result of each path. Use it for one decision (one Bash command line), never longer.
func WithStatCache(ctx context.Context) context.Context {
	return context.WithValue(ctx, statCacheKey{}, &statCache{})
}

// StatCacheContext is what WithStatCache returns, as a type a caller can keep inside its own
// state for one decision, which saves that decision two allocations. Its zero value is not a
// context: Init makes it one.
type StatCacheContext struct {
	context.Context
	sc statCache
}

// Init makes c a context under parent that remembers Lstat results, as WithStatCache does, and
// returns it. Use it for one decision, never longer, do not copy c afterwards, and Close it
// once every use of the context has returned: it may hold a directory open.
func (c *StatCacheContext) Init(parent context.Context) context.Context {
	c.Context = parent
	c.sc = statCache{keepDir: true}
	return c
}

// Close releases what the decision held open. The context still works afterwards, without
// keeping anything open.
func (c *StatCacheContext) Close() { c.sc.close() }

// Value returns the stat cache for its key and asks the parent for any other.
func (c *StatCacheContext) Value(key any) any {
	if _, ok := key.(statCacheKey); ok {
		return &c.sc
	}
	return c.Context.Value(key)
}

func statCacheOf(ctx context.Context) *statCache {
	sc, _ := ctx.Value(statCacheKey{}).(*statCache)
	return sc
}

// Lstat returns the type bits of name's mode (fs.ModeType: fs.ModeDir, fs.ModeSymlink, ...)
// without following a final symlink, or the error of the lstat system call (errors.Is(err,
// fs.ErrNotExist) for a missing file). It is remembered for the decision when ctx comes from
// [WithStatCache].
func Lstat(ctx context.Context, name string) (fs.FileMode, error) {
	r := lstatCached(statCacheOf(ctx), name)
	return r.mode, r.err
}

func lstatCached(sc *statCache, name string) lstatResult {
	if sc == nil {
		st, err := lstatFile(name)
		return lstatResult{fileStat: st, err: err}
	}
	sc.mu.Lock()
	r, ok := sc.get(name)
	sc.mu.Unlock()
	if ok {
		return r
	}
	st, err := sc.lstat(name)
	sc.mu.Lock()
	defer sc.mu.Unlock()
	// Two goroutines may both have missed: the first answer stays, so every caller of
	// the decision sees one answer.
	if r, ok := sc.get(name); ok {
		return r
	}
	r = lstatResult{fileStat: st, err: err}
	sc.put(name, r)
	return r
}

// plainDir reports whether the clean absolute path d is a directory reached without any
// symlink: d and every directory above it exist, are directories and are not symlinks. Where
// the kernel can prove it in one call (openat2 with RESOLVE_NO_SYMLINKS, see
// openDirWithoutSymlinks), it does; otherwise, or when that call fails for any reason, each element
// is looked at with Lstat, as before. The answer is remembered for the decision: every
// directory above a plain directory is plain too.
func plainDir(sc *statCache, d string) bool {
	if d == "/" {
		return true
	}
	if len(d) == 0 || d[0] != '/' {
		return false
	}
	if sc != nil {
		sc.mu.Lock()
		r, ok := sc.get(d)
		sc.mu.Unlock()
		if ok && r.plain {
			return true
		}
	}
	if fd := openDirWithoutSymlinks(d); fd >= 0 {
		if markPlain(sc, d) {
			sc.keep(d, fd)
			return true
		}
		closeDir(fd)
	}
	return plainDirWalk(sc, d)
}

// plainDirWalk is plainDir the long way: an Lstat of each element from the root down.
func plainDirWalk(sc *statCache, d string) bool {
	for i := 1; i <= len(d); i++ {
		if i < len(d) && d[i] != '/' {
			continue
		}
		r := lstatCached(sc, d[:i])
		if r.err != nil || r.mode&fs.ModeSymlink != 0 || !r.mode.IsDir() {
			return false
		}
	}
	markPlain(sc, d)
	return true
}

// markPlain records that d and every directory above it are plain directories, so that
// later Lstat calls of the decision see them as the proof did. When the decision has already
// seen one of them otherwise (the file system changed in between), the earlier answer stays,
// nothing is recorded and markPlain returns false: the caller then takes the walk, which
// answers from what was seen first.
func markPlain(sc *statCache, d string) bool {
	if sc == nil {
		return true
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	top := "/"
	// len(e) > 1 stops at "/" (and, were d not absolute, at ".").
	for e := d; len(e) > 1; e = filepath.Dir(e) {
		r, ok := sc.get(e)
		if !ok {
			continue
		}
		if r.plain {
			top = e // so are the ones above
			break
		}
		if r.err != nil || r.mode&fs.ModeSymlink != 0 || !r.mode.IsDir() {
			return false
		}
	}
	for e := d; e != top && len(e) > 1; e = filepath.Dir(e) {
		sc.put(e, lstatResult{fileStat: fileStat{mode: fs.ModeDir}, plain: true})
	}
	return true
}
