package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/a2a-mcp-bridge/bridge/request"
)

// redisURL returns BRIDGE_TEST_REDIS_URL or skips the test.
func redisURL(tb testing.TB) string {
	tb.Helper()
	u := os.Getenv("BRIDGE_TEST_REDIS_URL")
	if u == "" {
		tb.Skip("BRIDGE_TEST_REDIS_URL is not set; set it (e.g. redis://127.0.0.1:6379/0) to run the Redis store tests")
	}
	return u
}

// redisPrefix returns a key prefix unique to this test and deletes its keys
// when the test ends.
func redisPrefix(tb testing.TB, url string) string {
	tb.Helper()
	prefix := fmt.Sprintf("bridge-test:ratelimit:%s:%d", tb.Name(), time.Now().UnixNano())
	tb.Cleanup(func() {
		o, err := redis.ParseURL(url)
		if err != nil {
			tb.Error(err)
			return
		}
		c := redis.NewClient(o)
		defer c.Close()
		ctx := context.Background()
		iter := c.Scan(ctx, 0, prefix+":*", 100).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
		if err := iter.Err(); err != nil {
			tb.Errorf("cleaning up %s: %v", prefix, err)
		}
	})
	return prefix
}

// TestRedisReplicasShareCounts runs two Limiters, as two replicas would,
// against one Redis: their counts add up.
func TestRedisReplicasShareCounts(t *testing.T) {
	url := redisURL(t)
	prefix := redisPrefix(t, url)
	cfg := Config{Rules: []Rule{{Per: Fields{"principal"}, Rate: "4/m"}}, Redis: url, OnRedisError: RedisFailClosed}
	var replicas [2]*Limiter
	for i := range replicas {
		l, err := New(cfg, WithKeyPrefix(prefix))
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		replicas[i] = l
	}
	ctx := context.Background()
	hop := request.Hop{Principal: alice}
	for i := 0; i < 4; i++ {
		res, err := replicas[i%2].Allow(ctx, hop)
		if err != nil {
			t.Fatalf("call %d on replica %d: %v", i+1, i%2, err)
		}
		if res.Remaining != int64(3-i) {
			t.Fatalf("call %d on replica %d: remaining %d, want %d (counts not shared)", i+1, i%2, res.Remaining, 3-i)
		}
		if d := time.Until(res.Reset); d <= 0 || d > time.Minute+time.Second {
			t.Fatalf("call %d: reset in %v, want within the 1 m window", i+1, d)
		}
	}
	for i, l := range replicas {
		res, err := l.Allow(ctx, hop)
		if !errors.Is(err, ErrLimited) || res.Allowed || res.Remaining != 0 {
			t.Fatalf("replica %d after 4 shared calls: %+v, %v; want ErrLimited", i, res, err)
		}
	}
	// Another principal has its own count in the same Redis.
	if _, err := replicas[0].Allow(ctx, request.Hop{Principal: bob}); err != nil {
		t.Fatalf("bob: %v", err)
	}
	// The key is readable and carries no more than the rule and the principal.
	o, _ := redis.ParseURL(url)
	c := redis.NewClient(o)
	defer c.Close()
	n, err := c.Get(ctx, prefix+":per-principal|p25:https://idp.example|alice").Int64()
	if err != nil || n != 6 {
		t.Fatalf("redis key for alice: %d, %v; want 6", n, err)
	}
}

// TestRedisConcurrentHitsNeverExceedLimit runs two replicas from several
// goroutines against one key: exactly Limit calls pass.
func TestRedisConcurrentHitsNeverExceedLimit(t *testing.T) {
	url := redisURL(t)
	prefix := redisPrefix(t, url)
	cfg := Config{Rules: []Rule{{Per: Fields{"principal"}, Rate: "50/h"}}, Redis: url, OnRedisError: RedisFailClosed}
	var (
		wg      sync.WaitGroup
		allowed atomic.Int64
		failed  atomic.Int64
	)
	for r := 0; r < 2; r++ {
		l, err := New(cfg, WithKeyPrefix(prefix))
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 25; i++ {
					_, err := l.Allow(context.Background(), request.Hop{Principal: alice})
					switch {
					case err == nil:
						allowed.Add(1)
					case !errors.Is(err, ErrLimited):
						failed.Add(1)
					}
				}
			}()
		}
	}
	wg.Wait()
	if failed.Load() != 0 || allowed.Load() != 50 {
		t.Fatalf("%d of 200 calls allowed (%d store errors), want exactly 50", allowed.Load(), failed.Load())
	}
}
