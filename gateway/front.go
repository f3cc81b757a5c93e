package gateway

import (
	"context"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/a2agrpc"
	"github.com/a2a-mcp-bridge/bridge/a2a/card"
	a2afront "github.com/a2a-mcp-bridge/bridge/a2a/front"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/gateway/health"
	"github.com/a2a-mcp-bridge/bridge/gateway/observability"
	"github.com/a2a-mcp-bridge/bridge/gateway/upstream"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
	mcpfront "github.com/a2a-mcp-bridge/bridge/mcp/front"
	"github.com/a2a-mcp-bridge/bridge/netguard"
	"github.com/a2a-mcp-bridge/bridge/policy"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// stateKeyLabel is the HKDF info from which each fronted agent's state key
// is derived (with the agent's name appended), so that upstream task
// mappings survive restarts as long as the signing key does.
const stateKeyLabel = "a2a-mcp-bridge front.a2a state key v1 "

// fronted is the running front section: fronted A2A agents and the MCP
// servers aggregated behind the MCP face.
type fronted struct {
	agents  []*frontedAgent
	servers []frontedServer
	// sources are the MCP face's extra tool sources (nil without front.mcp).
	sources []endpoint.ToolSource
	mcp     *mcpfront.Source
}

// frontedAgent is one front.a2a entry: mounted at once, served once its
// card has been fetched (and verified when the file requires it), and
// taken out while a refreshed card fails verification.
type frontedAgent struct {
	name string
	base string
	cfg  a2afront.Config
	aud  []string // front.a2a[].audience (nil: the issuers' own)
	// builtin, when set, is the agent served in process in place of a
	// proxy (front.a2a[].builtin): no card to fetch, nothing to monitor.
	builtin *builtinAgent

	handler atomic.Pointer[http.Handler]   // nil until the card is loaded
	px      atomic.Pointer[a2afront.Proxy] // nil until the card is loaded
	out     atomic.Pointer[string]         // why it is taken out, nil while served

	mu  sync.Mutex
	mgr *taskmanager.Manager
	srv *server.Server
}

// proxy is the agent's proxy, nil until its card is loaded.
func (fa *frontedAgent) proxy() *a2afront.Proxy { return fa.px.Load() }

// takeOut stops serving the agent (its card failed verification): every
// request is answered AGENT_UNAVAILABLE until bringBack.
func (fa *frontedAgent) takeOut(reason string) {
	if fa.out.Swap(&reason) == nil {
		fa.cfg.Logger.Error("fronted agent taken out: its card failed verification", "reason", reason)
	}
}

// bringBack serves the agent again after takeOut.
func (fa *frontedAgent) bringBack() {
	if fa.out.Swap(nil) != nil {
		fa.cfg.Logger.Info("fronted agent back: its card verifies again")
	}
}

// frontedServer is one front.mcp entry, connected.
type frontedServer struct {
	name string
	conn *connector.Conn
}

// buildFront builds the front section: fronted A2A agents at /a2a/{name}
// (not in MCPOnly mode) and the fronted MCP servers' tool source, which
// buildExpose adds to the MCP face (built whenever the face is, so that a
// reload can add servers).
func (b *Bridge) buildFront(ctx context.Context, opts Options) error {
	cfg := b.cfg
	if len(cfg.Front.MCP) > 0 || len(cfg.Expose.Agents) > 0 {
		if err := b.buildFrontMCP(ctx); err != nil {
			return err
		}
	}
	if opts.MCPOnly {
		return nil
	}
	for i := range cfg.Front.A2A {
		fa, err := b.frontAgent(fmt.Sprintf("front.a2a[%d]", i), &cfg.Front.A2A[i])
		if err != nil {
			return err
		}
		b.startFront(ctx, fa)
	}
	return nil
}

// startFront mounts a fronted agent, tries to load its card now and
// leaves the rest (retries, refreshes) to its monitor.
func (b *Bridge) startFront(ctx context.Context, fa *frontedAgent) {
	b.upMu.Lock()
	b.front.agents = append(b.front.agents, fa)
	b.upMu.Unlock()
	b.routes.set(fa.name, fa)
	b.grpcTargets.set(fa.name, func() (*a2agrpc.Target, error) { return b.frontTarget(fa) })
	b.health.Add(health.KindFrontA2A, fa.name)
	err := b.connectFront(ctx, fa)
	if fa.builtin != nil {
		if err != nil {
			b.log.Error("built-in agent not served", "agent", fa.name, "err", err)
		}
		b.reportFront(fa, err)
		return
	}
	if err != nil {
		b.log.Warn("fronted agent not reachable yet; retrying in the background", "agent", fa.name, "err", netguard.RedactURL(err))
	}
	b.reportFront(fa, err)
	b.monitors.Add(b.frontMonitor(fa))
}

// frontAgent turns one front.a2a entry (where names it in errors) into a
// proxy configuration.
func (b *Bridge) frontAgent(where string, a *config.FrontedAgent) (*frontedAgent, error) {
	where = "gateway: " + where
	if a.Builtin != "" {
		ba, err := newBuiltinAgent(a.Builtin)
		if err != nil {
			return nil, fmt.Errorf("%s.builtin: %w", where, err)
		}
		return &frontedAgent{name: a.Name, base: b.publicURL + "/a2a/" + a.Name, aud: a.Audience, builtin: ba,
			cfg: a2afront.Config{Name: a.Name, Logger: b.log.With("agent", a.Name)}}, nil
	}
	pc := a2afront.Config{
		CardURL: upstream.CardURL(a.URL), HTTPClient: b.frontHC, CredentialHosts: a.CredentialHosts,
		Binding: canonicalBinding(a.Binding), GRPC: b.frontGRPC.Factory(strings.HasPrefix(upstream.CardURL(a.URL), "http://")),
		CardTTLMin: b.cfg.Health.CardRefreshMin.D(), CardTTLMax: b.cfg.Health.CardRefreshMax.D(),
		Name: a.Name, Logger: b.log.With("agent", a.Name),
	}
	if a.Credentials.Configured() {
		// Token endpoints are named in the file: the trusted client. Only
		// a configured credential restricts the hosts the card may name.
		creds, err := auth.NewCredentials(a.Credentials, b.trusted)
		if err != nil {
			return nil, fmt.Errorf("%s.credentials: %w", where, err)
		}
		pc.Credentials = creds
	}
	var err error
	if pc.Verify, err = b.frontVerification(a.Card); err != nil {
		return nil, fmt.Errorf("%s.card: %w", where, err)
	}
	if pc.StateKey, err = b.frontStateKey(a.Name); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return &frontedAgent{name: a.Name, base: b.publicURL + "/a2a/" + a.Name, cfg: pc, aud: a.Audience}, nil
}

// frontVerification converts the card section; nil when nothing is to be
// verified (no keys, no trusted jku host, no signature required).
func (b *Bridge) frontVerification(cv config.CardVerification) (*a2afront.CardVerification, error) {
	if !cv.RequireSignature && cv.Keys == "" && len(cv.TrustedJKUHosts) == 0 {
		return nil, nil
	}
	// jku URLs come from the card: the guarded client.
	fetcher, err := card.NewHTTPFetcher(b.guard.Client(), card.FetchOptions{})
	if err != nil {
		return nil, err
	}
	v := &a2afront.CardVerification{Options: cv.VerifyOptions(fetcher)}
	switch {
	case strings.HasPrefix(cv.Keys, "https://"):
		// The JWKS URL is named in the file: the trusted client.
		rk, err := card.NewRemoteJWKS(cv.Keys, b.trusted, card.FetchOptions{})
		if err != nil {
			return nil, fmt.Errorf("keys: %w", err)
		}
		v.Keys = rk
	case cv.Keys != "":
		sk, err := card.LoadJWKSFile(cv.Keys)
		if err != nil {
			return nil, fmt.Errorf("keys: %w", err)
		}
		v.Keys = sk
	}
	return v, nil
}

// frontStateKey derives the agent's 32-byte state key from the signing key
// file (HKDF-SHA-256 over its PKCS#8 bytes, the agent's name in the label).
// Without a signing key it returns nil: the proxy then uses a random key
// and mappings do not survive a restart.
func (b *Bridge) frontStateKey(agent string) ([]byte, error) {
	path := b.cfg.Keys.Signing
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("derive the state key: read keys.signing: %w", err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("derive the state key: keys.signing holds no PEM block")
	}
	k, err := hkdf.Key(sha256.New, block.Bytes, nil, stateKeyLabel+agent, 32)
	if err != nil {
		return nil, fmt.Errorf("derive the state key: %w", err)
	}
	return k, nil
}

// connectFront fetches (and verifies) the upstream card, then builds the
// agent's manager and server and starts serving it.
// A built-in agent (fa.builtin) is served the same way, its executor in
// place of the proxy.
func (b *Bridge) connectFront(ctx context.Context, fa *frontedAgent) error {
	var px *a2afront.Proxy
	var exec taskmanager.Executor
	dir := request.DirFrontA2A
	if fa.builtin != nil {
		skills := map[string]bool{}
		for _, sk := range fa.builtin.card(fa.base).Skills {
			skills[sk.ID] = true
		}
		exec = &observability.SkillCounting{Executor: fa.builtin.exec, Agent: fa.name, HasSkill: func(id string) bool { return skills[id] }, M: b.metrics}
		dir = request.DirLocal
	} else {
		var err error
		if px, err = a2afront.New(ctx, fa.cfg); err != nil {
			return netguard.RedactURL(err)
		}
		exec = &observability.SkillCounting{Executor: px, Agent: fa.name, HasSkill: px.HasSkill, M: b.metrics}
	}
	mgr, err := taskmanager.New(taskmanager.Config{Store: b.store, Executor: exec, OnEvent: b.taskEvents(fa.name), Logger: b.log.With("agent", fa.name), LeaseTTL: b.cfg.Tasks.LeaseTTL.D()})
	if err != nil {
		return fmt.Errorf("gateway: front.a2a %s: %w", fa.name, err)
	}
	signed, err := b.sign(b.withGRPC(b.frontCard(fa, px), fa.name))
	if err != nil {
		return fmt.Errorf("gateway: front.a2a %s: %w", fa.name, err)
	}
	srv, err := b.agentServer(fa.name, mgr, signed, b.hops.A2AGuard(fa.name, dir))
	if err != nil {
		return fmt.Errorf("gateway: front.a2a %s: %w", fa.name, err)
	}
	fa.mu.Lock()
	fa.mgr, fa.srv = mgr, srv
	fa.mu.Unlock()
	h := b.hops.ForAudience(fa.aud).ProtectA2A(srv)
	if px == nil {
		fa.handler.Store(&h)
		b.log.Info("built-in agent served", "agent", fa.name)
		return nil
	}
	fa.px.Store(px)
	fa.handler.Store(&h)
	if res := px.Verification(); res.Status != 0 {
		b.log.Info("fronted agent card loaded", "agent", fa.name, "verification", res.Status.String(), "kid", res.KeyID)
	} else {
		b.log.Info("fronted agent card loaded", "agent", fa.name)
	}
	return nil
}

// resignFront signs the card built from px's changed upstream card and
// serves it.
func (b *Bridge) resignFront(fa *frontedAgent, px *a2afront.Proxy) error {
	signed, err := b.sign(b.withGRPC(b.frontCard(fa, px), fa.name))
	if err != nil {
		return err
	}
	fa.mu.Lock()
	srv := fa.srv
	fa.mu.Unlock()
	return srv.SetCard(signed)
}

// frontCard is the card the bridge serves for a fronted agent, before
// signing: built from px's upstream card, or a built-in agent's own.
func (b *Bridge) frontCard(fa *frontedAgent, px *a2afront.Proxy) *a2a.AgentCard {
	if fa.builtin == nil {
		return px.Card(fa.base, b.cfg.Push.Enabled)
	}
	c := fa.builtin.card(fa.base)
	c.Capabilities.PushNotifications = a2a.Ptr(b.cfg.Push.Enabled)
	return c
}

// ServeHTTP serves the agent once its card is loaded, and answers
// AGENT_UNAVAILABLE in the request's binding (HTTP 503 on the card and
// HTTP+JSON, -32603 on JSON-RPC) before, and while it is taken out.
func (fa *frontedAgent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := fa.handler.Load()
	switch why := fa.out.Load(); {
	case why != nil:
		server.WriteError(w, r, a2a.AgentUnavailable(fa.name, "its card failed verification"))
	case h == nil:
		server.WriteError(w, r, a2a.AgentUnavailable(fa.name, "its card is not loaded yet"))
	default:
		(*h).ServeHTTP(w, r)
	}
}

// frontTarget is the fronted agent's gRPC target once its card is loaded,
// AGENT_UNAVAILABLE before and while it is taken out.
func (b *Bridge) frontTarget(fa *frontedAgent) (*a2agrpc.Target, error) {
	if fa.out.Load() != nil {
		return nil, a2a.AgentUnavailable(fa.name, "its card failed verification")
	}
	fa.mu.Lock()
	srv := fa.srv
	fa.mu.Unlock()
	if srv == nil || fa.handler.Load() == nil {
		return nil, a2a.AgentUnavailable(fa.name, "its card is not loaded yet")
	}
	return b.grpcTarget(srv, fa.aud), nil
}

// buildFrontMCP dials every front.mcp server like a published one and
// builds the aggregated tool source.
func (b *Bridge) buildFrontMCP(ctx context.Context) error {
	var servers []mcpfront.Server
	for i := range b.cfg.Front.MCP {
		m := &b.cfg.Front.MCP[i]
		ucfg, err := b.frontMCPConfig(m)
		if err != nil {
			return fmt.Errorf("gateway: front.mcp[%d]: %w", i, err)
		}
		fs, err := b.openFrontMCP(ctx, m, ucfg)
		if err != nil {
			return fmt.Errorf("gateway: front.mcp[%d] %s: %w", i, m.Name, err)
		}
		servers = append(servers, fs)
	}
	src, err := mcpfront.New(ctx, mcpfront.Config{Servers: servers, Check: b.hops, Logger: b.log})
	if err != nil {
		return fmt.Errorf("gateway: front.mcp: %w", err)
	}
	b.front.mcp = src
	b.front.sources = append(b.front.sources, src)
	return nil
}

// frontMCPConfig converts one front.mcp entry.
func (b *Bridge) frontMCPConfig(m *config.FrontedMCPServer) (connector.Config, error) {
	u, err := upstream.MCP(&config.PublishedServer{Name: m.Name, MCPUpstream: m.MCPUpstream, Credentials: m.Credentials}, b.streams, b.log)
	// A fronted server's questions and sampling requests reach a 2025-era
	// host on every face: stdio (bridge mcp), HTTP sessions
	// (expose.mcp.sessions) and stateless HTTP, where the face asks on the
	// tools/call's own event stream a host that declared the capability at
	// its initialize (endpoint.HostCapabilities). The connection is shared by
	// every host, so it is told it may ask; each call then asks only a host
	// that can answer and refuses the request otherwise (2026-07-28 calls,
	// JSON-only responses, a host whose initialize this process did not see).
	u.NoElicitation, u.NoSampling = false, false
	return u, err
}

// openFrontMCP connects one front.mcp server (a server down now is
// connected in the background) and registers its health.
func (b *Bridge) openFrontMCP(ctx context.Context, m *config.FrontedMCPServer, ucfg connector.Config) (mcpfront.Server, error) {
	ucfg.OnRestart = b.metrics.Restarted("front/" + m.Name)
	ref := &connRef{}
	tools := func() int {
		if c := ref.load(); c != nil {
			return c.Status().Tools
		}
		return 0
	}
	b.connHooks(&ucfg, health.KindFrontMCP, m.Name, ref, tools)
	b.health.Add(health.KindFrontMCP, m.Name)
	conn, err := b.connect(ctx, m.Builtin, ucfg)
	if err != nil {
		b.health.Remove(health.KindFrontMCP, m.Name)
		return mcpfront.Server{}, err
	}
	ref.store(conn)
	b.reportConn(health.KindFrontMCP, m.Name, conn, tools)
	b.monitors.Add(b.connMonitor(health.KindFrontMCP, m.Name, conn, tools))
	b.upMu.Lock()
	b.front.servers = append(b.front.servers, frontedServer{name: m.Name, conn: conn})
	b.upMu.Unlock()
	return mcpfront.Server{Name: m.Name, Prefix: m.ToolPrefix, Upstream: conn}, nil
}

// decider wraps the MCP face's policy so that a fronted server's tool is
// decided under its own name (hop.tool) and server (hop.agent), as the
// source's per-call check decides it, not under its prefixed public name:
// one rule then hides the tool from tools/list and refuses its calls.
func (f *fronted) decider(next endpoint.Decider) endpoint.Decider {
	if f.mcp == nil {
		return next
	}
	return frontDecider{next: next, src: f.mcp}
}

// frontDecider is fronted.decider's result.
type frontDecider struct {
	next endpoint.Decider
	src  *mcpfront.Source
}

var _ endpoint.Decider = frontDecider{}

// Decide implements endpoint.Decider.
func (d frontDecider) Decide(ctx context.Context, hop request.Hop) policy.Decision {
	if hop.Direction == request.DirFrontMCP {
		if server, original, ok := d.src.Lookup(hop.Tool); ok {
			hop.Agent, hop.Tool = server, original
		}
	}
	return d.next.Decide(ctx, hop)
}

// close waits (until ctx ends) for the fronted agents' running tasks and
// closes the MCP connections; mu guards the lists.
func (f *fronted) close(ctx context.Context, mu *sync.Mutex) error {
	mu.Lock()
	servers, agents := f.servers, f.agents
	mu.Unlock()
	for _, fa := range agents {
		fa.mu.Lock()
		mgr := fa.mgr
		fa.mu.Unlock()
		if mgr != nil {
			_ = mgr.Idle(ctx)
		}
	}
	var emu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(func() {
			err := s.conn.Close()
			emu.Lock()
			errs = append(errs, err)
			emu.Unlock()
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
