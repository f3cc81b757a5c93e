package auth

import (
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// IPLimiter is a token bucket per client IP, bounded in the number of IPs it
// tracks. The Chain consults it before verifying a token it has not cached,
// so a flood of fresh tokens (e.g. random kids) costs the flooder its budget,
// not the IdP a JWKS fetch each.
type IPLimiter struct {
	rate  float64 // tokens per second
	burst float64
	max   int
	now   func() time.Time

	mu sync.Mutex
	m  map[netip.Addr]*ipBucket
}

type ipBucket struct {
	tokens float64
	last   time.Time
}

// NewIPLimiter allows burst verifications at once and rate per second after,
// per IP, tracking at most maxClients IPs. now may be nil (time.Now).
func NewIPLimiter(rate float64, burst, maxClients int, now func() time.Time) *IPLimiter {
	if rate <= 0 {
		rate = DefaultIPRate
	}
	if burst <= 0 {
		burst = DefaultIPBurst
	}
	if maxClients <= 0 {
		maxClients = DefaultIPClients
	}
	if now == nil {
		now = time.Now
	}
	return &IPLimiter{rate: rate, burst: float64(burst), max: maxClients, now: now, m: make(map[netip.Addr]*ipBucket)}
}

// Allow takes one token for ip. When none is left it returns false and how
// long until one is.
func (l *IPLimiter) Allow(ip netip.Addr) (bool, time.Duration) {
	ip = ipKey(ip)
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.m[ip]
	if b == nil {
		if len(l.m) >= l.max {
			l.evictLocked(now)
		}
		b = &ipBucket{tokens: l.burst, last: now}
		l.m[ip] = b
	} else {
		b.tokens = min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rate)
		b.last = now
	}
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	wait := time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
	return false, max(wait, time.Second)
}

// evictLocked drops buckets that have refilled (they hold no state a fresh
// bucket would not), and if none has, an arbitrary one.
func (l *IPLimiter) evictLocked(now time.Time) {
	full := time.Duration(l.burst / l.rate * float64(time.Second))
	for k, b := range l.m {
		if now.Sub(b.last) >= full {
			delete(l.m, k)
		}
	}
	if len(l.m) >= l.max {
		for k := range l.m {
			delete(l.m, k)
			break
		}
	}
}

// ipKey groups IPv6 clients by /64 (one host usually holds a whole /64).
func ipKey(ip netip.Addr) netip.Addr {
	ip = ip.Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.Addr()
	}
	return ip
}

// RemoteIP is the default client-IP function: the peer address of the
// connection. Forwarded headers are not trusted.
func RemoteIP(r *http.Request) netip.Addr {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, _ := netip.ParseAddr(host)
	return ip
}
