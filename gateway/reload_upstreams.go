package gateway

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/gateway/health"
	"github.com/a2a-mcp-bridge/bridge/gateway/upstream"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/expose"
	"github.com/a2a-mcp-bridge/bridge/mcp/front"
)

// upstreamLists are the upstream sections in force: Build's, then each
// reload's.
type upstreamLists struct {
	publish  []config.PublishedServer
	frontA2A []config.FrontedAgent
	frontMCP []config.FrontedMCPServer
	expose   []config.ExposedAgent
	// exposeCfg are the exposed agents' configurations in use, one per
	// expose entry (an unchanged entry keeps its credentials and keys).
	exposeCfg []expose.AgentConfig
}

func listsOf(cfg *config.Config) upstreamLists {
	return upstreamLists{
		publish:  append([]config.PublishedServer(nil), cfg.Publish...),
		frontA2A: append([]config.FrontedAgent(nil), cfg.Front.A2A...),
		frontMCP: append([]config.FrontedMCPServer(nil), cfg.Front.MCP...),
		expose:   append([]config.ExposedAgent(nil), cfg.Expose.Agents...),
	}
}

// diff sorts the entries of two lists by name: added (in next only),
// removed (in cur only), changed (in both, different) and kept.
func diff[T any](cur, next []T, name func(*T) string) (added, changed []*T, removed []string, kept map[string]bool) {
	old := map[string]*T{}
	for i := range cur {
		old[name(&cur[i])] = &cur[i]
	}
	kept = map[string]bool{}
	for i := range next {
		n := &next[i]
		o, ok := old[name(n)]
		switch {
		case !ok:
			added = append(added, n)
		case !reflect.DeepEqual(*o, *n):
			changed = append(changed, n)
		default:
			kept[name(n)] = true
		}
		delete(old, name(n))
	}
	for n := range old {
		removed = append(removed, n)
	}
	return added, changed, removed, kept
}

// upstreamPlan is a reload of the upstream lists, converted and checked
// before anything changes.
type upstreamPlan struct {
	next upstreamLists

	pubAdd, pubChange []*config.PublishedServer
	pubRemove         []string

	a2aAdd    []*frontedAgent // added and changed entries, built
	a2aRemove []string        // removed and changed entries

	mcpOpen   []*config.FrontedMCPServer // added and changed entries
	mcpConfig map[string]connector.Config
	mcpRemove []string // removed and changed entries
	mcpTouch  bool

	exposeAdded, exposeRemoved, exposeChanged []string
	exposeTouch                               bool

	applied, restart []string
}

// reloadUpstreams applies the upstream lists of next (publish,
// expose.agents, front.a2a, front.mcp) while serving, and returns what it
// applied and what needs a restart; Reload calls it. An added entry is
// connected (in the background if its upstream is down) and mounted, a
// removed one unmounted (its routes and tools disappear at once) and
// closed once its running tasks finish (at most server.shutdown_grace), a
// changed one is both. Every entry is converted first: on an error nothing
// changes. changed (the sections that differ, when the caller knows them)
// is not needed: the lists are compared with the ones in force.
func (b *Bridge) reloadUpstreams(ctx context.Context, next *config.Config, _ []string) (applied, restart []string, err error) {
	b.upMu.Lock()
	cur := b.lists
	b.upMu.Unlock()
	plan, err := b.planUpstreams(cur, next)
	if err != nil {
		return nil, nil, err
	}
	b.applyUpstreams(ctx, plan)
	b.upMu.Lock()
	b.lists = plan.next
	b.upMu.Unlock()
	return plan.applied, plan.restart, nil
}

