package netguard

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"syscall"
	"time"
)

// Guard builds and polices the client used for untrusted destinations. It is
// safe for concurrent use once created.
type Guard struct {
	cfg    Config
	policy policy
	client *http.Client
	// dial is the checked dialer of client (DialContext).
	dial func(ctx context.Context, network, address string) (net.Conn, error)

	// connectHook, when set (tests only), runs after the policy allowed a
	// connection and before the connect system call; an error aborts it.
	connectHook func(network, address string) error
}

// New validates cfg, applies defaults and returns a Guard. The error lists
// every problem in cfg.
func New(cfg Config) (*Guard, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.UnsafeAllow = slices.Clone(cfg.UnsafeAllow)
	cfg.Ports = slices.Clone(cfg.Ports)
	cfg = cfg.withDefaults()
	g := &Guard{cfg: cfg, policy: policy{allow: cfg.UnsafeAllow, ports: cfg.Ports}}
	dialer := &net.Dialer{Timeout: cfg.DialTimeout, KeepAlive: 30 * time.Second, Control: g.control}
	g.dial = resolvingDialer(dialer, cfg.Resolver)
	g.client = &http.Client{
		Transport: &roundTripper{
			base:    newBase(cfg, g.dial),
			check:   g.checkRequestURL,
			maxBody: cfg.MaxBodyBytes,
		},
		CheckRedirect: redirectPolicy(cfg.MaxRedirects, g.checkRequestURL),
		Timeout:       cfg.Timeout,
	}
	return g, nil
}

// NewClient is New(cfg) followed by [Guard.Client].
func NewClient(cfg Config) (*http.Client, error) {
	g, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return g.Client(), nil
}

// Client returns the SSRF-safe client described in the package doc. Every
// call returns the same client, so connections are pooled.
func (g *Guard) Client() *http.Client { return g.client }

// CheckAddrPort applies the connect-time address and port policy to ap.
func (g *Guard) CheckAddrPort(ap netip.AddrPort) error { return g.policy.checkAddrPort(ap) }

// control is the net.Dialer.Control hook: it sees the literal address of
// every connection attempt after resolution and before connect.
func (g *Guard) control(network, address string, _ syscall.RawConn) error {
	if err := g.policy.checkConnect(network, address); err != nil {
		return err
	}
	if g.connectHook != nil {
		return g.connectHook(network, address)
	}
	return nil
}

// Trusted returns a client for destinations the operator named in the config.
// It does no address, port or URL policy check beyond requiring http or https,
// but it never uses a proxy from the environment, applies cfg's timeouts and
// body cap (a negative Timeout or MaxBodyBytes disables that limit, for
// streams) and refuses redirects unless cfg.MaxRedirects is positive. Keep
// MaxRedirects at 0 unless the upstream is known to redirect: a followed
// redirect leaves the operator's list and its target is not address-checked.
// UnsafeAllow, AllowHTTP and Ports are ignored. Invalid values fall back to
// their defaults; a MaxRedirects above [MaxRedirectsLimit] is clamped to it.
// Each call builds a new connection pool: build the client once per
// destination set and reuse it.
func Trusted(cfg Config) *http.Client {
	cfg = cfg.withDefaults()
	cfg.MaxRedirects = min(max(cfg.MaxRedirects, 0), MaxRedirectsLimit)
	dialer := &net.Dialer{Timeout: cfg.DialTimeout, KeepAlive: 30 * time.Second}
	timeout := cfg.Timeout
	if timeout < 0 {
		timeout = 0
	}
	return &http.Client{
		Transport: &roundTripper{
			base:    newBase(cfg, resolvingDialer(dialer, cfg.Resolver)),
			check:   checkSchemeOnly,
			maxBody: cfg.MaxBodyBytes,
		},
		CheckRedirect: redirectPolicy(cfg.MaxRedirects, checkSchemeOnly),
		Timeout:       timeout,
	}
}

// baseTransport is what roundTripper wraps: net/http's transport or the
// HTTP/1.1 pool of internal/h1pool.
type baseTransport interface {
	http.RoundTripper
	CloseIdleConnections()
}

// newBase builds the transport cfg asks for, dialing through dial.
func newBase(cfg Config, dial func(ctx context.Context, network, address string) (net.Conn, error)) baseTransport {
	if cfg.HTTP1Direct {
		return newDirect(cfg, dial)
	}
	return newTransport(cfg, dial)
}

