package gateway

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"google.golang.org/grpc/credentials"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/a2agrpc"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// The A2A gRPC binding (server.grpc): one lf.a2a.v1.A2AService for every
// agent the bridge serves, told apart by the requests' tenant (the agent's
// name, as its card's GRPC interface says). A call takes the agent's own
// hop chain: its audiences, the same authentication (from the call's
// metadata), limits, policy and owner scoping as JSON-RPC.

// grpcTargets are the agents reachable over gRPC, by name; a fronted
// agent's target is looked up at each call (its card may not be loaded,
// or it may be taken out).
type grpcTargets struct {
	mu     sync.RWMutex
	byName map[string]func() (*a2agrpc.Target, error)
}

func (g *grpcTargets) set(name string, f func() (*a2agrpc.Target, error)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.byName == nil {
		g.byName = map[string]func() (*a2agrpc.Target, error){}
	}
	g.byName[name] = f
}

func (g *grpcTargets) remove(name string) {
	g.mu.Lock()
	delete(g.byName, name)
	g.mu.Unlock()
}

func (g *grpcTargets) get(name string) func() (*a2agrpc.Target, error) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.byName[name]
}

// grpcTarget is a served agent's target with its hop chain.
func (b *Bridge) grpcTarget(srv *server.Server, aud []string) *a2agrpc.Target {
	return &a2agrpc.Target{Server: srv, Authenticate: b.hops.ForAudience(aud).A2AContext}
}

// buildGRPC builds the binding's server when server.grpc is enabled.
func (b *Bridge) buildGRPC() error {
	g := b.cfg.Server.GRPC
	if !g.Enabled {
		return nil
	}
	addr, err := grpcPublicAddress(b.publicURL, g)
	if err != nil {
		return err
	}
	b.grpcAddr = addr
	gcfg := a2agrpc.Config{
		Resolve:      b.resolveGRPC,
		MaxRecvBytes: int(g.MaxRecvMessageBytes), MaxSendBytes: int(g.MaxSendMessageBytes),
		MaxUnaryDuration: g.MaxUnaryDuration.D(),
		Keepalive: a2agrpc.Keepalive{
			Time: g.KeepaliveTime.D(), Timeout: g.KeepaliveTimeout.D(), MinPingInterval: g.MinPingInterval.D(),
			MaxConnectionIdle: g.MaxConnectionIdle.D(), MaxConnectionAge: g.MaxConnectionAge.D(), MaxConnectionAgeGrace: g.MaxConnectionAgeGrace.D(),
		},
		ConnectionTimeout: b.cfg.Server.ReadHeaderTimeout.D(),
		Logger:            b.log,
	}
	if g.CertFile != "" {
		creds, err := credentials.NewServerTLSFromFile(g.CertFile, g.KeyFile)
		if err != nil {
			return fmt.Errorf("gateway: server.grpc: load the TLS certificate: %w", err)
		}
		gcfg.TLS = creds
	}
	if b.grpc, err = a2agrpc.New(gcfg); err != nil {
		return fmt.Errorf("gateway: server.grpc: %w", err)
	}
	return nil
}

// grpcPublicAddress is the host:port the cards' GRPC interfaces name.
func grpcPublicAddress(publicURL string, g config.GRPC) (string, error) {
	public, listen := g.PublicAddress, g.Listen
	if public != "" {
		return public, nil
	}
	u, err := url.Parse(publicURL)
	if err != nil || u.Hostname() == "" {
		return "", errors.New("gateway: server.grpc: public_url names no host: set server.grpc.public_address")
	}
	port := u.Port()
	if listen != "" {
		_, p, err := net.SplitHostPort(listen)
		if err != nil {
			return "", fmt.Errorf("gateway: server.grpc.listen: %w", err)
		}
		port = p
	}
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(u.Hostname(), port), nil
}

// GRPC is the gRPC binding's server, nil unless server.grpc is enabled.
func (b *Bridge) GRPC() *a2agrpc.Server { return b.grpc }

// GRPCOwnListener reports whether the binding has a listener of its own
// (server.grpc.listen); else it is served on the main one.
func (b *Bridge) GRPCOwnListener() bool { return b.grpc != nil && b.cfg.Server.GRPC.Listen != "" }

// withGRPC adds the agent's GRPC interface to a card it builds, when the
// binding is served.
func (b *Bridge) withGRPC(c *a2a.AgentCard, name string) *a2a.AgentCard {
	if b.grpc == nil || c == nil {
		return c
	}
	c.SupportedInterfaces = append(c.SupportedInterfaces, a2a.AgentInterface{
		URL: b.grpcAddr, ProtocolBinding: a2a.BindingGRPC, Tenant: name, ProtocolVersion: a2a.ProtocolVersion,
	})
	return c
}

// resolveGRPC is the agent a call's tenant names: the agent of that name,
// or, for an empty tenant, the agent the root card describes.
func (b *Bridge) resolveGRPC(_ context.Context, tenant string) (*a2agrpc.Target, error) {
	if tenant == "" {
		switch pa, fa := b.rootAgent(); {
		case pa != nil:
			tenant = pa.name
		case fa != nil:
			tenant = fa.name
		}
		if tenant == "" {
			return nil, a2a.ErrInvalidParams.With("the request names no agent: set tenant to the agent's name (its card's GRPC interface gives it)")
		}
	}
	f := b.grpcTargets.get(tenant)
	if f == nil {
		return nil, a2a.ErrInvalidParams.Withf("no agent %q is served here", clipHeader(tenant))
	}
	return f()
}

// serveGRPC serves gRPC calls that reach the main listener.
func (b *Bridge) serveGRPC(w http.ResponseWriter, r *http.Request) {
	if !a2agrpc.IsGRPC(r) {
		http.NotFound(w, r)
		return
	}
	b.grpc.ServeHTTP(w, r)
}

// buildGRPCClients builds the connectors of the upstreams' gRPC
// interfaces.
func (b *Bridge) buildGRPCClients(ngcfg netguard.Config) error {
	var err error
	if b.frontGRPC, err = a2agrpc.NewConnector(a2agrpc.ConnectorConfig{Dial: netguard.TrustedDialer(ngcfg)}); err != nil {
		return fmt.Errorf("gateway: %w", err)
	}
	if b.exposeGRPC, err = a2agrpc.NewConnector(a2agrpc.ConnectorConfig{Dial: b.guard.DialContext, MaxRecvBytes: exposeMaxBodyBytes}); err != nil {
		return fmt.Errorf("gateway: %w", err)
	}
	return nil
}

// canonicalBinding is a configured binding name as cards spell it.
func canonicalBinding(s string) string {
	switch strings.ToUpper(s) {
	case "JSONRPC":
		return a2a.BindingJSONRPC
	case "HTTP+JSON":
		return a2a.BindingHTTPJSON
	case "GRPC":
		return a2a.BindingGRPC
	}
	return ""
}

// grpcPath reports whether p is a path of the gRPC service.
func grpcPath(p string) bool { return strings.HasPrefix(p, a2agrpc.PathPrefix) }
