// Package ratelimit counts requests per hop and says when a caller is over its
// quota. Rules come from the limits section of the config; each counts hops
// per distinct value of some hop fields (principal, tool, ...) in fixed
// windows, either in this process or in Redis shared by every replica
// (ulule/limiter's Redis store). The most restrictive rule decides.
//
// The package never writes response bodies: WriteHeaders sets the
// RateLimit, RateLimit-Policy and Retry-After headers and the caller answers
// 429 (or 503 for an unreachable store) in its own protocol's error format.
// IPLimiter is a separate, in-process limit per client address meant to run
// before authentication, so that a flood of bad tokens cannot reach token
// verification.
//
// Windows are fixed, as in ulule/limiter: a window opens at a key's first
// request and lasts one period, so a caller can pass up to twice the quota
// across a window boundary. Addresses are taken from request.Hop.RemoteIP (or
// the string given to IPLimiter), which the caller must fill from the
// connection, never from X-Forwarded-For or similar request headers unless a
// trusted proxy set them; IPv6 addresses are counted per /64.
package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/a2a-mcp-bridge/bridge/request"
)

// Matcher decides whether a rule's When condition holds for a hop. The
// gateway adapts policy.Condition to it.
type Matcher interface {
	Match(hop request.Hop) (bool, error)
}

// CompileFunc compiles a When expression into a Matcher. It is called once
// per rule, when the Limiter is built.
type CompileFunc func(expr string) (Matcher, error)

// MatcherFunc adapts a function to Matcher.
type MatcherFunc func(hop request.Hop) (bool, error)

// Match calls f.
func (f MatcherFunc) Match(hop request.Hop) (bool, error) { return f(hop) }

var _ Matcher = MatcherFunc(nil)

// Sentinel errors, matched with errors.Is on the error Allow returns.
var (
	// ErrLimited: a rule's quota is used up; answer 429.
	ErrLimited = errors.New("ratelimit: rate limit exceeded")
	// ErrUnavailable: the Redis store could not be reached and the config
	// says to fail closed; answer 503.
	ErrUnavailable = errors.New("ratelimit: limit store unavailable")
)

// LimitError is the error Allow returns when it refuses a hop. It carries
// the Result for WriteHeaders and wraps ErrLimited or ErrUnavailable.
type LimitError struct {
	// Result is the deciding outcome; Result.Allowed is false.
	Result Result
	cause  error
}

// Error names the rule and when to retry; it carries no caller identity.
func (e *LimitError) Error() string {
	if e.Result.Rule == "" {
		return e.cause.Error()
	}
	return fmt.Sprintf("%s: rule %q", e.cause.Error(), e.Result.Rule)
}

// Unwrap returns ErrLimited or ErrUnavailable.
func (e *LimitError) Unwrap() error { return e.cause }

// StatusCode is the HTTP status for the refusal: 429 when over a limit, 503
// when the store is unavailable.
func (e *LimitError) StatusCode() int {
	if errors.Is(e.cause, ErrUnavailable) {
		return http.StatusServiceUnavailable
	}
	return http.StatusTooManyRequests
}

// Result is the outcome of one Allow call: the most restrictive of the
// rules that counted the hop. When no rule counted it, Allowed is true and
// Rule is empty (WriteHeaders then writes nothing).
type Result struct {
	// Allowed reports whether the hop may proceed.
	Allowed bool
	// Limit is the deciding rule's quota per window.
	Limit int64
	// Remaining is how many more requests the window allows (0 when denied).
	Remaining int64
	// Reset is when the deciding rule's window ends.
	Reset time.Time
	// Window is the deciding rule's window length.
	Window time.Duration
	// Rule is the deciding rule's name.
	Rule string
	// Policy is the deciding rule's RateLimit-Policy member, e.g.
	// `"per-principal";q=60;w=60`.
	Policy string
}

// Option configures New.
type Option func(*options)

type options struct {
	compile     CompileFunc
	reg         prometheus.Registerer
	log         *slog.Logger
	logInterval time.Duration
	now         func() time.Time
	prefix      string
	maxKeys     int
	counter     counter // tests only
}

// WithCompiler sets how When conditions are compiled. Required when any rule
// has a When; New fails without it rather than ignore the condition.
func WithCompiler(c CompileFunc) Option { return func(o *options) { o.compile = c } }

// WithRegisterer registers the limiter's metrics with reg:
// bridge_ratelimit_hits_total{rule} (refusals per rule) and
// bridge_ratelimit_store_errors_total. Collectors already registered by an
// earlier Limiter (a reload) are reused. Default: not registered.
func WithRegisterer(reg prometheus.Registerer) Option { return func(o *options) { o.reg = reg } }

// WithLogger sets the logger for store outages and failing conditions.
// Default: slog.Default().
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

