package search

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

// vcsDirs are version-control folders no search looks into (ripgrep gets them as --glob
// exclusions, the Go walker as the same overrides).
var vcsDirs = [...]string{".git", ".svn", ".hg", ".bzr", ".jj", ".sl"}

// vcsExclusions returns the override globs that exclude the version-control folders.
func vcsExclusions() []string {
	out := make([]string, len(vcsDirs))
	for i, d := range vcsDirs {
		out[i] = "!" + d
	}
	return out
}

// walkConfig says which files a walk visits.
type walkConfig struct {
	root string // absolute directory
	// ignoreFiles respects .gitignore (inside git repositories), .ignore, .rgignore,
	// .git/info/exclude and the global gitignore, in ripgrep's precedence.
	ignoreFiles bool
	overrides   *overrides
	types       *typeFilter
	getenv      func(string) string
	workers     int
}

// fileEntry is a file the walk found. rel is slash-separated, relative to the root.
type fileEntry struct {
	rel, abs string
	d        fs.DirEntry
}

// walkJob is a directory to read or a batch of files to visit.
type walkJob struct {
	dir, rel string
	ign      *dirIgnore // the parent directory's ignore state
	files    []fileEntry
}

// fileBatch is how many files one job visits: large enough to keep queue traffic low, small
// enough that one big directory spreads over every worker.
const fileBatch = 32

// walker walks a tree with a fixed pool of workers sharing a LIFO job stack. Workers push the
// subdirectories and file batches they find, so a deep or a flat tree both keep every worker
// busy, and the stack stays as small as a depth-first walk's.
type walker struct {
	cfg   walkConfig
	visit func(worker int, f fileEntry)

	mu      sync.Mutex
	cond    *sync.Cond
	stack   []walkJob
	pending int // jobs pushed and not yet finished
}

// walk visits every regular file under cfg.root that the filters let through, calling visit
// from up to cfg.workers goroutines (worker is 0..workers-1, for per-worker scratch state).
// Symbolic links are not followed, as ripgrep does not follow them by default; unreadable
// directories are skipped. It returns ctx's error if ctx ends first.
func walk(ctx context.Context, cfg walkConfig, visit func(worker int, f fileEntry)) error {
	if cfg.workers <= 0 {
		cfg.workers = runtime.GOMAXPROCS(0)
	}
	if cfg.getenv == nil {
		cfg.getenv = func(string) string { return "" }
	}
	w := &walker{cfg: cfg, visit: visit}
	w.cond = sync.NewCond(&w.mu)
	var base *dirIgnore
	if cfg.ignoreFiles {
		base = ancestorsIgnore(cfg.root, cfg.getenv)
	}
	w.push(walkJob{dir: cfg.root, ign: base})
	var wg sync.WaitGroup
	for i := range cfg.workers {
		wg.Go(func() { w.work(ctx, i) })
	}
	wg.Wait()
	return ctx.Err()
}

func (w *walker) push(j walkJob) {
	w.mu.Lock()
	w.stack = append(w.stack, j)
	w.pending++
	w.mu.Unlock()
	w.cond.Signal()
}

func (w *walker) work(ctx context.Context, id int) {
	for {
		w.mu.Lock()
		for len(w.stack) == 0 && w.pending > 0 {
			w.cond.Wait()
		}
		if w.pending == 0 {
			w.mu.Unlock()
			w.cond.Broadcast()
			return
		}
		j := w.stack[len(w.stack)-1]
		w.stack[len(w.stack)-1] = walkJob{}
		w.stack = w.stack[:len(w.stack)-1]
		w.mu.Unlock()

		if ctx.Err() == nil {
			if j.files != nil {
				for _, f := range j.files {
					w.visit(id, f)
				}
			} else {
				w.readDir(j)
			}
		}

		w.mu.Lock()
		w.pending--
		done := w.pending == 0
		w.mu.Unlock()
		if done {
			w.cond.Broadcast()
		}
	}
}

func (w *walker) readDir(j walkJob) {
	f, err := os.Open(j.dir)
	if err != nil {
		return
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil && len(entries) == 0 {
		return
	}
	ign := j.ign
	if w.cfg.ignoreFiles {
		var present [len(ignoreNames)]bool
		for _, e := range entries {
			for i, n := range ignoreNames {
				if e.Name() == n {
					present[i] = true
				}
			}
		}
		ign = ign.child(j.dir, func(name string) bool {
			for i, n := range ignoreNames {
				if n == name {
					return present[i]
				}
			}
			return false
		})
	}
	var batch []fileEntry
	for _, e := range entries {
		t := e.Type()
		isDir := t.IsDir()
		if !isDir && !t.IsRegular() {
			continue // symbolic links, devices, pipes, sockets
		}
		name := e.Name()
		rel := name
		if j.rel != "" {
			rel = j.rel + "/" + name
		}
		abs := filepath.Join(j.dir, name)
		if w.excluded(rel, abs, name, isDir, ign) {
			continue
		}
		if isDir {
			w.push(walkJob{dir: abs, rel: rel, ign: ign})
			continue
		}
		batch = append(batch, fileEntry{rel: rel, abs: abs, d: e})
		if len(batch) == fileBatch {
			w.push(walkJob{files: batch})
			batch = nil
		}
	}
	if len(batch) > 0 {
		w.push(walkJob{files: batch})
	}
}

// excluded applies ripgrep's order: a matching override decides alone; then the ignore
// files; then the file type.
func (w *walker) excluded(rel, abs, name string, isDir bool, ign *dirIgnore) bool {
	switch w.cfg.overrides.match(rel, isDir) {
	case ignored:
		return true
	case whitelisted:
		return false
	}
	if w.cfg.ignoreFiles && ign.match(filepath.ToSlash(abs), isDir) == ignored {
		return true
	}
	return w.cfg.types.match(name, isDir) == ignored
}
