package classifier

import (
	"container/list"
	"sync"

	"github.com/reinsdev/reins/permission"
)

// defaultCacheSize bounds the verdicts kept; the least recently used goes first.
const defaultCacheSize = 512

// cache holds verdicts by the hash of the request that produced them. Failures are never
// kept: the next call asks again.
type cache struct {
	mu    sync.Mutex
	size  int
	order *list.List // of key, most recent first
	items map[[32]byte]*list.Element
}

type cached struct {
	key [32]byte
	v   permission.Verdict
}

func newCache(size int) *cache {
	if size <= 0 {
		size = defaultCacheSize
	}
	return &cache{size: size, order: list.New(), items: map[[32]byte]*list.Element{}}
}

func (c *cache) get(k [32]byte) (permission.Verdict, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[k]
	if !ok {
		return permission.Verdict{}, false
	}
	c.order.MoveToFront(el)
	return el.Value.(cached).v, true
}

func (c *cache) put(k [32]byte, v permission.Verdict) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[k]; ok {
		el.Value = cached{k, v}
		c.order.MoveToFront(el)
		return
	}
	c.items[k] = c.order.PushFront(cached{k, v})
	for c.order.Len() > c.size {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(cached).key)
	}
}

func (c *cache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
