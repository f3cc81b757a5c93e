package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/a2agrpc"
	"github.com/a2a-mcp-bridge/bridge/a2a/card"
	"github.com/a2a-mcp-bridge/bridge/a2a/push"
	a2aserver "github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	v03 "github.com/a2a-mcp-bridge/bridge/a2a/v03"
	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/gateway/health"
	"github.com/a2a-mcp-bridge/bridge/gateway/hops"
	"github.com/a2a-mcp-bridge/bridge/gateway/mcptools"
	"github.com/a2a-mcp-bridge/bridge/gateway/observability"
	"github.com/a2a-mcp-bridge/bridge/gateway/reload"
	"github.com/a2a-mcp-bridge/bridge/gateway/upstream"
	"github.com/a2a-mcp-bridge/bridge/hostguard"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
	"github.com/a2a-mcp-bridge/bridge/mcp/expose"
	"github.com/a2a-mcp-bridge/bridge/mcp/publish"
	"github.com/a2a-mcp-bridge/bridge/netguard"
	"github.com/a2a-mcp-bridge/bridge/observe"
	"github.com/a2a-mcp-bridge/bridge/policy"
	"github.com/a2a-mcp-bridge/bridge/ratelimit"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// exposeMaxBodyBytes caps one exposed agent's response (a whole stream).
const exposeMaxBodyBytes = 64 << 20

// JWKSPath is where the public card-verification keys are served.
const JWKSPath = "/.well-known/jwks.json"

// Options are the runtime dependencies of Build. The zero value is usable.
type Options struct {
	// Logger receives every log (default slog.Default()). Wrap its handler
	// in ContextHandler to get request ids on every line.
	Logger *slog.Logger
	// Registry receives every metric and is served at the metrics path
	// (default: a new registry).
	Registry *prometheus.Registry
	// PublicURL overrides cfg.PublicURL (the serve command fills it from the
	// bound address when the file has none).
	PublicURL string
	// Store, if set, is used instead of opening cfg.Store (the caller closes it).
	Store taskmanager.Store
	// DialUpstream connects a published MCP server (default connector.Dial);
	// tests inject connector.InProcess.
	DialUpstream func(ctx context.Context, cfg connector.Config) (*connector.Conn, error)
	// MCPOnly builds only what `bridge mcp` serves: the policy, limits and
	// exposed agents behind the MCP face (no store, no published agents).
	MCPOnly bool
}

// Bridge is the running bridge built from one configuration.
type Bridge struct {
	cfg       *config.Config
	tasks     *observability.TaskCounts // nil: the store does not count its tasks (bridge_tasks, and counter)
	log       *slog.Logger
	reg       *prometheus.Registry
	metrics   *observability.Metrics
	publicURL string

	store      taskmanager.Store
	counter    taskmanager.TaskCounter // the store's task counts, when it keeps them
	closeStore func() error
	guard      *netguard.Guard
	trusted    *http.Client // for destinations named in the file
	chain      *auth.Chain  // as built; authn is the one in use
	authn      reload.Authn
	engine     *policy.Engine
	limiter    *ratelimit.Limiter
	hops       *hops.Chain
	signing    atomic.Pointer[signing] // keys and card security; Reload swaps it
	dispatcher *push.Dispatcher

	agents []*publishedAgent
	front  fronted
	maint  *taskmanager.Maintainer
	tools  *expose.AgentTools
	face   *endpoint.Face

	health   *health.Registry
	monitors *health.Monitors

	// What a reload of the upstream lists needs: the routes of /a2a/, the
	// lists in force, and how upstreams are reached.
	routes   *agentRoutes
	upMu     sync.Mutex // guards agents, front.agents, front.servers, lists
	lists    upstreamLists
	dial     func(ctx context.Context, cfg connector.Config) (*connector.Conn, error)
	streams  *http.Client   // trusted, no overall timeout: MCP servers
	frontHC  *http.Client   // trusted, HTTP/1.1 direct: fronted agents
	retiring sync.WaitGroup // removed upstreams finishing their work

	policy   reload.Policy
	limits   reload.Limits
	reloadMu sync.Mutex
	retired  []*ratelimit.Limiter
	// applied is the configuration in force (the reloadable sections of
	// the last reload, the rest as started); guarded by reloadMu.
	applied *config.Config
	// inForce is applied, readable without reloadMu (the admin view).
	inForce atomic.Pointer[config.Config]
	mcpOnly bool
	// authSums are the sha256 of the JWKS files the chain in use read.
	authSums map[string][32]byte

	// grpc serves the A2A gRPC binding (nil unless server.grpc is
	// enabled); grpcAddr is the address the cards name for it.
	grpc        *a2agrpc.Server
	grpcAddr    string
	grpcTargets grpcTargets
	// frontGRPC and exposeGRPC dial the gRPC interfaces of fronted
	// (trusted dialer: URLs from this file) and exposed agents (netguard).
	frontGRPC, exposeGRPC *a2agrpc.Connector

	handler   http.Handler
	started   time.Time
	closeOnce sync.Once
	// draining is set when the shutdown drain starts (GoingAway).
	draining atomic.Bool
	// ownExposed are the agents of this bridge that expose.agents[].agent
	// names (see exposeClient).
	ownExposed atomic.Pointer[map[string]bool]
}

