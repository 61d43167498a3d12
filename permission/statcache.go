package permission

import (
	"context"
	"io/fs"
	"os"
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
}

const statListMax = 16

type lstatEntry struct {
	name string
	lstatResult
}

type lstatResult struct {
	fi  fs.FileInfo
	err error
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

// Lstat is os.Lstat, remembered for the decision when ctx comes from [WithStatCache].
func Lstat(ctx context.Context, name string) (fs.FileInfo, error) {
	sc, _ := ctx.Value(statCacheKey{}).(*statCache)
	if sc == nil {
		return os.Lstat(name)
	}
	sc.mu.Lock()
	r, ok := sc.get(name)
	sc.mu.Unlock()
	if ok {
		return r.fi, r.err
	}
	fi, err := os.Lstat(name)
	sc.mu.Lock()
	// Two goroutines may both have missed: the first answer stays, so every caller of
	// the decision sees one answer.
	if r, ok := sc.get(name); ok {
		sc.mu.Unlock()
		return r.fi, r.err
	}
	sc.put(name, lstatResult{fi, err})
	sc.mu.Unlock()
	return fi, err
}
