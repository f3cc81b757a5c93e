package ratelimit

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ulule/limiter/v3"
	"github.com/ulule/limiter/v3/drivers/store/memory"

	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// The benchmarks check one hop against one rule per principal with a quota
// large enough never to refuse. 1024 principals rotate so map lookups are
// not all on one hot key.

var benchRule = Rule{Per: Fields{"principal"}, Rate: "1000000000/d"}

func benchHops() []request.Hop {
	hops := make([]request.Hop, 1024)
	for i := range hops {
		hops[i] = request.Hop{Principal: &request.Principal{Issuer: "https://idp.example", Subject: "user-" + strconv.Itoa(i), Method: "oidc"}, Tool: "search", RemoteIP: "192.0.2.7"}
	}
	return hops
}

func runAllow(b *testing.B, l *Limiter) {
	hops := benchHops()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	start := bridgetest.ProcessCPU()
	for i := 0; i < b.N; i++ {
		if _, err := l.Allow(ctx, hops[i&1023]); err != nil {
			b.Fatal(err)
		}
	}
	bridgetest.ReportCPUPerOp(b, start)
}

func runAllowParallel(b *testing.B, l *Limiter) {
	hops := benchHops()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	start := bridgetest.ProcessCPU()
	defer bridgetest.ReportCPUPerOp(b, start)
	var worker atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		i := int(worker.Add(1)) * 509 // workers start on different keys
		for pb.Next() {
			if _, err := l.Allow(ctx, hops[i&1023]); err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
}

func benchLimiter(b *testing.B, cfg Config, opts ...Option) *Limiter {
	b.Helper()
	l, err := New(cfg, opts...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = l.Close() })
	return l
}

// BenchmarkAllowMemory is the in-process store the bridge uses without Redis.
func BenchmarkAllowMemory(b *testing.B) {
	runAllow(b, benchLimiter(b, Config{Rules: []Rule{benchRule}}))
}

func BenchmarkAllowMemoryParallel(b *testing.B) {
	runAllowParallel(b, benchLimiter(b, Config{Rules: []Rule{benchRule}}))
}

// BenchmarkAllowMemoryTwoRules adds a per-principal-per-tool rule.
func BenchmarkAllowMemoryTwoRules(b *testing.B) {
	runAllow(b, benchLimiter(b, Config{Rules: []Rule{benchRule, {Per: Fields{"principal", "tool"}, Rate: "1000000000/d"}}}))
}

// BenchmarkAllowUluleMemory is the same check on ulule/limiter's memory
// store, the baseline the in-process store replaces.
func BenchmarkAllowUluleMemory(b *testing.B) {
	st := memory.NewStoreWithOptions(limiter.StoreOptions{Prefix: "bench", CleanUpInterval: time.Minute})
	runAllow(b, benchLimiter(b, Config{Rules: []Rule{benchRule}}, func(o *options) { o.counter = &ululeCounter{store: st} }))
}

func BenchmarkAllowUluleMemoryParallel(b *testing.B) {
	st := memory.NewStoreWithOptions(limiter.StoreOptions{Prefix: "bench", CleanUpInterval: time.Minute})
	runAllowParallel(b, benchLimiter(b, Config{Rules: []Rule{benchRule}}, func(o *options) { o.counter = &ululeCounter{store: st} }))
}

// BenchmarkAllowRedis is one Lua call per check over loopback.
func BenchmarkAllowRedis(b *testing.B) {
	url := redisURL(b)
	runAllow(b, benchLimiter(b, Config{Rules: []Rule{benchRule}, Redis: url, OnRedisError: RedisFailClosed}, WithKeyPrefix(redisPrefix(b, url))))
}

func BenchmarkAllowRedisParallel(b *testing.B) {
	url := redisURL(b)
	runAllowParallel(b, benchLimiter(b, Config{Rules: []Rule{benchRule}, Redis: url, OnRedisError: RedisFailClosed}, WithKeyPrefix(redisPrefix(b, url))))
}

func BenchmarkIPLimiter(b *testing.B) {
	l, err := NewIPLimiter(MustParseRate("1000000000/d"))
	if err != nil {
		b.Fatal(err)
	}
	ips := make([]string, 1024)
	for i := range ips {
		ips[i] = "198.18." + strconv.Itoa(i>>8) + "." + strconv.Itoa(i&0xff)
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := bridgetest.ProcessCPU()
	for i := 0; i < b.N; i++ {
		if !l.Allow(ips[i&1023]) {
			b.Fatal("refused")
		}
	}
	bridgetest.ReportCPUPerOp(b, start)
}
