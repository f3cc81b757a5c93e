package auth

import (
	"crypto/sha256"
	"sync"
	"time"
)

const cacheShards = 16

// TokenCache remembers verified tokens so a repeat token skips signature
// verification. It is bounded (least recently used entries are evicted per
// shard), keyed by the sha256 of the token (the token itself is never a key
// and never logged), and an entry never outlives the token's exp.
type TokenCache struct {
	maxTTL   time.Duration
	perShard int
	now      func() time.Time
	shards   [cacheShards]cacheShard
}

type cacheShard struct {
	mu   sync.Mutex
	m    map[[32]byte]*cacheEntry
	head cacheEntry // sentinel of the LRU ring: head.next is the newest
}

type cacheEntry struct {
	key        [32]byte
	p          *Principal
	expires    int64 // unix nanoseconds
	prev, next *cacheEntry
}

// NewTokenCache returns a cache holding at most maxEntries tokens, each for at
// most maxTTL. now may be nil (time.Now).
func NewTokenCache(maxEntries int, maxTTL time.Duration, now func() time.Time) *TokenCache {
	if maxEntries <= 0 {
		maxEntries = DefaultCacheEntries
	}
	if maxTTL <= 0 {
		maxTTL = DefaultCacheTTL
	}
	if now == nil {
		now = time.Now
	}
	c := &TokenCache{maxTTL: maxTTL, perShard: max(1, (maxEntries+cacheShards-1)/cacheShards), now: now}
	for i := range c.shards {
		s := &c.shards[i]
		s.m = make(map[[32]byte]*cacheEntry)
		s.head.next, s.head.prev = &s.head, &s.head
	}
	return c
}

// TokenKey is the cache key of a token: its sha256.
func TokenKey(tok string) [32]byte { return sha256.Sum256([]byte(tok)) }

func (c *TokenCache) shard(k *[32]byte) *cacheShard { return &c.shards[k[0]%cacheShards] }

// Get returns the principal cached for the token whose key is k, or nil. The
// principal is shared: callers must not modify it.
func (c *TokenCache) Get(k [32]byte) *Principal {
	s := c.shard(&k)
	now := c.now().UnixNano()
	s.mu.Lock()
	e := s.m[k]
	if e == nil {
		s.mu.Unlock()
		return nil
	}
	if now >= e.expires {
		s.removeLocked(e)
		s.mu.Unlock()
		return nil
	}
	if s.head.next != e {
		e.unlink()
		s.pushFrontLocked(e)
	}
	p := e.p
	s.mu.Unlock()
	return p
}

// Put remembers p under k until min(p.Expiry, now+maxTTL). Principals without
// an expiry, or already expired, are not cached.
func (c *TokenCache) Put(k [32]byte, p *Principal) {
	if p == nil || p.Expiry.IsZero() {
		return
	}
	now := c.now()
	exp := p.Expiry
	if limit := now.Add(c.maxTTL); exp.After(limit) {
		exp = limit
	}
	if !exp.After(now) {
		return
	}
	s := c.shard(&k)
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.m[k]; old != nil {
		s.removeLocked(old)
	}
	e := &cacheEntry{key: k, p: p, expires: exp.UnixNano()}
	s.m[k] = e
	s.pushFrontLocked(e)
	for len(s.m) > c.perShard {
		s.removeLocked(s.head.prev)
	}
}

// Len returns the number of cached entries (including expired ones not yet
// evicted).
func (c *TokenCache) Len() int {
	n := 0
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		n += len(s.m)
		s.mu.Unlock()
	}
	return n
}

func (s *cacheShard) pushFrontLocked(e *cacheEntry) {
	e.prev = &s.head
	e.next = s.head.next
	s.head.next.prev = e
	s.head.next = e
}

func (s *cacheShard) removeLocked(e *cacheEntry) {
	e.unlink()
	delete(s.m, e.key)
}

func (e *cacheEntry) unlink() {
	e.prev.next = e.next
	e.next.prev = e.prev
	e.prev, e.next = nil, nil
}
