package auth

import (
	"crypto/sha256"
	"hash/maphash"
	"sync"
	"time"

	"github.com/a2a-mcp-bridge/bridge/request"
)

const cacheShards = 16

// TokenCache remembers verified tokens so a repeat token skips signature
// verification. It is bounded (least recently used entries are evicted per
// shard), and an entry never outlives the token's exp. Entries are found by a
// keyed hash of the token (maphash with a per-cache random seed: fast, and
// not predictable by a caller) and a hit is confirmed by comparing the token
// with the one the cached principal was verified from, so no hash collision
// can ever return another caller's principal.
type TokenCache struct {
	seed     maphash.Seed
	maxTTL   time.Duration
	perShard int
	now      func() time.Time
	shards   [cacheShards]cacheShard
}

type cacheShard struct {
	mu   sync.Mutex
	m    map[uint64]*cacheEntry
	head cacheEntry // sentinel of the LRU ring: head.next is the newest
}

type cacheEntry struct {
	key        uint64
	p          *request.Principal
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
	c := &TokenCache{seed: maphash.MakeSeed(), maxTTL: maxTTL, perShard: max(1, (maxEntries+cacheShards-1)/cacheShards), now: now}
	for i := range c.shards {
		s := &c.shards[i]
		s.m = make(map[uint64]*cacheEntry)
		s.head.next, s.head.prev = &s.head, &s.head
	}
	return c
}

// TokenKey is a stable digest of a token (sha256), for maps that must not
// hold tokens as keys.
func TokenKey(tok string) [32]byte { return sha256.Sum256([]byte(tok)) }

func (c *TokenCache) shard(k uint64) *cacheShard { return &c.shards[k>>60%cacheShards] }

// Get returns the principal cached for tok, or nil. The principal is shared:
// callers must not modify it.
func (c *TokenCache) Get(tok string) *request.Principal {
	k := maphash.String(c.seed, tok)
	s := c.shard(k)
	now := c.now().UnixNano()
	s.mu.Lock()
	e := s.m[k]
	if e == nil || e.p.Token != tok {
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

// Put remembers p, verified from p.Token, until min(p.Expiry, now+maxTTL).
// Principals without a token or an expiry, or already expired, are not cached.
func (c *TokenCache) Put(p *request.Principal) {
	if p == nil || p.Token == "" || p.Expiry.IsZero() {
		return
	}
	k := maphash.String(c.seed, p.Token)
	now := c.now()
	exp := p.Expiry
	if limit := now.Add(c.maxTTL); exp.After(limit) {
		exp = limit
	}
	if !exp.After(now) {
		return
	}
	s := c.shard(k)
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
