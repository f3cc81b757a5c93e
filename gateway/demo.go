package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/push"
	"github.com/a2a-mcp-bridge/bridge/examples/demoagent"
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
	Log      *slog.Logger
}

// Demo is the running demo: its handler and the background work to run.
type Demo struct {
	Handler  http.Handler
	Manager  *a2a.Manager
	Dispatch *push.Dispatcher
}

// NewDemo returns the handler of `bridge demo`: the demo agent at
// /a2a/echo (JSON-RPC at the base, HTTP+JSON under /rest), its card at the
// agent's and the root well-known paths, and /healthz.
func NewDemo(opts DemoOptions) (*Demo, error) {
	if opts.Store == nil {
		return nil, fmt.Errorf("gateway: demo needs a store")
	}
	guard, err := netguard.New(opts.Netguard)
	if err != nil {
		return nil, err
	}
	disp, err := push.New(push.Config{Logger: opts.Log}, opts.Store, guard)
	if err != nil {
		return nil, err
	}
	mgr, err := a2a.NewManager(a2a.ManagerConfig{Store: opts.Store, Executor: &demoagent.Agent{}, Logger: opts.Log, OnEvent: disp.OnEvent})
	if err != nil {
		return nil, err
	}
	base := strings.TrimRight(opts.PublicURL, "/") + DemoBase
	card := demoagent.Card(base)
	card.Capabilities.PushNotifications = a2a.Ptr(true)
	srv, err := a2a.NewServer(a2a.ServerConfig{
		Manager: mgr, Card: card, Logger: opts.Log,
		PushEnabled:  true,
		CheckPushURL: PushURLCheck(guard),
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
	return &Demo{Handler: mux, Manager: mgr, Dispatch: disp}, nil
}

// PushURLCheck validates a webhook config's URL when it is created: the
// outbound network policy must allow it now (it is checked again before
// every delivery).
func PushURLCheck(guard *netguard.Guard) func(ctx context.Context, url string) error {
	return func(ctx context.Context, url string) error {
		err := guard.CheckURL(ctx, url)
		if err == nil || !errors.Is(err, netguard.ErrBlocked) {
			// A host that does not resolve now is not refused: the
			// address is checked again, at connect time, before every
			// delivery.
			return nil
		}
		return netguard.RedactURL(err)
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
