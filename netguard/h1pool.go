//go:build !bridge_noh1pool

package netguard

import (
	"context"
	"crypto/tls"
	"net"

	"github.com/a2a-mcp-bridge/bridge/netguard/internal/h1pool"
)

// h1PoolBuilt reports whether this binary has the HTTP/1.1 pool of
// [Config.HTTP1Direct]; the build tag bridge_noh1pool leaves it out.
const h1PoolBuilt = true

// newDirect builds the transport of a client with HTTP1Direct: h1pool,
// on the same dialer, TLS roots, timeouts and header cap as newTransport.
func newDirect(cfg Config, dial func(ctx context.Context, network, address string) (net.Conn, error)) baseTransport {
	return h1pool.New(h1pool.Options{
		Dial:                  dial,
		TLSConfig:             &tls.Config{RootCAs: cfg.RootCAs, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:   cfg.TLSHandshakeTimeout,
		ResponseHeaderTimeout: cfg.ResponseHeaderTimeout,
		IdleTimeout:           idleConnTimeout,
		MaxIdlePerHost:        cfg.MaxIdleConnsPerHost,
		MaxIdle:               4 * cfg.MaxIdleConnsPerHost,
		MaxHeaderBytes:        maxResponseHeaderBytes,
	})
}
