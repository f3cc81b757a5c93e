//go:build bridge_noh1pool

package netguard

import (
	"context"
	"net"
)

// h1PoolBuilt reports whether this binary has the HTTP/1.1 pool of
// [Config.HTTP1Direct]; the build tag bridge_noh1pool leaves it out.
const h1PoolBuilt = false

// newDirect is, without the pool, net/http's transport: HTTP1Direct then
// changes nothing.
func newDirect(cfg Config, dial func(ctx context.Context, network, address string) (net.Conn, error)) baseTransport {
	return newTransport(cfg, dial)
}
