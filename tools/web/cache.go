package web

import (
	"container/list"
	"sync"
	"time"
)

// cache keeps fetched pages for a while, bounded by their total size: the least recently used
// page leaves first. It is safe for concurrent use (WebFetch calls run in parallel).
type cache struct {
	max int
	ttl time.Duration
	now func() time.Time

	mu    sync.Mutex
	size  int
	order *list.List // of *cacheEntry, most recently used first
	byKey map[string]*list.Element
}

type cacheEntry struct {
	key     string
	page    *page
	expires time.Time
}

// newCache returns a cache of at most max bytes; max < 0 disables it.
func newCache(max int, ttl time.Duration, now func() time.Time) *cache {
	return &cache{max: max, ttl: ttl, now: now, order: list.New(), byKey: map[string]*list.Element{}}
}

func (c *cache) get(key string) (*page, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	e := el.Value.(*cacheEntry)
	if !c.now().Before(e.expires) {
		c.remove(el)
		return nil, false
	}
	c.order.MoveToFront(el)
	return e.page, true
}

func (c *cache) put(key string, p *page) {
	if c.max < 0 || p.size() > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		c.remove(el)
	}
	c.byKey[key] = c.order.PushFront(&cacheEntry{key: key, page: p, expires: c.now().Add(c.ttl)})
	c.size += p.size()
	for c.size > c.max {
		c.remove(c.order.Back())
	}
}

func (c *cache) remove(el *list.Element) {
	e := el.Value.(*cacheEntry)
	c.order.Remove(el)
	delete(c.byKey, e.key)
	c.size -= e.page.size()
}

// len is the number of cached pages.
func (c *cache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
