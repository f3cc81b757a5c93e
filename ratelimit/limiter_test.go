package ratelimit

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/a2a-mcp-bridge/bridge/request"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock { return &fakeClock{t: t0} }

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// conditions is a hand-written CompileFunc: each expression names a matcher.
func conditions(expr string) (Matcher, error) {
	switch expr {
	case "tool is search":
		return MatcherFunc(func(h request.Hop) (bool, error) { return h.Tool == "search", nil }), nil
	case "broken at run time":
		return MatcherFunc(func(request.Hop) (bool, error) { return false, errors.New("no such attribute") }), nil
	}
	return nil, errors.New("syntax error")
}

func newTestLimiter(t *testing.T, clock *fakeClock, rules ...Rule) (*Limiter, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	l, err := New(Config{Rules: rules}, WithClock(clock.now), WithCompiler(conditions), WithRegisterer(reg))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l, reg
}

func metricValue(t *testing.T, reg *prometheus.Registry, name string, labels ...string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if labelsMatch(m, labels) {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

func labelsMatch(m *dto.Metric, kv []string) bool {
	for i := 0; i+1 < len(kv); i += 2 {
		found := false
		for _, lp := range m.GetLabel() {
			if lp.GetName() == kv[i] && lp.GetValue() == kv[i+1] {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func TestAllowDeniesAtLimitAndResets(t *testing.T) {
	clock := newClock()
	l, reg := newTestLimiter(t, clock, Rule{Per: Fields{"principal"}, Rate: "3/m"})
	hop := request.Hop{Principal: alice, RemoteIP: "192.0.2.7"}
	ctx := context.Background()

	for i, wantRemaining := range []int64{2, 1, 0} {
		res, err := l.Allow(ctx, hop)
		if err != nil || !res.Allowed {
			t.Fatalf("call %d: %+v, %v; want allowed", i+1, res, err)
		}
		want := Result{Allowed: true, Limit: 3, Remaining: wantRemaining, Reset: t0.Add(time.Minute), Window: time.Minute,
			Rule: "per-principal", Policy: `"per-principal";q=3;w=60`}
		if !res.Reset.Equal(want.Reset) {
			t.Fatalf("call %d: reset %v, want %v", i+1, res.Reset, want.Reset)
		}
		res.Reset = want.Reset
		if res != want {
			t.Fatalf("call %d: %+v, want %+v", i+1, res, want)
		}
		clock.advance(10 * time.Second)
	}

	res, err := l.Allow(ctx, hop)
	var le *LimitError
	if !errors.As(err, &le) || !errors.Is(err, ErrLimited) || le.StatusCode() != 429 {
		t.Fatalf("4th call: err = %v; want *LimitError wrapping ErrLimited with status 429", err)
	}
	if res.Allowed || res.Remaining != 0 || !res.Reset.Equal(t0.Add(time.Minute)) || le.Result != res {
		t.Fatalf("4th call: %+v (error carries %+v)", res, le.Result)
	}
	if got := err.Error(); got != `ratelimit: rate limit exceeded: rule "per-principal"` {
		t.Fatalf("error text %q", got)
	}
	h := make(map[string][]string)
	setHeaders(h, res, clock.now())
	if got := h["Retry-After"]; len(got) != 1 || got[0] != "30" {
		t.Fatalf("Retry-After = %v at 30 s before reset, want 30", got)
	}
	if got := metricValue(t, reg, "bridge_ratelimit_hits_total", "rule", "per-principal"); got != 1 {
		t.Fatalf("hits_total = %v, want 1", got)
	}

	clock.advance(30 * time.Second) // window ends at t0+60s
	res, err = l.Allow(ctx, hop)
	if err != nil || !res.Allowed || res.Remaining != 2 || !res.Reset.Equal(t0.Add(2*time.Minute)) {
		t.Fatalf("after reset: %+v, %v; want allowed with 2 remaining until t0+2m", res, err)
	}
}

func TestAllowKeepsCallersApart(t *testing.T) {
	clock := newClock()
	l, _ := newTestLimiter(t, clock, Rule{Per: Fields{"principal"}, Rate: "1/m"})
	ctx := context.Background()
	hops := []request.Hop{
		{Principal: alice, RemoteIP: "192.0.2.7"},
		{Principal: bob, RemoteIP: "192.0.2.7"},
		{Principal: anon, RemoteIP: "192.0.2.7"},
		{Principal: anon, RemoteIP: "192.0.2.8"},
		{RemoteIP: "2001:db8:1::1"},
	}
	for _, h := range hops {
		if _, err := l.Allow(ctx, h); err != nil {
			t.Fatalf("first call for %v@%s: %v", h.Principal, h.RemoteIP, err)
		}
	}
	for _, h := range hops {
		if _, err := l.Allow(ctx, h); !errors.Is(err, ErrLimited) {
			t.Fatalf("second call for %v@%s: %v; want ErrLimited", h.Principal, h.RemoteIP, err)
		}
	}
	// Another address in the same IPv6 /64 is the same caller.
	if _, err := l.Allow(ctx, request.Hop{RemoteIP: "2001:db8:1::ffff"}); !errors.Is(err, ErrLimited) {
		t.Fatalf("same /64: %v; want ErrLimited", err)
	}
	// Anonymous and unauthenticated callers from one address share a count.
	if _, err := l.Allow(ctx, request.Hop{RemoteIP: "192.0.2.8"}); !errors.Is(err, ErrLimited) {
		t.Fatalf("nil principal after anonymous from the same address: %v; want ErrLimited", err)
	}
}

func TestMostRestrictiveRuleWins(t *testing.T) {
	ctx := context.Background()
	hop := request.Hop{Principal: alice, Tool: "search", RemoteIP: "192.0.2.7"}
	t.Run("fewest remaining among allowed", func(t *testing.T) {
		l, _ := newTestLimiter(t, newClock(),
			Rule{Name: "wide", Per: Fields{"principal"}, Rate: "100/m"},
			Rule{Name: "narrow", Per: Fields{"principal", "tool"}, Rate: "5/s"},
		)
		res, err := l.Allow(ctx, hop)
		if err != nil || res.Rule != "narrow" || res.Remaining != 4 {
			t.Fatalf("%+v, %v; want narrow with 4 remaining", res, err)
		}
	})
	t.Run("refusal beats acceptance", func(t *testing.T) {
		l, reg := newTestLimiter(t, newClock(),
			Rule{Name: "narrow", Per: Fields{"principal", "tool"}, Rate: "1/s"},
			Rule{Name: "wide", Per: Fields{"principal"}, Rate: "100/m"},
		)
		_, _ = l.Allow(ctx, hop)
		res, err := l.Allow(ctx, hop)
		if !errors.Is(err, ErrLimited) || res.Rule != "narrow" || res.Allowed {
			t.Fatalf("%+v, %v; want refusal by narrow", res, err)
		}
		if metricValue(t, reg, "bridge_ratelimit_hits_total", "rule", "wide") != 0 {
			t.Fatal("a rule that allowed was counted as a hit")
		}
	})
	t.Run("among refusals the one lifting last", func(t *testing.T) {
		l, reg := newTestLimiter(t, newClock(),
			Rule{Name: "second", Per: Fields{"principal"}, Rate: "1/s"},
			Rule{Name: "hour", Per: Fields{"principal", "tool"}, Rate: "1/h"},
			Rule{Name: "minute", Per: Fields{"tool"}, Rate: "1/m"},
		)
		_, _ = l.Allow(ctx, hop)
		res, err := l.Allow(ctx, hop)
		if !errors.Is(err, ErrLimited) || res.Rule != "hour" || !res.Reset.Equal(t0.Add(time.Hour)) {
			t.Fatalf("%+v, %v; want refusal by hour", res, err)
		}
		for _, r := range []string{"second", "hour", "minute"} {
			if got := metricValue(t, reg, "bridge_ratelimit_hits_total", "rule", r); got != 1 {
				t.Fatalf("hits_total{rule=%q} = %v, want 1 (every refusing rule counts)", r, got)
			}
		}
	})
}

func TestWhenSelectsRules(t *testing.T) {
	l, _ := newTestLimiter(t, newClock(), Rule{Per: Fields{"principal", "tool"}, When: "tool is search", Rate: "1/s"})
	ctx := context.Background()
	fetch := request.Hop{Principal: alice, Tool: "fetch"}
	for i := 0; i < 3; i++ {
		res, err := l.Allow(ctx, fetch)
		if err != nil || !res.Allowed || res.Rule != "" {
			t.Fatalf("fetch call %d: %+v, %v; want allowed by no rule", i, res, err)
		}
	}
	search := request.Hop{Principal: alice, Tool: "search"}
	if _, err := l.Allow(ctx, search); err != nil {
		t.Fatalf("first search: %v", err)
	}
	if _, err := l.Allow(ctx, search); !errors.Is(err, ErrLimited) {
		t.Fatalf("second search: %v; want ErrLimited", err)
	}
}

func TestFailingConditionCountsTheHop(t *testing.T) {
	var logs bytes.Buffer
	clock := newClock()
	l, err := New(Config{Rules: []Rule{{Per: Fields{"principal"}, When: "broken at run time", Rate: "1/m"}}},
		WithClock(clock.now), WithCompiler(conditions), WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	if err != nil {
		t.Fatal(err)
	}
	hop := request.Hop{Principal: alice}
	_, _ = l.Allow(context.Background(), hop)
	if _, err := l.Allow(context.Background(), hop); !errors.Is(err, ErrLimited) {
		t.Fatalf("err = %v; a condition that fails must still count the hop", err)
	}
	if !strings.Contains(logs.String(), "condition failed") {
		t.Fatalf("no log line for the failing condition: %q", logs.String())
	}
}

func TestNewErrors(t *testing.T) {
	when := []Rule{{Per: Fields{"principal"}, When: "x", Rate: "1/s"}}
	tests := []struct {
		name string
		cfg  Config
		opts []Option
		want string
	}{
		{name: "invalid config", cfg: Config{Rules: []Rule{{Per: Fields{"who"}, Rate: "1/s"}}},
			want: `ratelimit: rules[0].per[0]: unknown field "who": use one of principal, agent, skill, tool, hop, ip, method`},
		{name: "when without compiler", cfg: Config{Rules: when},
			want: "ratelimit: rules[0].when: no condition compiler configured (WithCompiler)"},
		{name: "when does not compile", cfg: Config{Rules: when}, opts: []Option{WithCompiler(conditions)},
			want: "ratelimit: rules[0].when: syntax error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg, tt.opts...)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("New: %v, want %q", err, tt.want)
			}
		})
	}
}

func TestMetricsSurviveReload(t *testing.T) {
	reg := prometheus.NewRegistry()
	cfg := Config{Rules: []Rule{{Per: Fields{"principal"}, Rate: "1/m"}}}
	hop := request.Hop{Principal: alice}
	for i := 0; i < 2; i++ {
		l, err := New(cfg, WithRegisterer(reg))
		if err != nil {
			t.Fatalf("New #%d with the same registerer: %v", i+1, err)
		}
		_, _ = l.Allow(context.Background(), hop)
		_, _ = l.Allow(context.Background(), hop)
	}
	if got := metricValue(t, reg, "bridge_ratelimit_hits_total", "rule", "per-principal"); got != 2 {
		t.Fatalf("hits_total = %v after two limiters refused once each, want 2", got)
	}
}

// TestConcurrentHitsNeverExceedLimit runs many goroutines against one key:
// exactly Limit calls pass.
func TestConcurrentHitsNeverExceedLimit(t *testing.T) {
	l, _ := newTestLimiter(t, newClock(), Rule{Per: Fields{"principal"}, Rate: "100/m"})
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		allowed int
	)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if _, err := l.Allow(context.Background(), request.Hop{Principal: alice}); err == nil {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if allowed != 100 {
		t.Fatalf("%d of 400 concurrent calls allowed, want exactly 100", allowed)
	}
}

func TestMemStoreStaysBounded(t *testing.T) {
	s := newMemStore(256)
	now := t0.UnixNano()
	for i := uint64(0); i < 100_000; i++ {
		s.add(i*0x9E3779B97F4A7C15, time.Hour, now)
	}
	if n := s.len(); n > 256 {
		t.Fatalf("store holds %d counters, bound is 256", n)
	}
}

func TestMemStoreDropsExpiredFirst(t *testing.T) {
	s := newMemStore(64 * 64)
	now := t0.UnixNano()
	// One live key, then enough short-lived keys to force sweeps once they expire.
	live := uint64(7)
	s.add(live, time.Hour, now)
	for i := uint64(1); i <= 10_000; i++ {
		s.add(live+i*memShards, time.Second, now+int64(2*time.Second)*int64(i/10))
	}
	if c, _ := s.add(live, time.Hour, now+int64(time.Minute)); c != 2 {
		t.Fatalf("live counter = %d after sweeps, want 2 (it was evicted instead of expired ones)", c)
	}
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func TestRedisOutage(t *testing.T) {
	for _, mode := range []string{RedisFailOpen, RedisFailClosed} {
		t.Run("fail "+mode, func(t *testing.T) {
			var logs bytes.Buffer
			clock := newClock()
			reg := prometheus.NewRegistry()
			l, err := New(Config{
				Rules:        []Rule{{Per: Fields{"principal"}, Rate: "1/m"}, {Per: Fields{"tool"}, Rate: "1/m"}},
				Redis:        "redis://:hunter2@" + closedPort(t) + "/0",
				OnRedisError: mode,
			}, WithRegisterer(reg), WithClock(clock.now), WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
			if err != nil {
				t.Fatalf("New must succeed while Redis is down: %v", err)
			}
			defer l.Close()
			hop := request.Hop{Principal: alice, Tool: "search"}
			for i := 0; i < 3; i++ {
				res, err := l.Allow(context.Background(), hop)
				if mode == RedisFailOpen {
					if err != nil || !res.Allowed {
						t.Fatalf("call %d: %+v, %v; fail open must allow", i, res, err)
					}
					continue
				}
				var le *LimitError
				if !errors.As(err, &le) || !errors.Is(err, ErrUnavailable) || le.StatusCode() != 503 || res.Allowed {
					t.Fatalf("call %d: %+v, %v; fail closed must refuse with ErrUnavailable (503)", i, res, err)
				}
				h := make(map[string][]string)
				setHeaders(h, res, clock.now())
				if h["Retry-After"][0] != "1" || h["Ratelimit"] != nil {
					t.Fatalf("fail-closed headers %v; want Retry-After: 1 only", h)
				}
			}
			// Three calls, one store error each: the second rule is not tried once the store failed.
			if got := metricValue(t, reg, "bridge_ratelimit_store_errors_total"); got != 3 {
				t.Fatalf("store_errors_total = %v, want 3", got)
			}
			if n := strings.Count(logs.String(), "limit store unreachable"); n != 1 {
				t.Fatalf("outage logged %d times in one interval, want once:\n%s", n, logs.String())
			}
			clock.advance(2 * time.Minute)
			_, _ = l.Allow(context.Background(), hop)
			if n := strings.Count(logs.String(), "limit store unreachable"); n != 2 || !strings.Contains(logs.String(), "suppressed=2") {
				t.Fatalf("after the interval: want a second line reporting 2 suppressed:\n%s", logs.String())
			}
			if strings.Contains(logs.String(), "alice") || strings.Contains(logs.String(), "hunter2") {
				t.Fatalf("outage log names the caller or the Redis password:\n%s", logs.String())
			}
		})
	}
}

// TestFixedWindowAllowsTwiceTheQuotaAcrossABoundary pins a documented
// property of fixed windows: a caller who spends a full quota just before a
// window ends gets a fresh one at once, so up to 2× the quota can pass in a
// span slightly longer than the window's tail.
func TestFixedWindowAllowsTwiceTheQuotaAcrossABoundary(t *testing.T) {
	clock := newClock()
	l, _ := newTestLimiter(t, clock, Rule{Per: Fields{"principal"}, Rate: "5/m"})
	hop := request.Hop{Principal: alice}
	count := func() int {
		n := 0
		for i := 0; i < 10; i++ {
			if _, err := l.Allow(context.Background(), hop); err == nil {
				n++
			}
		}
		return n
	}
	_ = count() // opens the window at t0
	clock.advance(59 * time.Second)
	if got := count(); got != 0 {
		t.Fatalf("%d allowed in the window's last second after the quota was spent, want 0", got)
	}
	clock.advance(time.Second)
	if got := count(); got != 5 {
		t.Fatalf("%d allowed right after the boundary, want a fresh quota of 5", got)
	}
}

func TestAllowReturnsContextErrorNotOutage(t *testing.T) {
	reg := prometheus.NewRegistry()
	l, err := New(Config{Rules: []Rule{{Per: Fields{"principal"}, Rate: "1/m"}}, Redis: "redis://" + closedPort(t), OnRedisError: RedisFailOpen},
		WithRegisterer(reg))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Allow(ctx, request.Hop{Principal: alice}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if got := metricValue(t, reg, "bridge_ratelimit_store_errors_total"); got != 0 {
		t.Fatalf("a cancelled request counted as a store error (%v)", got)
	}
}
