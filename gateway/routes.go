package gateway

import (
	"net/http"
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

// serveRootCard serves /.well-known/agent-card.json: the card of the only
// published agent, else of the only fronted agent when nothing is
// published; 404 otherwise.
func (b *Bridge) serveRootCard(w http.ResponseWriter, r *http.Request) {
	b.upMu.Lock()
	var pa *publishedAgent
	var fa *frontedAgent
	switch {
	case len(b.agents) == 1:
		pa = b.agents[0]
	case len(b.agents) == 0 && len(b.front.agents) == 1:
		fa = b.front.agents[0]
	}
	b.upMu.Unlock()
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
