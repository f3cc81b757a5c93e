package gateway

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// agentRoutes serves /a2a/{name}/… for the agents mounted now, published
// and fronted; a reload of the upstream lists mounts and unmounts them
// while serving (http.ServeMux cannot forget a pattern).
type agentRoutes struct {
	mu     sync.RWMutex
	byName map[string]*http.ServeMux
}

func newAgentRoutes() *agentRoutes { return &agentRoutes{byName: map[string]*http.ServeMux{}} }

// set mounts h at /a2a/{name} (in place of what was there).
func (rt *agentRoutes) set(name string, h http.Handler) {
	m := http.NewServeMux()
	Mount(m, "/a2a/"+name, h)
	rt.mu.Lock()
	rt.byName[name] = m
	rt.mu.Unlock()
}

// remove unmounts /a2a/{name}: its requests get 404 from then on.
func (rt *agentRoutes) remove(name string) {
	rt.mu.Lock()
	delete(rt.byName, name)
	rt.mu.Unlock()
}

// ServeHTTP implements http.Handler for /a2a/.
func (rt *agentRoutes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/a2a/"), "/")
	rt.mu.RLock()
	m := rt.byName[name]
	rt.mu.RUnlock()
	if m == nil {
		http.NotFound(w, r)
		return
	}
	m.ServeHTTP(w, r)
}

// rootAgent is the agent /.well-known/agent-card.json describes and gRPC
// calls without a tenant reach: server.root_agent, else the only published
// agent, else the only fronted agent when nothing is published; nil, nil
// otherwise.
func (b *Bridge) rootAgent() (*publishedAgent, *frontedAgent) {
	b.upMu.Lock()
	defer b.upMu.Unlock()
	if name := b.cfg.Server.RootAgent; name != "" {
		for _, a := range b.agents {
			if a.name == name {
				return a, nil
			}
		}
		for _, fa := range b.front.agents {
			if fa.name == name {
				return nil, fa
			}
		}
		return nil, nil
	}
	switch {
	case len(b.agents) == 1:
		return b.agents[0], nil
	case len(b.agents) == 0 && len(b.front.agents) == 1:
		return nil, b.front.agents[0]
	}
	return nil, nil
}

// serveRootCard serves /.well-known/agent-card.json: the root agent's card
// (rootAgent); 404 without one.
func (b *Bridge) serveRootCard(w http.ResponseWriter, r *http.Request) {
	pa, fa := b.rootAgent()
	switch {
	case pa != nil:
		pa.srv.ServeCard(w, r)
	case fa != nil:
		r2 := new(http.Request)
		*r2 = *r
		u := *r.URL
		u.Path, u.RawPath = "/.well-known/agent-card.json", ""
		r2.URL = &u
		fa.ServeHTTP(w, r2)
	default:
		http.NotFound(w, r)
	}
}

// mountedRequest is Mount's copy of a request with its own URL.
type mountedRequest struct {
	r http.Request
	u url.URL
}

// Mount serves h under prefix with the prefix stripped, so that h sees the
// prefix itself as "/".
func Mount(mux *http.ServeMux, prefix string, h http.Handler) {
	prefix = strings.TrimRight(prefix, "/")
	strip := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The request's copy and its URL's in one allocation.
		m := &mountedRequest{r: *r, u: *r.URL}
		r2, u := &m.r, &m.u
		u.Path = strings.TrimPrefix(r.URL.Path, prefix)
		u.RawPath = strings.TrimPrefix(r.URL.RawPath, prefix)
		if u.Path == "" {
			u.Path = "/"
		}
		if r.URL.RawPath != "" && u.RawPath == "" {
			u.RawPath = "/"
		}
		r2.URL = u
		h.ServeHTTP(w, r2)
	})
	mux.Handle(prefix+"/", strip)
	mux.Handle(prefix, strip)
}