// publishedAgent is one publish[] entry, running.
type publishedAgent struct {
	name string
	base string
	conn *connector.Conn
	exec *publish.Agent
	mgr  *taskmanager.Manager
	srv  *a2aserver.Server
}

// Build wires every package from cfg: store, netguard, auth chain, policy,
// limits, signing keys, published agents at /a2a/{name}, exposed agents
// behind the MCP face, push delivery, and the operational endpoints. Run
// starts the background jobs; Close releases everything.
func Build(ctx context.Context, cfg *config.Config, opts Options) (_ *Bridge, err error) {
	if cfg == nil {
		return nil, errors.New("gateway: no configuration")
	}
	b := &Bridge{cfg: cfg, applied: cfg, log: opts.Logger, reg: opts.Registry, mcpOnly: opts.MCPOnly, started: time.Now()}
	b.inForce.Store(cfg)
	if b.log == nil {
		b.log = slog.Default()
	}
	if b.reg == nil {
		b.reg = prometheus.NewRegistry()
	}
	defer func() {
		if err != nil {
			b.Close()
		}
	}()
	b.publicURL = strings.TrimRight(opts.PublicURL, "/")
	if b.publicURL == "" {
		b.publicURL = strings.TrimRight(cfg.PublicURL, "/")
	}
	if b.publicURL == "" {
		b.publicURL = "http://" + cfg.Listen
	}
	for _, w := range cfg.Warnings() {
		b.log.Warn(w)
	}
	if b.metrics, err = observability.NewMetrics(b.reg); err != nil {
		return nil, fmt.Errorf("gateway: metrics: %w", err)
	}
	b.initHealth()

	ngcfg, err := cfg.Netguard.Config()
	if err != nil {
		return nil, fmt.Errorf("gateway: netguard: %w", err)
	}
	if b.guard, err = netguard.New(ngcfg); err != nil {
		return nil, fmt.Errorf("gateway: netguard: %w", err)
	}
	// Destinations named in this file (issuers, published servers) use the
	// trusted client: no address policy, no environment proxy, no redirects.
	trusted := netguard.Trusted(ngcfg)
	b.trusted = trusted
	streaming := ngcfg
	streaming.Timeout = -1
	streaming.MaxBodyBytes = -1
	trustedStreams := netguard.Trusted(streaming)
	// Fronted agents take one short call per relayed request: HTTP/1.1
	// with each call's I/O on the calling goroutine, no goroutines per
	// connection (netguard Config.HTTP1Direct).
	agentCalls := streaming
	agentCalls.HTTP1Direct = true

	if !opts.MCPOnly {
		if b.chain, err = auth.New(ctx, cfg.Auth, auth.Options{HTTPClient: trusted, ListenAddr: cfg.Listen}); err != nil {
			return nil, err
		}
		b.recordAuthFiles(cfg)
	}
	if b.engine, err = policy.Compile(cfg.Policy, policy.WithLogger(b.log), policy.WithLogAttrs(observe.ContextAttrs), policy.WithRegisterer(b.reg)); err != nil {
		return nil, err
	}
	if b.limiter, err = ratelimit.New(cfg.Limits, ratelimit.WithCompiler(celCondition),
		ratelimit.WithLogger(b.log), ratelimit.WithRegisterer(b.reg)); err != nil {
		return nil, err
	}
	b.policy.Store(b.engine)
	b.limits.Store(b.limiter)
	b.hops = &hops.Chain{Authz: &b.policy, Limits: &b.limits, Realm: "a2a-mcp-bridge", Log: b.log, Metrics: b.metrics}
	b.signing.Store(&signing{})
	if b.chain != nil {
		b.authn.Store(b.chain)
		b.hops.Authn = &b.authn
		sg := &signing{}
		sg.schemes, sg.reqs = securityOf(b.chain)
		b.signing.Store(sg)
	}

	b.dial = opts.DialUpstream
	if b.dial == nil {
		b.dial = connector.Open
	}
	b.streams, b.frontHC = trustedStreams, netguard.Trusted(agentCalls)
	if err := b.buildGRPCClients(ngcfg); err != nil {
		return nil, err
	}
	b.lists = listsOf(cfg)
	b.routes = newAgentRoutes()
	mux := http.NewServeMux()
	if !opts.MCPOnly {
		if err := b.buildGRPC(); err != nil {
			return nil, err
		}
		if b.grpc != nil && !b.GRPCOwnListener() {
			mux.HandleFunc(a2agrpc.PathPrefix, b.serveGRPC)
		}
		mux.Handle("/a2a/", b.routes)
		// The same routes for /a2a/{name} itself, where A2A calls go: that
		// path matches "/a2a/" only as a prefix, and ServeMux then builds
		// and matches "/a2a/{name}/" in case it should redirect there (two
		// allocations a call); an exact match spares it. (It never
		// redirects here: only "/a2a/" is registered under /a2a/.)
		mux.Handle("/a2a/{agent}", b.routes)
		mux.HandleFunc("GET /.well-known/agent-card.json", b.serveRootCard)
		if err := b.buildA2A(ctx, opts); err != nil {
			return nil, err
		}
	}
	if err := b.buildFront(ctx, opts); err != nil {
		return nil, err
	}
	if len(cfg.Expose.Agents) > 0 || len(cfg.Front.MCP) > 0 {
		if err := b.buildExpose(ctx, mux, opts.MCPOnly); err != nil {
			return nil, err
		}
	}
	b.mountOps(mux)
	door, err := b.frontDoor(mux)
	if err != nil {
		return nil, err
	}
	b.handler = b.metrics.Observe(b.log, func(p string) string { return faceOf(p, cfg.Expose.MCP.Path) }, door)
	b.recordUpstreams()
	return b, nil
}

