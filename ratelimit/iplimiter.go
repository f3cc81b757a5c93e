package ratelimit

import (
	"fmt"
	"time"
)

// IPLimiter limits requests per client address before authentication, so
// that a flood of requests with bad or random tokens is cut off before
// token verification (and the JWKS refetch a random kid causes). It is
// in-process only, fixed-window, and bounded in memory (WithMaxKeys;
// default DefaultMaxKeys, about 60 MiB at worst). IPv6 addresses are counted
// per /64. It is safe for concurrent use.
type IPLimiter struct {
	rate   Rate
	store  *memStore
	now    func() time.Time
	policy string
}

// ipRuleName names the pre-authentication limit in headers.
const ipRuleName = "per-ip"

// NewIPLimiter returns a limiter allowing r per client address. Of the
// options only WithClock and WithMaxKeys apply.
func NewIPLimiter(r Rate, opts ...Option) (*IPLimiter, error) {
	if !r.valid() {
		return nil, fmt.Errorf("ratelimit: ip limit: invalid rate %s: want 1 to %d requests per s, m, h or d", r, MaxRateLimit)
	}
	o := options{now: monoNow}
	for _, opt := range opts {
		opt(&o)
	}
	return &IPLimiter{rate: r, store: newMemStore(o.maxKeys), now: o.now, policy: policyMember(ipRuleName, r)}, nil
}

// Allow counts one request from ip (an address without port, as in
// request.Hop.RemoteIP) and reports whether it is within the limit.
func (l *IPLimiter) Allow(ip string) bool {
	return l.Check(ip).Allowed
}

// Check is Allow with the full Result, for WriteHeaders on a refusal.
func (l *IPLimiter) Check(ip string) Result {
	var k key
	k.rule = ipRuleName
	k.add(ipPart(labelIP, ip))
	count, end := l.store.add(k.hash(l.store.seed), l.rate.Period, l.now().UnixNano())
	return Result{
		Allowed:   count <= l.rate.Limit,
		Limit:     l.rate.Limit,
		Remaining: max(0, l.rate.Limit-count),
		Reset:     time.Unix(0, end),
		Window:    l.rate.Period,
		Rule:      ipRuleName,
		Policy:    l.policy,
	}
}
