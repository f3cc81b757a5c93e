package netguard

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"time"
)

// Dialers for protocols that dial by themselves (gRPC): the same
// connections the HTTP clients make, without an HTTP request around them.

// DialContext connects to address (host:port) as the guarded client does:
// a name is resolved once and every address it resolves to is checked,
// with its port, by the connect-time policy just before the connection is
// made, so that a name rebound between a check and the connection (DNS
// rebinding) reaches nothing the policy refuses. The URL-level rules
// (scheme, host names that are refused without DNS) are checked first, on
// a URL naming address.
func (g *Guard) DialContext(ctx context.Context, address string) (net.Conn, error) {
	scheme := "https"
	if g.cfg.AllowHTTP {
		scheme = "http" // the port policy then admits what AllowHTTP does
	}
	if _, err := g.target(&url.URL{Scheme: scheme, Host: address}); err != nil {
		return nil, err
	}
	return g.dial(ctx, "tcp", address)
}

// AllowsHTTP reports whether guarded destinations may be reached in clear
// text (Config.AllowHTTP).
func (g *Guard) AllowsHTTP() bool { return g.cfg.AllowHTTP }

// TrustedDialer dials destinations the operator named in the config, as
// Trusted's client does: no address policy, cfg's dial timeout and
// resolver.
func TrustedDialer(cfg Config) func(ctx context.Context, address string) (net.Conn, error) {
	cfg = cfg.withDefaults()
	d := resolvingDialer(&net.Dialer{Timeout: cfg.DialTimeout, KeepAlive: 30 * time.Second}, cfg.Resolver)
	return func(ctx context.Context, address string) (net.Conn, error) {
		conn, err := d(ctx, "tcp", address)
		if err != nil {
			return nil, fmt.Errorf("netguard: dial %s: %w", address, err)
		}
		return conn, nil
	}
}
