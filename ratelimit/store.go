package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/ulule/limiter/v3"
	redisstore "github.com/ulule/limiter/v3/drivers/store/redis"
)

// counter is where a Limiter's counts live: the in-process memStore or Redis
// through ulule/limiter. hit adds one request under k and returns the count
// in the current fixed window, including this one, and when the window ends.
type counter interface {
	hit(ctx context.Context, k *key, r Rate, now time.Time) (count int64, reset time.Time, err error)
}

var (
	_ counter = (*memStore)(nil)
	_ counter = (*ululeCounter)(nil)
	_ counter = (*redisCounter)(nil)
)

// DefaultMaxKeys bounds the in-process store: at most this many counters are
// kept (about 60 bytes each). Past it, expired counters are dropped first,
// then arbitrary live ones, which only ever makes a limit more lenient for
// the evicted key.
const DefaultMaxKeys = 1 << 20

const memShards = 64

// memStore is a fixed-window counter per key hash in a sharded map: one mutex
// and one map lookup per hit, no allocation once the key exists. It has the
// same semantics as ulule/limiter's stores (a window opens at a key's first
// hit and lasts one period) but is several times faster than ulule's memory
// store, which builds a string key and takes two clocks per hit.
type memStore struct {
	seed        maphash.Seed
	maxPerShard int
	shards      [memShards]memShard
}

type memShard struct {
	mu      sync.Mutex
	m       map[uint64]window
	sweepAt int
	_       [128 - 24]byte // one shard per 128 bytes: neighbours share no cache line (nor its prefetched pair)
}

type window struct {
	count int64
	end   int64 // unix nanoseconds
}

func newMemStore(maxKeys int) *memStore {
	if maxKeys <= 0 {
		maxKeys = DefaultMaxKeys
	}
	per := maxKeys / memShards
	if per < 1 {
		per = 1
	}
	s := &memStore{seed: maphash.MakeSeed(), maxPerShard: per}
	for i := range s.shards {
		s.shards[i].m = make(map[uint64]window)
		s.shards[i].sweepAt = min(64, per)
	}
	return s
}

func (s *memStore) hit(_ context.Context, k *key, r Rate, now time.Time) (int64, time.Time, error) {
	count, end := s.add(k.hash(s.seed), r.Period, now.UnixNano())
	return count, time.Unix(0, end), nil
}

func (s *memStore) add(h uint64, period time.Duration, now int64) (int64, int64) {
	sh := &s.shards[h%memShards]
	sh.mu.Lock()
	w, ok := sh.m[h]
	if ok && now < w.end {
		w.count++
	} else {
		if !ok && len(sh.m) >= sh.sweepAt {
			sh.makeRoom(now, s.maxPerShard)
		}
		w = window{count: 1, end: now + int64(period)}
	}
	sh.m[h] = w
	sh.mu.Unlock()
	return w.count, w.end
}

// makeRoom drops expired windows and, if the shard is still full, arbitrary
// live ones. It runs when the shard has doubled since the last sweep, so its
// cost is amortised over the inserts that grew it.
func (sh *memShard) makeRoom(now int64, limit int) {
	for h, w := range sh.m {
		if now >= w.end {
			delete(sh.m, h)
		}
	}
	for h := range sh.m {
		if len(sh.m) < limit {
			break
		}
		delete(sh.m, h)
	}
	sh.sweepAt = min(limit, max(64, 2*len(sh.m)))
}

// len reports the number of counters held (for tests).
func (s *memStore) len() int {
	n := 0
	for i := range s.shards {
		s.shards[i].mu.Lock()
		n += len(s.shards[i].m)
		s.shards[i].mu.Unlock()
	}
	return n
}

// ululeCounter adapts a ulule/limiter store. Its clock is the store's own
// (time.Now); now is ignored. ulule reports the reset as whole Unix seconds,
// truncated, so Reset is rounded up to the next second: never earlier than
// the real end of the window.
type ululeCounter struct {
	store limiter.Store
}

func (u *ululeCounter) hit(ctx context.Context, k *key, r Rate, _ time.Time) (int64, time.Time, error) {
	lc, err := u.store.Increment(ctx, k.String(), 1, limiter.Rate{Formatted: r.String(), Period: r.Period, Limit: r.Limit})
	if err != nil {
		return 0, time.Time{}, err
	}
	count := lc.Limit - lc.Remaining
	if lc.Reached {
		count = lc.Limit + 1
	}
	return count, time.Unix(lc.Reset+1, 0), nil
}

// redisCounter creates its ulule Redis store on first use, because ulule's
// constructor loads its Lua scripts and so needs Redis up: the bridge must
// start (and fail open or closed as configured) while Redis is down. After
// any failure it stops contacting Redis for cooldown and fails fast, so an
// outage costs one slow request (a dial or a read timeout) per cooldown, not
// one per request.
type redisCounter struct {
	client   *redis.Client
	prefix   string
	cooldown time.Duration

	mu      sync.Mutex
	inner   *ululeCounter
	nextTry time.Time
}

// errRedisCooldown is returned while the counter waits out a failure.
var errRedisCooldown = errors.New("ratelimit: redis failed recently; not retried until the cooldown ends")

func (c *redisCounter) hit(ctx context.Context, k *key, r Rate, now time.Time) (int64, time.Time, error) {
	inner, err := c.store(ctx)
	if err != nil {
		return 0, time.Time{}, err
	}
	count, reset, err := inner.hit(ctx, k, r, now)
	if err != nil && ctx.Err() == nil {
		c.mu.Lock()
		c.nextTry = time.Now().Add(c.cooldown)
		c.mu.Unlock()
		return 0, time.Time{}, fmt.Errorf("ratelimit: redis: %w", err)
	}
	return count, reset, err
}

func (c *redisCounter) store(ctx context.Context) (*ululeCounter, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	if now.Before(c.nextTry) {
		return nil, errRedisCooldown
	}
	if c.inner != nil {
		return c.inner, nil
	}
	st, err := redisstore.NewStoreWithOptions(c.client, limiter.StoreOptions{Prefix: c.prefix})
	if err != nil {
		if ctx.Err() == nil {
			c.nextTry = now.Add(c.cooldown)
		}
		return nil, fmt.Errorf("ratelimit: redis: loading scripts: %w", err)
	}
	c.inner = &ululeCounter{store: st}
	return c.inner, nil
}

// newRedisClient builds a client for the limiter: short timeouts, because a
// limit decision waits on it, and one retry, for a pooled connection that a
// Redis restart left dead.
func newRedisClient(rawURL string) (*redis.Client, error) {
	o, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("ratelimit: redis: not a valid redis://, rediss:// or unix:// URL")
	}
	if o.DialTimeout == 0 {
		o.DialTimeout = time.Second
	}
	if o.ReadTimeout == 0 {
		o.ReadTimeout = 500 * time.Millisecond
	}
	if o.WriteTimeout == 0 {
		o.WriteTimeout = 500 * time.Millisecond
	}
	if o.MaxRetries == 0 {
		o.MaxRetries = 1
	}
	if o.DialerRetries == 0 {
		o.DialerRetries = 1 // the cooldown in redisCounter does the retrying
	}
	o.DisableIdentity = true // no CLIENT SETINFO round trip on every new connection
	return redis.NewClient(o), nil
}

// PingRedis reports whether the Redis server at rawURL answers a PING
// (bounded by ctx and the limiter's short timeouts). The error never
// carries the URL's password.
func PingRedis(ctx context.Context, rawURL string) error {
	c, err := newRedisClient(rawURL)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("ratelimit: redis: %w", err)
	}
	return nil
}