// Limits of both transports (net/http's and h1pool's).
const (
	// maxResponseHeaderBytes caps the bytes of one response's headers.
	maxResponseHeaderBytes = 64 << 10
	// idleConnTimeout is how long an unused connection stays pooled.
	idleConnTimeout = 90 * time.Second
)

// newTransport builds the transport shared by both clients. Proxy is nil on
// purpose: never from the environment.
func newTransport(cfg Config, dial func(ctx context.Context, network, address string) (net.Conn, error)) *http.Transport {
	return &http.Transport{
		Proxy:                  nil,
		DialContext:            dial,
		TLSClientConfig:        &tls.Config{RootCAs: cfg.RootCAs, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    cfg.TLSHandshakeTimeout,
		ResponseHeaderTimeout:  cfg.ResponseHeaderTimeout,
		ExpectContinueTimeout:  time.Second,
		IdleConnTimeout:        idleConnTimeout,
		MaxIdleConns:           4 * cfg.MaxIdleConnsPerHost,
		MaxIdleConnsPerHost:    cfg.MaxIdleConnsPerHost,
		MaxResponseHeaderBytes: maxResponseHeaderBytes,
		ForceAttemptHTTP2:      true,
	}
}

// resolvingDialer resolves names through r and dials each address in turn as
// a literal, so the dialer's Control sees exactly the address connected to.
// A resolver error is a network failure, not a policy refusal.
func resolvingDialer(d *net.Dialer, r Resolver) func(ctx context.Context, network, address string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		host, portStr, err := net.SplitHostPort(address)
		if err != nil {
			return nil, fmt.Errorf("netguard: dial %s: %w", network, err)
		}
		if _, err := netip.ParseAddr(host); err == nil {
			return d.DialContext(ctx, network, address)
		}
		lookupNet := "ip"
		switch network {
		case "tcp4":
			lookupNet = "ip4"
		case "tcp6":
			lookupNet = "ip6"
		}
		addrs, err := r.LookupNetIP(ctx, lookupNet, host)
		if err != nil {
			return nil, fmt.Errorf("netguard: resolve %q: %w", host, err)
		}
		if len(addrs) == 0 {
			return nil, fmt.Errorf("netguard: resolve %q: no addresses", host)
		}
		var errs []error
		for _, a := range addrs {
			conn, err := d.DialContext(ctx, network, net.JoinHostPort(a.String(), portStr))
			if err == nil {
				return conn, nil
			}
			errs = append(errs, err)
			if ctx.Err() != nil {
				break
			}
		}
		return nil, errors.Join(errs...)
	}
}

// redirectPolicy refuses redirects when limit is 0 and otherwise follows at
// most limit of them, checking each hop's URL with check.
func redirectPolicy(limit int, check func(*http.Request) error) func(*http.Request, []*http.Request) error {
	if limit == 0 {
		return refuseRedirects
	}
	return func(req *http.Request, via []*http.Request) error {
		if len(via) > limit {
			return &BlockedError{Reason: ReasonRedirect, Host: req.URL.Hostname(), Detail: fmt.Sprintf("stopped after %d redirects", limit)}
		}
		return check(req)
	}
}

// roundTripper checks each request's URL before sending it and caps the
// response body.
type roundTripper struct {
	base    baseTransport
	check   func(*http.Request) error
	maxBody int64
}

var _ http.RoundTripper = (*roundTripper)(nil)

// RoundTrip implements [http.RoundTripper].
func (t *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.check(req); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil || t.maxBody < 0 || resp.Body == nil || resp.Body == http.NoBody {
		return resp, err
	}
	if resp.ContentLength > t.maxBody && req.Method != http.MethodHead {
		resp.Body.Close()
		return nil, &BodyTooLargeError{Limit: t.maxBody}
	}
	resp.Body = &cappedBody{rc: resp.Body, left: t.maxBody, limit: t.maxBody}
	return resp, nil
}

// CloseIdleConnections closes the pooled connections of the wrapped
// transport, so http.Client.CloseIdleConnections works.
func (t *roundTripper) CloseIdleConnections() { t.base.CloseIdleConnections() }

func checkSchemeOnly(req *http.Request) error {
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return &BlockedError{Reason: ReasonScheme, Detail: "scheme must be http or https"}
	}
	return nil
}
