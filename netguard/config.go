package netguard

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"time"
)

// Defaults applied to zero-valued [Config] fields.
const (
	// DefaultDialTimeout bounds one TCP connection attempt.
	DefaultDialTimeout = 5 * time.Second
	// DefaultTLSHandshakeTimeout bounds the TLS handshake.
	DefaultTLSHandshakeTimeout = 5 * time.Second
	// DefaultResponseHeaderTimeout bounds the wait for response headers after
	// the request was written.
	DefaultResponseHeaderTimeout = 10 * time.Second
	// DefaultTimeout bounds a whole request, body read included.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxBodyBytes caps response bodies (1 MiB).
	DefaultMaxBodyBytes = 1 << 20
	// DefaultMaxIdleConnsPerHost is how many idle connections per host
	// are kept for reuse (four times as many in all).
	DefaultMaxIdleConnsPerHost = 128
	// MaxRedirectsLimit is the largest accepted [Config.MaxRedirects].
	MaxRedirectsLimit = 10
	// MaxURLLength is the longest URL [Guard.CheckURL] and the guarded client
	// accept, in bytes.
	MaxURLLength = 2048
)

// Resolver looks up the addresses of a host name. *net.Resolver satisfies it;
// tests inject a fake to simulate DNS rebinding.
type Resolver interface {
	// LookupNetIP returns the addresses of host. network is "ip", "ip4" or
	// "ip6".
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

var _ Resolver = (*net.Resolver)(nil)

// Config configures a [Guard] and the [Trusted] client. The zero value is the
// safe default: https only, no redirects, ports 443 only, every special range
// refused, default timeouts and body cap.
type Config struct {
	// UnsafeAllow lists prefixes the guard lets through although they fall in
	// a refused range (for tests on loopback, or a sidecar on a private
	// address). Any port is allowed for addresses inside these prefixes.
	// Empty by default. Every entry weakens SSRF protection and is reported by
	// [Config.Warnings]; callers must log those warnings at start.
	// IPv4-mapped IPv6 addresses are unwrapped before matching, so 127.0.0.0/8
	// also admits ::ffff:127.0.0.1; NAT64 and 6to4 forms are not unwrapped.
	UnsafeAllow []netip.Prefix

	// AllowHTTP permits plain http:// URLs (and port 80 when Ports is empty).
	// Default false: untrusted destinations must use https. Tests set it.
	AllowHTTP bool

	// Ports lists the destination ports allowed for addresses outside
	// UnsafeAllow. Empty means 443, plus 80 when AllowHTTP is set.
	Ports []uint16

	// MaxRedirects is how many redirects the guarded client follows; each hop
	// is checked like the first request. Default 0: redirects are refused with
	// a [*BlockedError] of reason [ReasonRedirect]. At most [MaxRedirectsLimit].
	MaxRedirects int

	// DialTimeout bounds each TCP connection attempt. Default
	// [DefaultDialTimeout].
	DialTimeout time.Duration
	// TLSHandshakeTimeout bounds the TLS handshake. Default
	// [DefaultTLSHandshakeTimeout].
	TLSHandshakeTimeout time.Duration
	// ResponseHeaderTimeout bounds the wait for response headers. Default
	// [DefaultResponseHeaderTimeout].
	ResponseHeaderTimeout time.Duration
	// Timeout bounds a whole request including reading the body. Default
	// [DefaultTimeout]. Only [Trusted] accepts a negative value, meaning no
	// overall limit (for long-lived streams whose callers bound them with a
	// context); [New] refuses it.
	Timeout time.Duration
	// MaxBodyBytes caps every response body; reading past it fails with
	// [ErrBodyTooLarge]. Default [DefaultMaxBodyBytes]. Only [Trusted] accepts
	// a negative value, meaning no cap (for streams); [New] refuses it.
	MaxBodyBytes int64
	// MaxIdleConnsPerHost is how many idle connections to one host are
	// kept for reuse. A gateway sends many concurrent calls to few hosts
	// (a fronted agent, a published server): with too few kept, every
	// call beyond them opens a new connection. Default
	// [DefaultMaxIdleConnsPerHost].
	MaxIdleConnsPerHost int

	// Resolver resolves host names, both in [Guard.CheckURL] and when
	// dialing. Default net.DefaultResolver.
	Resolver Resolver

	// RootCAs is the set of roots used to verify servers. Default nil: the
	// system roots.
	RootCAs *x509.CertPool

	// HTTP1Direct replaces net/http's transport with netguard's HTTP/1.1
	// pool (package netguard/internal/h1pool), which speaks HTTP/1.1 only
	// and does each request's I/O on the calling goroutine, without
	// net/http's reader and writer goroutines per connection and their
	// hand-offs per request. It is meant for many short calls to few
	// hosts (a fronted or an exposed agent). Dialing, the address policy,
	// TLS roots, the timeouts and the header cap are the same. Differences:
	// TLS offers only http/1.1 (no HTTP/2), no gzip is asked for, Expect:
	// 100-continue and protocol upgrades are refused, and a pooled
	// connection the server closed is only noticed when a request is
	// written to it (the request is then sent again once on a new
	// connection if its body can be replayed). A binary built with the
	// tag bridge_noh1pool has no pool: the field then changes nothing.
	// Default false: net/http's transport.
	HTTP1Direct bool
}

// Warnings lists, one sentence each, the settings that weaken the guard, for
// the gateway to log at start. It returns nil when there are none.
func (c Config) Warnings() []string {
	var w []string
	for _, p := range c.UnsafeAllow {
		msg := fmt.Sprintf("netguard: UnsafeAllow lets untrusted URLs reach %s on any port; use only for tests or a known sidecar", p)
		if p.Bits() == 0 {
			msg += " (this prefix disables SSRF protection for the whole address family)"
		} else if p.Contains(metadataAddr) {
			msg += " (this prefix includes the cloud metadata address 169.254.169.254)"
		}
		w = append(w, msg)
	}
	if c.AllowHTTP {
		w = append(w, "netguard: AllowHTTP lets untrusted destinations use plain http; responses can be read and altered in transit")
	}
	return w
}

var metadataAddr = netip.AddrFrom4([4]byte{169, 254, 169, 254})

// Validate reports every problem that would make [New] fail, one per line,
// each naming the field and the fix. Zero values are valid.
func (c Config) Validate() error { return c.validate(false) }

// validate returns every problem found in c. trusted relaxes the rules that
// only make sense for the guarded client.
func (c Config) validate(trusted bool) error {
	var errs []error
	for i, p := range c.UnsafeAllow {
		if !p.IsValid() {
			errs = append(errs, fmt.Errorf("netguard: UnsafeAllow[%d]: invalid prefix %q", i, p))
		} else if p != p.Masked() {
			errs = append(errs, fmt.Errorf("netguard: UnsafeAllow[%d]: prefix %s has host bits set; write %s", i, p, p.Masked()))
		}
	}
	for i, port := range c.Ports {
		if port == 0 {
			errs = append(errs, fmt.Errorf("netguard: Ports[%d]: port 0 is not a destination port", i))
		}
	}
	if c.MaxRedirects < 0 || c.MaxRedirects > MaxRedirectsLimit {
		errs = append(errs, fmt.Errorf("netguard: MaxRedirects: want 0..%d, got %d", MaxRedirectsLimit, c.MaxRedirects))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"DialTimeout", c.DialTimeout},
		{"TLSHandshakeTimeout", c.TLSHandshakeTimeout},
		{"ResponseHeaderTimeout", c.ResponseHeaderTimeout},
	} {
		if d.v < 0 {
			errs = append(errs, fmt.Errorf("netguard: %s: must not be negative, got %s", d.name, d.v))
		}
	}
	if !trusted && c.Timeout < 0 {
		errs = append(errs, fmt.Errorf("netguard: Timeout: must not be negative for untrusted destinations, got %s", c.Timeout))
	}
	if !trusted && c.MaxBodyBytes < 0 {
		errs = append(errs, fmt.Errorf("netguard: MaxBodyBytes: must not be negative for untrusted destinations, got %d", c.MaxBodyBytes))
	}
	return errors.Join(errs...)
}

// withDefaults returns c with zero fields replaced by their defaults.
func (c Config) withDefaults() Config {
	if c.DialTimeout <= 0 {
		c.DialTimeout = DefaultDialTimeout
	}
	if c.TLSHandshakeTimeout <= 0 {
		c.TLSHandshakeTimeout = DefaultTLSHandshakeTimeout
	}
	if c.ResponseHeaderTimeout <= 0 {
		c.ResponseHeaderTimeout = DefaultResponseHeaderTimeout
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxBodyBytes == 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.MaxIdleConnsPerHost <= 0 {
		c.MaxIdleConnsPerHost = DefaultMaxIdleConnsPerHost
	}
	if c.Resolver == nil {
		c.Resolver = net.DefaultResolver
	}
	if len(c.Ports) == 0 {
		c.Ports = []uint16{443}
		if c.AllowHTTP {
			c.Ports = append(c.Ports, 80)
		}
	}
	return c
}