// planUpstreams converts every added and changed entry (credentials, keys,
// URLs) without touching what runs.
func (b *Bridge) planUpstreams(cur upstreamLists, next *config.Config) (*upstreamPlan, error) {
	p := &upstreamPlan{next: listsOf(next), mcpConfig: map[string]connector.Config{}}
	note := func(section, name, what string) {
		p.applied = append(p.applied, fmt.Sprintf("%s[%s] %s", section, name, what))
	}

	// publish and front.a2a: A2A agents at /a2a/{name}; not served by
	// `bridge mcp`.
	pubAdd, pubChange, pubRemove, _ := diff(cur.publish, p.next.publish, func(e *config.PublishedServer) string { return e.Name })
	a2aAdd, a2aChange, a2aRemove, _ := diff(cur.frontA2A, p.next.frontA2A, func(e *config.FrontedAgent) string { return e.Name })
	if b.mcpOnly {
		p.next.publish, p.next.frontA2A = cur.publish, cur.frontA2A
	} else {
		for _, e := range append(pubAdd, pubChange...) {
			if _, err := upstream.MCP(e, b.streams, b.log); err != nil {
				return nil, err
			}
		}
		p.pubAdd, p.pubChange, p.pubRemove = pubAdd, pubChange, pubRemove
		for _, e := range pubAdd {
			note("publish", e.Name, "added")
		}
		for _, e := range pubChange {
			note("publish", e.Name, "changed")
		}
		for _, n := range pubRemove {
			note("publish", n, "removed")
		}
		for _, e := range append(a2aAdd, a2aChange...) {
			fa, err := b.frontAgent("front.a2a["+e.Name+"]", e)
			if err != nil {
				return nil, err
			}
			p.a2aAdd = append(p.a2aAdd, fa)
		}
		for _, e := range a2aAdd {
			note("front.a2a", e.Name, "added")
		}
		for _, e := range a2aChange {
			note("front.a2a", e.Name, "changed")
			p.a2aRemove = append(p.a2aRemove, e.Name)
		}
		for _, n := range a2aRemove {
			note("front.a2a", n, "removed")
			p.a2aRemove = append(p.a2aRemove, n)
		}
	}

	// front.mcp: servers behind the MCP face.
	mcpAdd, mcpChange, mcpRemove, _ := diff(cur.frontMCP, p.next.frontMCP, func(e *config.FrontedMCPServer) string { return e.Name })
	if len(mcpAdd)+len(mcpChange)+len(mcpRemove) > 0 {
		if b.front.mcp == nil {
			p.restart = append(p.restart, "front.mcp (the MCP endpoint was not built at start)")
			p.next.frontMCP = cur.frontMCP
		} else {
			p.mcpTouch = true
			for _, e := range append(mcpAdd, mcpChange...) {
				ucfg, err := b.frontMCPConfig(e)
				if err != nil {
					return nil, fmt.Errorf("gateway: front.mcp[%s]: %w", e.Name, err)
				}
				p.mcpConfig[e.Name] = ucfg
				p.mcpOpen = append(p.mcpOpen, e)
			}
			for _, e := range mcpAdd {
				note("front.mcp", e.Name, "added")
			}
			for _, e := range mcpChange {
				note("front.mcp", e.Name, "changed")
				p.mcpRemove = append(p.mcpRemove, e.Name)
			}
			for _, n := range mcpRemove {
				note("front.mcp", n, "removed")
				p.mcpRemove = append(p.mcpRemove, n)
			}
		}
	}

	// expose.agents: agents behind the MCP face.
	exAdd, exChange, exRemove, exKept := diff(cur.expose, p.next.expose, func(e *config.ExposedAgent) string { return e.Alias })
	switch {
	case len(exAdd)+len(exChange)+len(exRemove) == 0:
		p.next.exposeCfg = cur.exposeCfg
	case b.tools == nil:
		p.restart = append(p.restart, "expose.agents (the MCP endpoint was not built at start)")
		p.next.expose, p.next.exposeCfg = cur.expose, cur.exposeCfg
	default:
		p.exposeTouch = true
		inUse := map[string]expose.AgentConfig{}
		for _, ac := range cur.exposeCfg {
			inUse[ac.Alias] = ac
		}
		for i := range p.next.expose {
			e := &p.next.expose[i]
			if ac, ok := inUse[e.Alias]; ok && exKept[e.Alias] {
				p.next.exposeCfg = append(p.next.exposeCfg, ac)
				continue
			}
			ac, err := b.exposedAgent("expose.agents["+e.Alias+"]", e)
			if err != nil {
				return nil, err
			}
			p.next.exposeCfg = append(p.next.exposeCfg, ac)
		}
		if err := expose.Validate(p.next.exposeCfg); err != nil {
			return nil, fmt.Errorf("gateway: expose: %w", err)
		}
		for _, e := range exAdd {
			note("expose.agents", e.Alias, "added")
			p.exposeAdded = append(p.exposeAdded, e.Alias)
		}
		for _, e := range exChange {
			note("expose.agents", e.Alias, "changed")
			p.exposeChanged = append(p.exposeChanged, e.Alias)
		}
		for _, n := range exRemove {
			note("expose.agents", n, "removed")
			p.exposeRemoved = append(p.exposeRemoved, n)
		}
	}
	return p, nil
}

