package gateway

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/examples/demoagent"
)

// DemoBase is the base path of the demo agent.
const DemoBase = "/a2a/echo"

// DemoOptions configures `bridge demo`.
type DemoOptions struct {
	// PublicURL is the URL clients reach the bridge at (default http://ADDR).
	PublicURL string
	// Store keeps tasks (default: in memory).
	Store a2a.Store
	Log   *slog.Logger
}

// NewDemo returns the handler of `bridge demo`: the demo agent at
// /a2a/echo (JSON-RPC at the base, HTTP+JSON under /rest), its card at the
// agent's and the root well-known paths, and /healthz.
func NewDemo(opts DemoOptions) (http.Handler, *a2a.Manager, error) {
	if opts.Store == nil {
		return nil, nil, fmt.Errorf("gateway: demo needs a store")
	}
	mgr, err := a2a.NewManager(a2a.ManagerConfig{Store: opts.Store, Executor: &demoagent.Agent{}, Logger: opts.Log})
	if err != nil {
		return nil, nil, err
	}
	base := strings.TrimRight(opts.PublicURL, "/") + DemoBase
	srv, err := a2a.NewServer(a2a.ServerConfig{Manager: mgr, Card: demoagent.Card(base), Logger: opts.Log})
	if err != nil {
		return nil, nil, err
	}
	mux := http.NewServeMux()
	Mount(mux, DemoBase, srv)
	mux.HandleFunc("/.well-known/agent-card.json", srv.ServeCard)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	return mux, mgr, nil
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