// frontDoor puts the DNS-rebinding guard (hostguard) in front of every
// route but the operational ones (/healthz, /readyz, metrics: probes and
// scrapers name the bridge as they please, and these carry nothing a page
// could use): a request must name the bridge by one of its names, and a
// browser's Origin must be allowed (server.allowed_origins; on the MCP
// endpoint also expose.mcp.allowed_origins). A2A routes are refused in
// their binding's error form, the others with a 403 JSON body.
func (b *Bridge) frontDoor(mux http.Handler) (http.Handler, error) {
	cfg := b.cfg
	g, err := hostguard.New(hostguard.Config{PublicURL: b.publicURL, Listen: cfg.Listen, Hosts: cfg.Server.AllowedHosts, Origins: cfg.Server.AllowedOrigins})
	if err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	gm, err := g.With(cfg.Expose.MCP.AllowedOrigins...)
	if err != nil {
		return nil, fmt.Errorf("gateway: expose.mcp.allowed_origins: %w", err)
	}
	ops := map[string]bool{"/healthz": true, "/readyz": true}
	if cfg.Observability.MetricsEnabled() {
		ops[cfg.Observability.MetricsPath] = true
	}
	return guarded(mux, g, gm, cfg.Expose.MCP.Path, ops, b.log), nil
}