// applyUpstreams carries a plan out. An entry that cannot be started (it
// was converted, so this is rare) is logged and listed as needing a
// restart; the others are applied.
func (b *Bridge) applyUpstreams(ctx context.Context, p *upstreamPlan) {
	failed := func(what string, err error) {
		b.log.Error("reload: an upstream could not be started", "upstream", what, "err", err)
		p.restart = append(p.restart, what+" (could not be started: see the log)")
	}
	// publish: removed and changed entries go, then added and changed ones
	// come (a changed agent is unavailable for that moment).
	for _, n := range p.pubRemove {
		b.unpublish(n)
	}
	for _, e := range p.pubChange {
		b.unpublish(e.Name)
	}
	for _, e := range append(p.pubAdd, p.pubChange...) {
		if err := b.publish(ctx, e); err != nil {
			failed("publish["+e.Name+"]", err)
		}
	}
	// front.a2a.
	for _, n := range p.a2aRemove {
		b.unfront(n)
	}
	for _, fa := range p.a2aAdd {
		b.startFront(ctx, fa)
	}
	// front.mcp: open the new connections, swap the served set, then close
	// the dropped ones.
	if p.mcpTouch {
		b.upMu.Lock()
		byName := map[string]*connector.Conn{}
		for _, s := range b.front.servers {
			byName[s.name] = s.conn
		}
		b.upMu.Unlock()
		var dropped []*connector.Conn
		for _, n := range p.mcpRemove {
			if c := b.dropFrontMCP(n); c != nil {
				dropped = append(dropped, c)
			}
			delete(byName, n)
		}
		opened := map[string]front.Server{}
		for _, e := range p.mcpOpen {
			fs, err := b.openFrontMCP(ctx, e, p.mcpConfig[e.Name])
			if err != nil {
				failed("front.mcp["+e.Name+"]", err)
				continue
			}
			opened[e.Name] = fs
		}
		var servers []front.Server
		for i := range p.next.frontMCP {
			m := &p.next.frontMCP[i]
			if fs, ok := opened[m.Name]; ok {
				servers = append(servers, fs)
			} else if c := byName[m.Name]; c != nil {
				servers = append(servers, front.Server{Name: m.Name, Prefix: m.ToolPrefix, Upstream: c})
			}
		}
		if err := b.front.mcp.SetServers(ctx, servers); err != nil {
			failed("front.mcp", err)
		}
		for _, c := range dropped {
			b.retire(nil, c)
		}
	}
	// expose.agents.
	if p.exposeTouch {
		for _, n := range append(p.exposeRemoved, p.exposeChanged...) {
			b.monitors.Remove(health.KindExpose, n)
			b.health.Remove(health.KindExpose, n)
		}
		b.setOwnExposed(p.next.expose)
		if err := b.tools.SetAgents(p.next.exposeCfg); err != nil {
			failed("expose.agents", err)
		} else {
			for _, n := range append(p.exposeAdded, p.exposeChanged...) {
				b.health.Add(health.KindExpose, n)
			}
			if err := b.tools.Refresh(ctx); err != nil {
				b.log.Warn("reload: some exposed agents are not available yet; retrying in the background", "err", err)
			}
			b.reportExposed()
			for _, n := range append(p.exposeAdded, p.exposeChanged...) {
				b.monitors.Add(b.exposeMonitor(n))
			}
		}
	}
}

// unpublish unmounts a published agent and retires it.
func (b *Bridge) unpublish(name string) {
	b.routes.remove(name)
	b.grpcTargets.remove(name)
	b.monitors.Remove(health.KindPublish, name)
	b.health.Remove(health.KindPublish, name)
	b.upMu.Lock()
	var pa *publishedAgent
	for i, a := range b.agents {
		if a.name == name {
			pa = a
			b.agents = append(b.agents[:i:i], b.agents[i+1:]...)
			break
		}
	}
	b.upMu.Unlock()
	if pa != nil {
		b.retire(pa.mgr, pa.conn)
	}
}

// unfront unmounts a fronted agent and retires it.
func (b *Bridge) unfront(name string) {
	b.routes.remove(name)
	b.grpcTargets.remove(name)
	b.monitors.Remove(health.KindFrontA2A, name)
	b.health.Remove(health.KindFrontA2A, name)
	b.upMu.Lock()
	var fa *frontedAgent
	for i, a := range b.front.agents {
		if a.name == name {
			fa = a
			b.front.agents = append(b.front.agents[:i:i], b.front.agents[i+1:]...)
			break
		}
	}
	b.upMu.Unlock()
	if fa != nil {
		fa.mu.Lock()
		mgr := fa.mgr
		fa.mu.Unlock()
		b.retire(mgr, nil)
	}
}

// dropFrontMCP forgets a fronted MCP server and returns its connection.
func (b *Bridge) dropFrontMCP(name string) *connector.Conn {
	b.monitors.Remove(health.KindFrontMCP, name)
	b.health.Remove(health.KindFrontMCP, name)
	b.upMu.Lock()
	defer b.upMu.Unlock()
	for i, s := range b.front.servers {
		if s.name == name {
			b.front.servers = append(b.front.servers[:i:i], b.front.servers[i+1:]...)
			return s.conn
		}
	}
	return nil
}

// retire lets a removed upstream's running tasks finish (at most
// server.shutdown_grace), then closes its connection. Close waits for it.
func (b *Bridge) retire(mgr *taskmanager.Manager, conn *connector.Conn) {
	grace := b.cfg.Server.ShutdownGrace.D()
	if grace <= 0 {
		grace = 30 * time.Second
	}
	b.retiring.Go(func() {
		if mgr != nil {
			done := make(chan struct{})
			go func() { mgr.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(grace):
				b.log.Warn("reload: a removed agent's tasks still run after the grace; closing its upstream", "grace", grace.String())
			}
		}
		if conn != nil {
			_ = conn.Close()
		}
	})
}
