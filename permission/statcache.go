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
	m  map[string]lstatResult
}

type lstatResult struct {
	fi  fs.FileInfo
	err error
}

type statCacheKey struct{}

// WithStatCache returns a context under which [Lstat] and the path checks remember the Lstat
// result of each path. Use it for one decision (one Bash command line), never longer.
func WithStatCache(ctx context.Context) context.Context {
	return context.WithValue(ctx, statCacheKey{}, &statCache{m: map[string]lstatResult{}})
}

// Lstat is os.Lstat, remembered for the decision when ctx comes from [WithStatCache].
func Lstat(ctx context.Context, name string) (fs.FileInfo, error) {
	sc, _ := ctx.Value(statCacheKey{}).(*statCache)
	if sc == nil {
		return os.Lstat(name)
	}
	sc.mu.Lock()
	r, ok := sc.m[name]
	sc.mu.Unlock()
	if ok {
		return r.fi, r.err
	}
	fi, err := os.Lstat(name)
	sc.mu.Lock()
	sc.m[name] = lstatResult{fi, err}
	sc.mu.Unlock()
	return fi, err
}