// guarded is mux behind g (gm on the MCP endpoint and its metadata), the
// ops paths excepted.
func guarded(mux http.Handler, g, gm *hostguard.Guard, mcpPath string, ops map[string]bool, log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.Default()
	}
	mcpMetaPath := endpoint.MetadataPrefix + mcpPath // once, not per request
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if ops[p] {
			mux.ServeHTTP(w, r)
			return
		}
		guard := g
		if p == mcpPath || p == mcpMetaPath {
			guard = gm
		}
		if err := guard.Check(r); err != nil {
			log.Warn("refused a request under a name or from an origin the bridge does not answer to", "host", clipHeader(r.Host), "origin", clipHeader(r.Header.Get("Origin")), "path", clipHeader(p))
			if grpcPath(p) && a2agrpc.IsGRPC(r) {
				a2agrpc.WriteHTTPError(w, a2a.ErrPermissionDenied.With("host or origin not allowed"))
				return
			}
			if strings.HasPrefix(p, "/a2a/") {
				msg := "origin not allowed"
				if errors.Is(err, hostguard.ErrHost) {
					msg = "host not allowed: this bridge does not answer to that name"
				}
				a2aserver.WriteError(w, r, a2a.ErrPermissionDenied.With(msg).WithStatus(http.StatusForbidden))
				return
			}
			hostguard.WriteForbidden(w, r, err)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// clipHeader keeps a header value short and printable for a log line.
func clipHeader(s string) string {
	if len(s) > 128 {
		s = s[:128]
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}

// celCondition plugs policy's CEL conditions into the limiter's `when`.
func celCondition(expr string) (ratelimit.Matcher, error) {
	c, err := policy.CompileCondition(expr)
	if err != nil {
		return nil, err
	}
	return ratelimit.MatcherFunc(c.Eval), nil
}

// buildA2A opens the store, loads the keys and mounts every published agent.
func (b *Bridge) buildA2A(ctx context.Context, opts Options) error {
	cfg := b.cfg
	if opts.Store != nil {
		b.store = opts.Store
	} else {
		st, closeFn, err := OpenStore(ctx, cfg.Store)
		if err != nil {
			return err
		}
		b.store, b.closeStore = st, closeFn
	}
	raw := b.store
	b.store = observability.CountStoreErrors(b.store, b.metrics)
	if err := b.countTasks(raw); err != nil {
		return fmt.Errorf("gateway: metrics: %w", err)
	}
	if b.tasks != nil {
		b.counter = b.tasks // the status page reads the counts bridge_tasks reads
	}
	if err := b.newMaintainer(); err != nil {
		return err
	}
	if err := b.loadKeys(); err != nil {
		return err
	}
	if cfg.Push.Enabled {
		d, err := push.New(push.Config{
			Timeout: cfg.Push.Timeout.D(), MaxAttempts: cfg.Push.MaxAttempts,
			Logger: b.log, Registerer: b.reg,
			// Webhooks registered by A2A 0.3 callers get the 0.3 body.
			LegacyBody: v03.PushBody,
		}, b.store, b.guard)
		if err != nil {
			return fmt.Errorf("gateway: push: %w", err)
		}
		b.dispatcher = d
	}
	for i := range cfg.Publish {
		if err := b.publish(ctx, &cfg.Publish[i]); err != nil {
			return err
		}
	}
	return nil
}

// loadKeys loads the signing keys, or makes an ephemeral one: every card
// the bridge serves is signed.
func (b *Bridge) loadKeys() error {
	ks, jwks, err := b.keySet(b.cfg.Keys, nil)
	if err != nil {
		return err
	}
	sg := *b.signing.Load()
	sg.keys, sg.jwks, sg.ephemeral = ks, jwks, b.cfg.Keys.Signing == ""
	b.signing.Store(&sg)
	return nil
}

// keySet loads the keys k names, and their JWKS. Without a signing key it
// makes an ephemeral one, or keeps prev's ephemeral key (a reload must not
// change a key clients may have fetched).
func (b *Bridge) keySet(k config.Keys, prev *signing) (*card.KeySet, []byte, error) {
	ks := &card.KeySet{JKU: b.publicURL + JWKSPath}
	switch {
	case k.Signing != "":
		key, err := card.LoadSigningKey(k.Signing)
		if err != nil {
			return nil, nil, fmt.Errorf("gateway: keys.signing: %w", err)
		}
		ks.Current = key
	case prev != nil && prev.ephemeral:
		ks.Current = prev.keys.Current
	default:
		pemKey, err := card.GenerateKey(card.ES256)
		if err != nil {
			return nil, nil, fmt.Errorf("gateway: generate an ephemeral signing key: %w", err)
		}
		key, err := card.ParseSigningKey(pemKey)
		if err != nil {
			return nil, nil, fmt.Errorf("gateway: generate an ephemeral signing key: %w", err)
		}
		ks.Current = key
		b.log.Warn("keys.signing is not set: cards are signed with an ephemeral key that changes at every start; clients cannot pin it")
	}
	for i, path := range k.Previous {
		key, err := card.LoadSigningKey(path)
		if err != nil {
			return nil, nil, fmt.Errorf("gateway: keys.previous[%d]: %w", i, err)
		}
		ks.Previous = append(ks.Previous, key)
	}
	jwks, err := ks.JWKS()
	if err != nil {
		return nil, nil, fmt.Errorf("gateway: publish the signing keys: %w", err)
	}
	return ks, jwks, nil
}

// publish connects one MCP server and mounts it as an A2A agent at
// /a2a/{name} (a server down now is connected in the background).
func (b *Bridge) publish(ctx context.Context, p *config.PublishedServer) error {
	ucfg, err := upstream.MCP(p, b.streams, b.log)
	if err != nil {
		return err
	}
	// A2A callers answer questions (INPUT_REQUIRED) but have nothing to
	// sample with: the server is not told it may ask for sampling, which
	// would always fail.
	ucfg.NoSampling = true
	ucfg.OnRestart = b.metrics.Restarted("publish/" + p.Name)
	pa := &publishedAgent{name: p.Name, base: b.publicURL + "/a2a/" + p.Name}
	ref := &connRef{}
	skills := func() int {
		if pa.exec == nil {
			return 0
		}
		return pa.exec.Skills()
	}
	b.connHooks(&ucfg, health.KindPublish, p.Name, ref, skills)
	b.health.Add(health.KindPublish, p.Name)
	conn, err := b.connect(ctx, p.Builtin, ucfg)
	if err != nil {
		b.health.Remove(health.KindPublish, p.Name)
		return fmt.Errorf("gateway: publish[%s]: %w", p.Name, err)
	}
	pa.conn = conn
	b.upMu.Lock()
	b.agents = append(b.agents, pa)
	b.upMu.Unlock()
	up := &mcptools.Filtered{Upstream: conn, Allow: p.AllowTools, Deny: p.DenyTools, Agent: p.Name, M: b.metrics}
	name := p.Name
	pa.exec, err = publish.New(publish.Config{
		Name: p.Name, Description: p.Description, Version: Version,
		Timeout: p.ToolTimeout.D(), Store: b.store, Logger: b.log.With("agent", p.Name),
		Authorize: func(ctx context.Context, tool string, destructive bool) error {
			// Limits were counted by the Guard; this is the policy decision
			// with the tool the message actually selected.
			return b.hops.Authorize(ctx, request.Hop{
				Principal: request.PrincipalFrom(ctx), Face: request.FaceA2A, Direction: request.DirPublish,
				Agent: name, Skill: tool, Tool: tool, ToolDestructive: destructive, ToolReadOnly: !destructive && up.ReadOnly(tool),
				Method: a2a.MethodSendMessage,
			})
		},
	}, up)
	if err != nil {
		return fmt.Errorf("gateway: publish[%s]: %w", p.Name, err)
	}
	pa.mgr, err = taskmanager.New(taskmanager.Config{Store: b.store, Executor: pa.exec, OnEvent: b.taskEvents(p.Name), Logger: b.log.With("agent", p.Name), LeaseTTL: b.cfg.Tasks.LeaseTTL.D()})
	if err != nil {
		return fmt.Errorf("gateway: publish[%s]: %w", p.Name, err)
	}
	signed, err := b.sign(b.withGRPC(pa.exec.Card(pa.base), p.Name))
	if err != nil {
		return fmt.Errorf("gateway: publish[%s]: %w", p.Name, err)
	}
	if pa.srv, err = b.agentServer(p.Name, pa.mgr, signed, b.publishGuard(p.Name, up, pa.exec)); err != nil {
		return fmt.Errorf("gateway: publish[%s]: %w", p.Name, err)
	}
	pa.exec.OnCardChanged(func() {
		c, err := b.sign(b.withGRPC(pa.exec.Card(pa.base), name))
		if err == nil {
			err = pa.srv.SetCard(c)
		}
		if err != nil {
			b.log.Error("re-signing a changed card failed; the old card is still served", "agent", name, "err", err)
			return
		}
		b.log.Info("agent card changed with the tool list; re-signed", "agent", name, "version", c.Version)
	})
	b.routes.set(p.Name, b.hops.ForAudience(p.Audience).ProtectA2A(pa.srv))
	target := b.grpcTarget(pa.srv, p.Audience)
	b.grpcTargets.set(p.Name, func() (*a2agrpc.Target, error) { return target, nil })
	ref.store(conn)
	b.reportConn(health.KindPublish, p.Name, conn, skills)
	b.monitors.Add(b.connMonitor(health.KindPublish, p.Name, conn, skills))
	return nil
}

// agentServer is the A2A server of one agent the bridge serves (published
// or fronted), with the server settings and push policy of the config.
func (b *Bridge) agentServer(name string, mgr *taskmanager.Manager, card *a2a.AgentCard, guard func(context.Context, *a2aserver.Call) error) (*a2aserver.Server, error) {
	scfg := a2aserver.Config{
		Manager: mgr, Card: card, Guard: guard,
		PushEnabled: b.cfg.Push.Enabled, ErrorTable: errorTable(b.cfg.Server.A2AErrorTable),
		AllowMissingVersion: b.cfg.Server.AllowMissingA2AVersion,
		MaxBodyBytes:        int64(b.cfg.Server.MaxBodyBytes),
		ReadTimeout:         b.cfg.Server.ReadTimeout.D(),
		WriteTimeout:        b.cfg.Server.WriteTimeout.D(),
		Logger:              b.log.With("agent", name),
	}
	if b.cfg.Push.Enabled {
		scfg.CheckPushURL = PushURLCheck(b.guard)
	}
	if b.cfg.Server.A2AV03 == "accept" {
		scfg.Legacy = &v03.Dialect{Logger: scfg.Logger}
		scfg.LegacyCard = b.signV03Card
		scfg.LegacyCardDefault = b.cfg.Server.A2AV03Card == "default"
	}
	return a2aserver.New(scfg)
}

// PushURLCheck validates a webhook config's URL when it is created, without
// DNS (netguard.Guard.CheckURLStatic): scheme, port, credentials and a
// literal address are checked now; a name is checked at connect time before
// every delivery. Creation so answers the same for a name that does not
// resolve and for one that resolves to a refused address: a caller cannot
// use it to learn how the bridge's internal names resolve.
func PushURLCheck(guard *netguard.Guard) func(ctx context.Context, url string) error {
	return func(_ context.Context, url string) error {
		if err := guard.CheckURLStatic(url); err != nil {
			return netguard.RedactURL(err)
		}
		return nil
	}
}

// signV03Card is the card served to A2A 0.3 readers: the signed 1.0 card
// with the 0.3 members beside its own, signed again, so that the
// signature covers what 0.3 readers read.
func (b *Bridge) signV03Card(cardJSON []byte) ([]byte, error) {
	view, err := v03.CardJSON(cardJSON)
	if err != nil {
		return nil, err
	}
	signed, err := card.Sign(view, b.signing.Load().keys)
	if err != nil {
		return nil, fmt.Errorf("sign the 0.3 card: %w", err)
	}
	var out bytes.Buffer
	if err := json.Compact(&out, signed); err != nil {
		return nil, fmt.Errorf("sign the 0.3 card: %w", err)
	}
	return out.Bytes(), nil
}

// publishGuard counts every call against the limits and applies the policy.
// For messages the policy is decided once the tool is known (publish's
// Authorize), unless the message names its tool already. The tool a
// message names is read by publish's one function (Agent.ToolOf), the
// one Execute runs the call by, so the limits count the tool that runs.
func (b *Bridge) publishGuard(agent string, up *mcptools.Filtered, exec *publish.Agent) func(ctx context.Context, c *a2aserver.Call) error {
	return func(ctx context.Context, c *a2aserver.Call) error {
		observability.SetMethod(ctx, c.Method)
		observability.SetTarget(ctx, observability.Target{Agent: agent, Skill: c.Skill})
		hop := request.Hop{
			Principal: request.PrincipalFrom(ctx), Face: request.FaceA2A, Direction: request.DirPublish,
			Agent: agent, Skill: c.Skill, Method: c.Method, TaskID: c.TaskID, RemoteIP: observability.ClientIP(c.Request),
		}
		isMessage := c.Method == a2a.MethodSendMessage || c.Method == a2a.MethodSendStreamingMessage
		if isMessage {
			if req, _ := c.Params.(*a2a.SendMessageRequest); req != nil {
				tool, err := exec.ToolOf(req.Message, req.Metadata)
				if err != nil {
					return err // named two ways: refused before any count
				}
				hop.Tool = tool
				observability.SetTarget(ctx, observability.Target{Skill: tool, Tool: tool})
				if c.TaskID != "" {
					// An answer to a tool's question that does not fit its
					// schema gets InvalidParams; the task and the
					// question stay as they are.
					owner, _ := a2aserver.OwnerFromContext(ctx)
					if err := exec.CheckAnswer(owner, c.TaskID, req.Message); err != nil {
						return err
					}
				}
			}
			if hop.Tool != "" {
				hop.ToolDestructive, hop.ToolReadOnly = up.Hints(hop.Tool)
			}
		}
		if err := b.hops.Limit(ctx, hop); err != nil {
			return err
		}
		if isMessage && hop.Tool == "" {
			return nil
		}
		return b.hops.Authorize(ctx, hop)
	}
}

func errorTable(s string) a2a.ErrorTable {
	if s == "1.0.0" {
		return a2a.ErrorTableV100
	}
	return a2a.ErrorTableV101
}

// sign fills the card's security from the auth chain and signs it; the
// result (with its signature) is what the server serves.
func (b *Bridge) sign(c *a2a.AgentCard) (*a2a.AgentCard, error) {
	sg := b.signing.Load()
	c.SecuritySchemes, c.SecurityRequirements = sg.schemes, sg.reqs
	return card.SignAgentCard(c, sg.keys)
}

// securityOf is what the auth chain accepts, as card security
// (card.Security decides the schemes).
func securityOf(c *auth.Chain) (map[string]a2a.SecurityScheme, []a2a.SecurityRequirement) {
	var creds []card.Credential
	for _, d := range c.Describe() {
		cr := card.Credential{DiscoveryURL: d.DiscoveryURL, Scopes: d.Scopes, Header: d.Header}
		switch d.Kind {
		case auth.SchemeOIDC:
			cr.Kind = card.CredentialOIDC
		case auth.SchemeBearerJWT:
			cr.Kind = card.CredentialBearerJWT
		case auth.SchemeAPIKey:
			cr.Kind = card.CredentialAPIKey
		default:
			continue
		}
		creds = append(creds, cr)
	}
	return card.Security(creds, c.AllowsAnonymous())
}

// buildExpose builds the exposed agents' tool source and the MCP face.
func (b *Bridge) buildExpose(ctx context.Context, mux *http.ServeMux, mcpOnly bool) error {
	cfg := b.cfg
	var agents []expose.AgentConfig
	for i := range cfg.Expose.Agents {
		ac, err := b.exposedAgent(fmt.Sprintf("expose.agents[%d]", i), &cfg.Expose.Agents[i])
		if err != nil {
			return err
		}
		agents = append(agents, ac)
	}
	b.lists.exposeCfg = agents
	// Agent calls stream for up to their timeout: they get a guard of their
	// own whose overall limits fit the longest call (New refuses "none").
	ngcfg, err := cfg.Netguard.Config()
	if err != nil {
		return fmt.Errorf("gateway: netguard: %w", err)
	}
	longest := time.Duration(0)
	for _, a := range cfg.Expose.Agents {
		longest = max(longest, a.Timeout.D())
	}
	ngcfg.Timeout = max(ngcfg.Timeout, longest+time.Minute)
	ngcfg.MaxBodyBytes = max(ngcfg.MaxBodyBytes, exposeMaxBodyBytes)
	// One A2A call per tool call, as for fronted agents: HTTP/1.1 with the
	// call's I/O on the calling goroutine (netguard Config.HTTP1Direct),
	// under the same address policy.
	ngcfg.HTTP1Direct = true
	callGuard, err := netguard.New(ngcfg)
	if err != nil {
		return fmt.Errorf("gateway: netguard for exposed agents: %w", err)
	}
	// Calls to an agent of this bridge (expose.agents[].agent) go to
	// public_url, a destination this file names: the trusted client.
	b.setOwnExposed(cfg.Expose.Agents)
	tools, err := expose.New(expose.Config{Agents: agents, HTTPClient: tracedClient(b.exposeClient(callGuard.Client(), b.streams)), Logger: b.log,
		ToolNameSeparator: cfg.Expose.ToolNameSeparator,
		CardTTLMin:        cfg.Health.CardRefreshMin.D(), CardTTLMax: cfg.Health.CardRefreshMax.D()})
	if err != nil {
		return fmt.Errorf("gateway: expose: %w", err)
	}
	b.tools = tools
	for _, a := range cfg.Expose.Agents {
		b.health.Add(health.KindExpose, a.Alias)
	}
	own := false
	for _, a := range cfg.Expose.Agents {
		own = own || a.Agent != ""
	}
	// An agent of this bridge answers once the listener serves, after
	// Build: its card is loaded in the background (Run), with the others.
	if !own {
		if err := tools.Refresh(ctx); err != nil {
			b.log.Warn("some exposed agents are not available yet; retrying in the background", "err", netguard.RedactURL(err))
		}
	}
	b.reportExposed()
	tools.OnChange(b.reportExposed)
	for _, a := range cfg.Expose.Agents {
		b.monitors.Add(b.exposeMonitor(a.Alias))
	}
	fcfg := endpoint.Config{
		Name: "a2a-mcp-bridge", Version: Version, PublicURL: b.publicURL, Path: cfg.Expose.MCP.Path,
		AllowedOrigins: cfg.Expose.MCP.AllowedOrigins, MaxBodyBytes: int64(cfg.Server.MaxBodyBytes),
		Policy: b.front.decider(mcptools.ExposeDecider{E: &b.policy}), Sources: append([]endpoint.ToolSource{&mcptools.Limited{Src: tools, Hops: b.hops}}, b.front.sources...),
		Logger: b.log, OnRequest: mcptools.ObserveRequest,
		ServerOptions: []server.ServerOption{server.WithToolHandlerMiddleware(observe.ToolMiddleware()), server.WithToolHandlerMiddleware(mcptools.CountCalls(b.metrics))},
	}
	if mcpOnly {
		fcfg.UnsafeNoAuth = true // stdio only: never mounted on a listener
	} else {
		fcfg.Limiter, fcfg.LimitedMethods = mcptools.Limits{H: b.hops}, cfg.Expose.MCP.RateLimitedMethods
		// The face accepts only tokens issued for its own resource
		// (RFC 8707), the URL its protected-resource metadata names: a
		// token for an A2A agent is refused here, and check-config refuses
		// an A2A audience list that names this resource.
		fcfg.Authenticator = auditedAuthn{b.authn.ForAudience(b.mcpAudience()...)}
		// Opt-in: sessions live in this process (config.Warnings asks for
		// sticky routing when replicas share state).
		fcfg.LegacySessions = cfg.Expose.MCP.Sessions
		md, err := b.chain.ResourceMetadata(b.publicURL + cfg.Expose.MCP.Path)
		if err != nil {
			return fmt.Errorf("gateway: expose: %w", err)
		}
		fcfg.Metadata = md
	}
	f, err := endpoint.New(fcfg)
	if err != nil {
		return fmt.Errorf("gateway: expose: %w", err)
	}
	b.face = f
	if !mcpOnly {
		f.Mount(mux)
	}
	return nil
}

// mcpAudience is the audience tokens for the MCP face must name:
// expose.mcp.audience, by default the face's canonical resource URL.
func (b *Bridge) mcpAudience() []string {
	if len(b.cfg.Expose.MCP.Audience) > 0 {
		return b.cfg.Expose.MCP.Audience
	}
	return []string{b.publicURL + b.cfg.Expose.MCP.Path}
}

// exposedAgent converts one expose.agents entry (where names it in errors).
func (b *Bridge) exposedAgent(where string, a *config.ExposedAgent) (expose.AgentConfig, error) {
	u := a.URL
	if a.Agent != "" {
		u = b.ownAgentURL(a.Agent)
	}
	ac := expose.AgentConfig{
		Alias: a.Alias, CardURL: upstream.CardURL(u), RequireSignature: a.Card.RequireSignature,
		Timeout: a.Timeout.D(), SkillTools: a.PerSkillTools, CredentialHosts: a.CredentialHosts,
		Binding: canonicalBinding(a.Binding),
		// Interfaces named by the card: clear text only where netguard
		// allows http.
		GRPC: b.exposeGRPC.Factory(strings.HasPrefix(upstream.CardURL(u), "http://") && b.guard.AllowsHTTP()),
	}
	// Token endpoints are named in the file: the trusted client.
	creds, err := auth.NewCredentials(a.Credentials, b.trusted)
	if err != nil {
		return ac, fmt.Errorf("gateway: %s.credentials: %w", where, err)
	}
	ac.Credentials = creds
	switch {
	case a.Agent != "":
		// An agent of this bridge: its card carries this bridge's
		// signature, and nothing else is accepted.
		ac.Keys, ac.RequireSignature = ownKeys{b}, true
	case strings.HasPrefix(a.Card.Keys, "https://"):
		// Calls to card-declared interface URLs, and this JWKS, go through
		// the guarded client.
		rk, err := card.NewRemoteJWKS(a.Card.Keys, b.guard.Client(), card.FetchOptions{})
		if err != nil {
			return ac, fmt.Errorf("gateway: %s.card.keys: %w", where, err)
		}
		ac.Keys = rk
	case a.Card.Keys != "":
		sk, err := card.LoadJWKSFile(a.Card.Keys)
		if err != nil {
			return ac, fmt.Errorf("gateway: %s.card.keys: %w", where, err)
		}
		ac.Keys = sk
	}
	return ac, nil
}

// mountOps mounts /healthz, /readyz, /.well-known/jwks.json and metrics.
func (b *Bridge) mountOps(mux *http.ServeMux) {
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", b.serveReady)
	if b.signing.Load().jwks != nil {
		mux.HandleFunc("GET "+JWKSPath, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/jwk-set+json")
			w.Header().Set("Cache-Control", "public, max-age=300")
			_, _ = w.Write(b.signing.Load().jwks)
		})
	}
	if b.cfg.Observability.MetricsEnabled() {
		mux.Handle("GET "+b.cfg.Observability.MetricsPath, promhttp.HandlerFor(b.reg, promhttp.HandlerOpts{}))
	}
}

// Readiness is the /readyz body.
type Readiness struct {
	// Ready is true when the store answers and, under health.readiness
	// "upstreams", every upstream is up.
	Ready bool `json:"ready"`
	// NotReady says what keeps the bridge from being ready, one line each
	// ("front.mcp files: down: connection refused").
	NotReady []string `json:"not_ready,omitempty"`
	// Upstreams is every upstream's health, ready or not.
	Upstreams []health.Status `json:"upstreams"`
}

// Ready checks the store (one cheap call) and reads the upstreams' health;
// under health.readiness "bridge" the upstreams are listed but not
// required.
func (b *Bridge) Ready(ctx context.Context) Readiness {
	var not []string
	if b.draining.Load() {
		not = append(not, "bridge: shutting down")
	}
	if b.store != nil {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		// An owner no caller has; not NUL, which PostgreSQL text refuses.
		_, err := b.store.ListTasks(ctx, "\x01readyz", taskmanager.TaskQuery{Limit: 1})
		cancel()
		if err != nil {
			not = append(not, "store: unreachable")
		}
	}
	ups := b.health.List()
	if b.readinessRequiresUpstreams() {
		for _, st := range ups {
			if !st.Up() {
				not = append(not, notReadyLine(st))
			}
		}
	}
	return Readiness{Ready: len(not) == 0, NotReady: not, Upstreams: ups}
}

func (b *Bridge) serveReady(w http.ResponseWriter, r *http.Request) {
	rd := b.Ready(r.Context())
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if !rd.Ready {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_ = json.NewEncoder(w).Encode(rd)
}

// publishedAgents is the published agents now.
func (b *Bridge) publishedAgents() []*publishedAgent {
	b.upMu.Lock()
	defer b.upMu.Unlock()
	return b.agents
}

// frontedAgents is the fronted A2A agents now.
func (b *Bridge) frontedAgents() []*frontedAgent {
	b.upMu.Lock()
	defer b.upMu.Unlock()
	return b.front.agents
}

// Handler is the bridge's HTTP handler, every face and endpoint mounted.
func (b *Bridge) Handler() http.Handler { return b.handler }

// Face is the MCP face of the exposed agents (nil when none are exposed).
func (b *Bridge) Face() *endpoint.Face { return b.face }

// Keys are the card-signing keys (nil in MCPOnly mode).
func (b *Bridge) Keys() *card.KeySet { return b.signing.Load().keys }

// PublicURL is the URL cards and metadata name.
func (b *Bridge) PublicURL() string { return b.publicURL }

// Run runs the background jobs until ctx ends: push delivery, exposed card
// refresh, the recovery of tasks whose process died, task retention, and
// the upstreams' health checks (which also retry the fronted agents whose
// card is not loaded yet).
func (b *Bridge) Run(ctx context.Context) {
	var wg sync.WaitGroup
	if b.dispatcher != nil {
		wg.Go(func() {
			if err := b.dispatcher.Run(ctx); err != nil && ctx.Err() == nil {
				b.log.Error("push delivery stopped", "err", err)
			}
		})
	}
	if b.tools != nil {
		wg.Go(func() { b.tools.Run(ctx) })
	}
	if b.maint != nil {
		// Every config with a store: tasks whose process died end FAILED
		// (at start-up too), and finished ones are pruned. See maintain.
		wg.Go(func() { b.maintain(ctx) })
	}
	wg.Go(func() { b.watchUpstreams(ctx, upstreamWatch) })
	wg.Go(func() { b.monitors.Run(ctx) })
	wg.Wait()
}

// Settle waits until no task runs in this process, or ctx ends.
func (b *Bridge) Settle(ctx context.Context) error {
	for _, m := range b.managers() {
		if err := m.Idle(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Stop ends the tasks still running in this process, for a shutdown whose
// grace has expired: each is marked FAILED ([taskmanager.ShutdownMessage]), which
// ends its streams with that event on every replica, and its executor is
// cancelled (published MCP calls get notifications/cancelled, fronted
// agents a CancelTask). It returns when they have returned, or when ctx
// ends.
func (b *Bridge) Stop(ctx context.Context) {
	var wg sync.WaitGroup
	for _, m := range b.managers() {
		wg.Go(func() { _ = m.Stop(ctx, taskmanager.ShutdownMessage) })
	}
	wg.Wait()
}

// closeWait bounds how long Close waits for executions to return and for
// upstream connections to close, so that a process exits within its
// shutdown grace plus 2s (the rest is left to the process exit).
const closeWait = 400 * time.Millisecond

// Close stops the upstreams, waits (briefly) for running tasks and closes
// the store. Call Stop first to end tasks that still run.
func (b *Bridge) Close() error {
	var mu sync.Mutex
	var errs []error
	b.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), closeWait)
		defer cancel()
		// Upstreams a reload removed finish first (each within the grace).
		b.retiring.Wait()
		// Executions first: a published task's last event needs its
		// upstream's answer, and every one needs the store.
		for _, m := range b.managers() {
			_ = m.Idle(ctx)
		}
		var wg sync.WaitGroup
		add := func(err error) {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}
		wg.Go(func() { add(b.front.close(ctx, &b.upMu)) })
		for _, a := range b.publishedAgents() {
			if a.conn != nil {
				wg.Go(func() { add(a.conn.Close()) })
			}
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-ctx.Done():
			b.log.Warn("shutdown: some upstream connections did not close in time; leaving them to the process exit")
		}
		if l := b.limits.Load(); l != nil {
			add(l.Close())
		}
		for _, c := range []*a2agrpc.Connector{b.frontGRPC, b.exposeGRPC} {
			if c != nil {
				add(c.Close())
			}
		}
		for _, l := range b.retired {
			add(l.Close())
		}
		if b.closeStore != nil {
			add(b.closeStore())
		}
	})
	mu.Lock()
	defer mu.Unlock()
	return errors.Join(errs...)
}

// OpenStore opens the task store named by a config URL ("memory:",
// "sqlite:PATH" or "postgres://…"; see store.Open). The returned function
// closes it. Errors never carry the URL's password.
func OpenStore(ctx context.Context, u string) (taskmanager.Store, func() error, error) {
	st, closeFn, err := store.Open(ctx, u)
	if err != nil {
		return nil, nil, fmt.Errorf("gateway: open store %s: %w", upstream.RedactURL(u), netguard.RedactURL(err))
	}
	return st, closeFn, nil
}