// WithLogInterval sets how often, at most, an ongoing outage is logged.
// Default: one minute.
func WithLogInterval(d time.Duration) Option { return func(o *options) { o.logInterval = d } }

// WithClock sets the clock of the in-process store. Default: the wall clock
// at start advanced by the monotonic clock (one clock read per check instead
// of time.Now's two). The Redis store keeps time in Redis and ignores it.
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// WithKeyPrefix sets the prefix of Redis keys, so that several bridges (or
// tests) can share one Redis. Default: "bridge:ratelimit".
func WithKeyPrefix(p string) Option { return func(o *options) { o.prefix = p } }

// WithMaxKeys bounds the in-process store. Default: DefaultMaxKeys.
func WithMaxKeys(n int) Option { return func(o *options) { o.maxKeys = n } }

type rule struct {
	name   string
	fields []Field
	rate   Rate
	when   Matcher
	policy string
	hits   prometheus.Counter
}

// Limiter applies the configured rules. It is safe for concurrent use.
type Limiter struct {
	rules       []rule
	counter     counter
	failClosed  bool
	now         func() time.Time
	storeErrors prometheus.Counter
	storeLog    throttledLog
	condLog     throttledLog
	close       func() error
}

// New validates cfg, compiles When conditions and opens the store (Redis is
// contacted lazily: a Redis that is down at start is an outage, not a
// startup failure).
func New(cfg Config, opts ...Option) (*Limiter, error) {
	if errs := cfg.Validate(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	o := options{logInterval: time.Minute, now: monoNow, prefix: "bridge:ratelimit"}
	for _, opt := range opts {
		opt(&o)
	}
	if o.log == nil {
		o.log = slog.Default()
	}
	hits, storeErrors, err := newMetrics(o.reg)
	if err != nil {
		return nil, err
	}
	l := &Limiter{
		now:         o.now,
		failClosed:  cfg.OnRedisError == RedisFailClosed,
		storeErrors: storeErrors,
		storeLog:    throttledLog{log: o.log, interval: o.logInterval},
		condLog:     throttledLog{log: o.log, interval: o.logInterval},
		close:       func() error { return nil },
	}
	for i, rc := range cfg.Rules {
		r := rule{name: rc.DisplayName(), rate: MustParseRate(rc.Rate)}
		for _, f := range rc.Per {
			r.fields = append(r.fields, Field(f))
		}
		if rc.When != "" {
			if o.compile == nil {
				return nil, fmt.Errorf("ratelimit: rules[%d].when: no condition compiler configured (WithCompiler)", i)
			}
			m, err := o.compile(rc.When)
			if err != nil {
				return nil, fmt.Errorf("ratelimit: rules[%d].when: %w", i, err)
			}
			r.when = m
		}
		r.policy = policyMember(r.name, r.rate)
		r.hits = hits.WithLabelValues(r.name)
		l.rules = append(l.rules, r)
	}
	switch {
	case o.counter != nil:
		l.counter = o.counter
	case cfg.Redis != "":
		client, err := newRedisClient(cfg.Redis)
		if err != nil {
			return nil, err
		}
		l.counter = &redisCounter{client: client, prefix: o.prefix, cooldown: time.Second}
		l.close = client.Close
	default:
		l.counter = newMemStore(o.maxKeys)
	}
	return l, nil
}

// Close releases the Redis connections, if any.
func (l *Limiter) Close() error { return l.close() }

// Allow counts hop under every rule whose When holds and that has values
// for all its fields, and returns the most restrictive outcome: a refusal
// over any acceptance; among refusals the one that lifts last; among
// acceptances the one with the fewest requests left. Every applicable rule
// is counted, even when an earlier one already refuses.
//
// A refusal returns a *LimitError wrapping ErrLimited (answer 429) or, when
// Redis is unreachable and the config fails closed, ErrUnavailable (answer
// 503). When Redis is unreachable and the config fails open, the rules kept
// in Redis are skipped and the hop is allowed. Store errors are counted in
// bridge_ratelimit_store_errors_total and logged at most once per interval.
// If ctx ends while Redis is being asked, Allow returns ctx's error, wrapped,
// and the caller should stop serving the request.
func (l *Limiter) Allow(ctx context.Context, hop request.Hop) (Result, error) {
	var (
		best Result
		have bool
		k    key
	)
	now := l.now()
	for i := range l.rules {
		r := &l.rules[i]
		if r.when != nil {
			ok, err := r.when.Match(hop)
			if err != nil {
				l.condLog.report(now, "ratelimit: condition failed; counting the hop", "rule", r.name, "error", err)
				ok = true
			}
			if !ok {
				continue
			}
		}
		if !k.build(r.name, r.fields, &hop) {
			continue
		}
		count, reset, err := l.hit(ctx, &k, r.rate, now)
		if err != nil && ctx.Err() != nil {
			// The caller gave up; that says nothing about the store.
			return Result{}, fmt.Errorf("ratelimit: %w", ctx.Err())
		}
		if err != nil {
			l.storeErrors.Inc()
			mode := "open"
			if l.failClosed {
				mode = "closed"
			}
			l.storeLog.report(now, "ratelimit: limit store unreachable", "fail", mode, "error", err)
			if l.failClosed {
				res := Result{Reset: now.Add(time.Second), Rule: r.name}
				return res, &LimitError{Result: res, cause: ErrUnavailable}
			}
			break // the other rules share the store: do not wait on it again
		}
		res := Result{
			Allowed:   count <= r.rate.Limit,
			Limit:     r.rate.Limit,
			Remaining: max(0, r.rate.Limit-count),
			Reset:     reset,
			Window:    r.rate.Period,
			Rule:      r.name,
			Policy:    r.policy,
		}
		if !res.Allowed {
			r.hits.Inc()
		}
		if !have || moreRestrictive(res, best) {
			best, have = res, true
		}
	}
	if !have {
		return Result{Allowed: true}, nil
	}
	if !best.Allowed {
		return best, &LimitError{Result: best, cause: ErrLimited}
	}
	return best, nil
}

// hit calls the counter. The in-process store is called directly so that k
// stays on the caller's stack (no allocation per check); other counters get
// a heap copy, since an interface call makes its arguments escape.
func (l *Limiter) hit(ctx context.Context, k *key, r Rate, now time.Time) (int64, time.Time, error) {
	if ms, ok := l.counter.(*memStore); ok {
		return ms.hit(ctx, k, r, now)
	}
	kc := new(key)
	*kc = *k
	return l.counter.hit(ctx, kc, r, now)
}

// clockBase anchors monoNow; it carries a monotonic reading.
var clockBase = time.Now()

// monoNow is time.Now without the wall-clock read: the start time plus the
// monotonic time elapsed since. Its results carry a monotonic reading, so
// Reset.Sub(time.Now()) stays right across wall-clock steps.
func monoNow() time.Time { return clockBase.Add(time.Since(clockBase)) }

func moreRestrictive(a, b Result) bool {
	if a.Allowed != b.Allowed {
		return !a.Allowed
	}
	if !a.Allowed {
		return a.Reset.After(b.Reset)
	}
	if a.Remaining != b.Remaining {
		return a.Remaining < b.Remaining
	}
	return a.Reset.After(b.Reset)
}

func newMetrics(reg prometheus.Registerer) (*prometheus.CounterVec, prometheus.Counter, error) {
	hits := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bridge_ratelimit_hits_total",
		Help: "Requests refused by a rate-limit rule, per rule.",
	}, []string{"rule"})
	storeErrors := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "bridge_ratelimit_store_errors_total",
		Help: "Rate-limit checks that could not reach the limit store (Redis).",
	})
	if reg == nil {
		return hits, storeErrors, nil
	}
	if err := reg.Register(hits); err != nil {
		are, ok := errors.AsType[prometheus.AlreadyRegisteredError](err)
		if !ok {
			return nil, nil, fmt.Errorf("ratelimit: registering metrics: %w", err)
		}
		if hits, ok = are.ExistingCollector.(*prometheus.CounterVec); !ok {
			return nil, nil, fmt.Errorf("ratelimit: registering metrics: bridge_ratelimit_hits_total has another type")
		}
	}
	if err := reg.Register(storeErrors); err != nil {
		are, ok := errors.AsType[prometheus.AlreadyRegisteredError](err)
		if !ok {
			return nil, nil, fmt.Errorf("ratelimit: registering metrics: %w", err)
		}
		if storeErrors, ok = are.ExistingCollector.(prometheus.Counter); !ok {
			return nil, nil, fmt.Errorf("ratelimit: registering metrics: bridge_ratelimit_store_errors_total has another type")
		}
	}
	return hits, storeErrors, nil
}

// throttledLog logs one line per interval at most, with the number of
// events it kept quiet about since the last line.
type throttledLog struct {
	log        *slog.Logger
	interval   time.Duration
	last       atomic.Int64 // unix nanoseconds of the last line; 0: never
	suppressed atomic.Int64
}

func (t *throttledLog) report(now time.Time, msg string, args ...any) {
	n := now.UnixNano()
	last := t.last.Load()
	if last != 0 && n-last < int64(t.interval) || !t.last.CompareAndSwap(last, n) {
		t.suppressed.Add(1)
		return
	}
	args = append(args, "suppressed", t.suppressed.Swap(0))
	t.log.Warn(msg, args...)
}

// policyMember is the RateLimit-Policy list member for a rule.
func policyMember(name string, r Rate) string {
	return sfString(name) + ";q=" + strconv.FormatInt(r.Limit, 10) + ";w=" + strconv.FormatInt(int64(r.Period/time.Second), 10)
}
