package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/a2agrpc"
	"github.com/a2a-mcp-bridge/bridge/a2a/push"
	"github.com/a2a-mcp-bridge/bridge/a2a/v03"
	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/examples/demoagent"
	"github.com/a2a-mcp-bridge/bridge/examples/demomcp"
	"github.com/a2a-mcp-bridge/bridge/hostguard"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
	"github.com/a2a-mcp-bridge/bridge/mcp/expose"
	"github.com/a2a-mcp-bridge/bridge/mcp/publish"
	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// DemoBase is the base path of the demo agent.
const DemoBase = "/a2a/echo"

// DemoOptions configures `bridge demo`.
type DemoOptions struct {
	// PublicURL is the URL clients reach the bridge at (default http://ADDR).
	PublicURL string
	// Store keeps tasks (default: in memory).
	Store a2a.Store
	// Netguard guards push deliveries. UnsafeAllow in it lets webhooks on
	// those ranges (loopback, for the conformance kit) through.
	Netguard netguard.Config
	// ListenAddr is the address the demo listens on; /mcp (anonymous) is
	// served only when it is a loopback address.
	ListenAddr string
	// LeaseTTL is the run lease of the demo's tasks (default 15s): how soon
	// another replica notices that the one running a task has died.
	LeaseTTL time.Duration
	// MaintenanceEvery is how often finished tasks are pruned (default 1m).
	// Orphaned tasks are failed at start-up and every
	// a2a.RecoveryInterval(LeaseTTL).
	MaintenanceEvery time.Duration
	Log              *slog.Logger
}

// DemoToolsBase is the base path of the demo MCP server published as an agent.
const DemoToolsBase = "/a2a/tools"

// Demo is the running demo: its handler and the background work to run.
type Demo struct {
	Handler  http.Handler
	Manager  *a2a.Manager
	Tools    *a2a.Manager
	Dispatch *push.Dispatcher
	// Run does the background work (push delivery, card refresh,
	// maintenance) until ctx ends.
	Run func(ctx context.Context)
	// Close releases the demo's upstream connection.
	Close func()
}

