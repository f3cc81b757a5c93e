// Package netguardtest holds helpers for testing code that makes outbound
// requests through netguard: a scripted DNS resolver (for rebinding and
// multi-answer cases), a loopback-only configuration, and a trap that proves
// an environment proxy is never contacted. Nothing here opens a socket on a
// non-loopback address.
package netguardtest

import (
	"context"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// Resolver is a scripted [netguard.Resolver]. Each host has a sequence of
// answers: lookup n returns answer n, and the last answer repeats. Hosts
// without a script get Fallback, or a "no such host" error when Fallback is
// empty. It is safe for concurrent use.
type Resolver struct {
	// Fallback answers hosts that have no script.
	Fallback []netip.Addr

	mu      sync.Mutex
	scripts map[string][][]netip.Addr
	lookups map[string]int
}

var _ netguard.Resolver = (*Resolver)(nil)

// NewResolver returns a Resolver with no scripts and no fallback.
func NewResolver() *Resolver { return &Resolver{} }

// Loopback returns a Resolver that answers every name with 127.0.0.1, like
// smokescreen's integration-test resolver.
func Loopback() *Resolver {
	return &Resolver{Fallback: []netip.Addr{netip.MustParseAddr("127.0.0.1")}}
}

// Set scripts host's answers: the first lookup gets answers[0], the second
// answers[1], and so on; the last one repeats.
func (r *Resolver) Set(host string, answers ...[]netip.Addr) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scripts == nil {
		r.scripts = make(map[string][][]netip.Addr)
	}
	r.scripts[host] = answers
}

// Rebind scripts the DNS-rebinding attack: host resolves to first once, then
// to then on every later lookup.
func (r *Resolver) Rebind(host string, first, then netip.Addr) {
	r.Set(host, []netip.Addr{first}, []netip.Addr{then})
}

// Lookups returns how many times host was looked up.
func (r *Resolver) Lookups(host string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lookups[host]
}

// LookupNetIP implements [netguard.Resolver]. network "ip4" or "ip6" filters
// the answer to that family.
func (r *Resolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r.mu.Lock()
	if r.lookups == nil {
		r.lookups = make(map[string]int)
	}
	n := r.lookups[host]
	r.lookups[host] = n + 1
	answer := r.Fallback
	if script, ok := r.scripts[host]; ok && len(script) > 0 {
		answer = script[min(n, len(script)-1)]
	}
	r.mu.Unlock()

	var out []netip.Addr
	for _, a := range answer {
		switch {
		case network == "ip4" && !a.Unmap().Is4():
		case network == "ip6" && !a.Is6():
		default:
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return out, nil
}

// Config returns a netguard configuration for tests that talk to httptest
// servers: loopback (127.0.0.0/8 and ::1) allowed through UnsafeAllow, plain
// http allowed, short timeouts, and r as the resolver (use [Loopback] to send
// every name to 127.0.0.1).
func Config(r netguard.Resolver) netguard.Config {
	return netguard.Config{
		UnsafeAllow: []netip.Prefix{
			netip.MustParsePrefix("127.0.0.0/8"),
			netip.MustParsePrefix("::1/128"),
		},
		AllowHTTP:             true,
		DialTimeout:           2 * time.Second,
		ResponseHeaderTimeout: 5 * time.Second,
		Timeout:               10 * time.Second,
		Resolver:              r,
	}
}

// ProxyTrap is a loopback TCP listener that counts the connections it
// accepts and closes them at once. Point HTTP_PROXY/HTTPS_PROXY at URL to
// prove a client never uses an environment proxy.
type ProxyTrap struct {
	ln   net.Listener
	hits atomic.Int64
}

// NewProxyTrap starts a trap on 127.0.0.1; it is closed when the test ends.
func NewProxyTrap(tb testing.TB) *ProxyTrap {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("netguardtest: listen: %v", err)
	}
	p := &ProxyTrap{ln: ln}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.hits.Add(1)
			c.Close()
		}
	}()
	tb.Cleanup(func() {
		ln.Close()
		<-done
	})
	return p
}

// URL is the trap's address as a proxy URL.
func (p *ProxyTrap) URL() string { return "http://" + p.ln.Addr().String() }

// Hits is the number of connections accepted so far.
func (p *ProxyTrap) Hits() int64 { return p.hits.Load() }