// NewDemo returns `bridge demo`: the demo agent at /a2a/echo (JSON-RPC at
// the base, HTTP+JSON under /rest), its card at the agent's and the root
// well-known paths; the demo MCP server published as an agent at
// /a2a/tools; the demo agent exposed as MCP tools at /mcp (anonymous callers,
// loopback listeners only); and /healthz.
func NewDemo(ctx context.Context, opts DemoOptions) (*Demo, error) {
	if opts.Store == nil {
		return nil, fmt.Errorf("gateway: demo needs a store")
	}
	guard, err := netguard.New(opts.Netguard)
	if err != nil {
		return nil, err
	}
	disp, err := push.New(push.Config{Logger: opts.Log, LegacyBody: v03.PushBody}, opts.Store, guard)
	if err != nil {
		return nil, err
	}
	mgr, err := a2a.NewManager(a2a.ManagerConfig{Store: opts.Store, Executor: &demoagent.Agent{}, Logger: opts.Log, OnEvent: disp.OnEvent, LeaseTTL: opts.LeaseTTL})
	if err != nil {
		return nil, err
	}
	base := strings.TrimRight(opts.PublicURL, "/") + DemoBase
	grpcAddr, err := grpcPublicAddress(opts.PublicURL, config.GRPC{})
	if err != nil {
		return nil, err
	}
	withGRPC := func(c *a2a.AgentCard, tenant string) *a2a.AgentCard {
		c.SupportedInterfaces = append(c.SupportedInterfaces, a2a.AgentInterface{URL: grpcAddr, ProtocolBinding: a2a.BindingGRPC, Tenant: tenant, ProtocolVersion: a2a.ProtocolVersion})
		return c
	}
	card := withGRPC(demoagent.Card(base), "echo")
	card.Capabilities.PushNotifications = a2a.Ptr(true)
	srv, err := a2a.NewServer(a2a.ServerConfig{
		Manager: mgr, Card: card, Logger: opts.Log,
		PushEnabled:  true,
		CheckPushURL: PushURLCheck(guard),
		// A2A 0.3 callers are answered too (unsigned card: the demo has no
		// keys).
		Legacy: &v03.Dialect{Logger: opts.Log}, LegacyCard: v03.CardJSON,
	})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	Mount(mux, DemoBase, srv)
	mux.HandleFunc("/.well-known/agent-card.json", srv.ServeCard)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	demo := &Demo{Handler: mux, Manager: mgr, Dispatch: disp, Close: func() {}}

	// The demo MCP server, published as an A2A agent.
	conn, err := connector.InProcess(ctx, demomcp.New(), connector.Config{Name: "tools", Logger: opts.Log})
	if err != nil {
		return nil, err
	}
	demo.Close = func() { _ = conn.Close() }
	tools, err := publish.New(publish.Config{Name: "Demo MCP tools", Description: "The bridge's demo MCP server (echo, add, upper, slow) published as an A2A agent: each tool is a skill.", Store: opts.Store, Logger: opts.Log}, conn)
	if err != nil {
		return nil, err
	}
	tmgr, err := a2a.NewManager(a2a.ManagerConfig{Store: opts.Store, Executor: tools, Logger: opts.Log, OnEvent: disp.OnEvent, LeaseTTL: opts.LeaseTTL})
	if err != nil {
		return nil, err
	}
	tbase := strings.TrimRight(opts.PublicURL, "/") + DemoToolsBase
	tcard := withGRPC(tools.Card(tbase), "tools")
	tcard.Capabilities.PushNotifications = a2a.Ptr(true)
	tsrv, err := a2a.NewServer(a2a.ServerConfig{Manager: tmgr, Card: tcard, Logger: opts.Log, PushEnabled: true, CheckPushURL: PushURLCheck(guard),
		Legacy: &v03.Dialect{Logger: opts.Log}, LegacyCard: v03.CardJSON})
	if err != nil {
		return nil, err
	}
	tools.OnCardChanged(func() {
		c := withGRPC(tools.Card(tbase), "tools")
		c.Capabilities.PushNotifications = a2a.Ptr(true)
		_ = tsrv.SetCard(c)
	})
	Mount(mux, DemoToolsBase, tsrv)
	demo.Tools = tmgr

	// Both agents over gRPC too, on the same listener (h2c): the tenant
	// "echo" (or none) is the demo agent, "tools" the MCP server.
	echoT, toolsT := &a2agrpc.Target{Server: srv}, &a2agrpc.Target{Server: tsrv}
	gs, err := a2agrpc.New(a2agrpc.Config{
		Resolve: func(_ context.Context, tenant string) (*a2agrpc.Target, error) {
			switch tenant {
			case "", "echo":
				return echoT, nil
			case "tools":
				return toolsT, nil
			}
			return nil, a2a.ErrInvalidParams.Withf("no agent %q is served here: use echo or tools", clipHeader(tenant))
		},
		MaxRecvBytes: 4 << 20, MaxSendBytes: 16 << 20, MaxUnaryDuration: 5 * time.Minute, Logger: opts.Log,
	})
	if err != nil {
		return nil, err
	}
	mux.HandleFunc(a2agrpc.PathPrefix, func(w http.ResponseWriter, r *http.Request) {
		if !a2agrpc.IsGRPC(r) {
			http.NotFound(w, r)
			return
		}
		gs.ServeHTTP(w, r)
	})

	// The demo agent, exposed as MCP tools (loopback only: callers are anonymous).
	var runTools func(context.Context)
	if anon, err := auth.NewAnonymous(opts.ListenAddr, false); err == nil {
		at, err := expose.New(expose.Config{
			Agents:     []expose.AgentConfig{{Alias: "echo", CardURL: base + "/.well-known/agent-card.json", SkillTools: false}},
			HTTPClient: netguard.Trusted(netguard.Config{Timeout: -1, MaxBodyBytes: -1}),
			Logger:     opts.Log,
		})
		if err != nil {
			return nil, err
		}
		f, err := endpoint.New(endpoint.Config{
			Name: "bridge-demo", Version: Version, PublicURL: strings.TrimRight(opts.PublicURL, "/"), Path: "/mcp",
			Authenticator: auth.NewChain(auth.ChainOptions{}, anon), AllowLoopbackOrigins: true,
			Sources: []endpoint.ToolSource{at}, Logger: opts.Log,
		})
		if err != nil {
			return nil, err
		}
		f.Mount(mux)
		runTools = at.Run
	} else if opts.Log != nil {
		opts.Log.Warn("demo: /mcp is served only on a loopback listener (its callers are anonymous)")
	}
	// The same front door as bridge serve: a page that rebinds its own name
	// to the demo's loopback address is refused (the demo's callers are
	// anonymous, so this is all that stands between a web page and it).
	g, err := hostguard.New(hostguard.Config{PublicURL: opts.PublicURL, Listen: opts.ListenAddr})
	if err != nil {
		return nil, err
	}
	// Its /mcp also takes pages on this machine (an MCP inspector), as the
	// face itself does (AllowLoopbackOrigins).
	gm, err := hostguard.New(hostguard.Config{PublicURL: opts.PublicURL, Listen: opts.ListenAddr, LoopbackOrigins: true})
	if err != nil {
		return nil, err
	}
	demo.Handler = guarded(mux, g, gm, "/mcp", map[string]bool{"/healthz": true}, opts.Log)
	demo.Run = func(ctx context.Context) {
		go func() { _ = disp.Run(ctx) }()
		every := opts.MaintenanceEvery
		if every <= 0 {
			every = time.Minute
		}
		if maint, err := a2a.NewMaintainer(a2a.MaintainerConfig{
			Store: opts.Store, LeaseTTL: opts.LeaseTTL, Retain: 7 * 24 * time.Hour, PruneEvery: every,
			Local: func(id string) bool { return mgr.Running(id) || tmgr.Running(id) }, OnEvent: disp.OnEvent, Logger: opts.Log,
		}); err == nil {
			go maint.Run(ctx)
		}
		if runTools != nil {
			go runTools(ctx)
		}
	}
	return demo, nil
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

// Mount serves h under prefix with the prefix stripped, so that h sees the
// prefix itself as "/".
func Mount(mux *http.ServeMux, prefix string, h http.Handler) {
	prefix = strings.TrimRight(prefix, "/")
	strip := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r2 := new(http.Request)
		*r2 = *r
		u := *r.URL
		u.Path = strings.TrimPrefix(r.URL.Path, prefix)
		u.RawPath = strings.TrimPrefix(r.URL.RawPath, prefix)
		if u.Path == "" {
			u.Path = "/"
		}
		if r.URL.RawPath != "" && u.RawPath == "" {
			u.RawPath = "/"
		}
		r2.URL = &u
		h.ServeHTTP(w, r2)
	})
	mux.Handle(prefix+"/", strip)
	mux.Handle(prefix, strip)
}
