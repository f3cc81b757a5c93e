package gateway

import (
	"context"
	"errors"
	"maps"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/gateway/health"
	"github.com/a2a-mcp-bridge/bridge/gateway/observability"
)

// Faces of a Route.
const (
	RouteFaceA2A = "a2a"
	RouteFaceMCP = "mcp"
	RouteFaceOps = "ops"
)

// Route is one endpoint the bridge serves on its listener: an agent at
// /a2a/{name} (published or fronted), an exposed agent or fronted MCP
// server behind the MCP endpoint, or an operational endpoint.
type Route struct {
	// Face is a2a, mcp or ops.
	Face string `json:"face"`
	// Kind is the configuration section behind it (publish, front.a2a,
	// expose, front.mcp); empty for the operational endpoints.
	Kind health.Kind `json:"kind,omitempty"`
	// Name is the upstream's configured name; empty for the operational
	// endpoints.
	Name string `json:"name,omitempty"`
	// Path is where it is served.
	Path string `json:"path"`
	// ToolPrefix is what a fronted MCP server's tool names start with.
	ToolPrefix string `json:"tool_prefix,omitempty"`
}

// Routes lists what the bridge serves now, following reloads of the
// upstream lists: every agent, every MCP tool source and the operational
// endpoints.
func (b *Bridge) Routes() []Route {
	b.upMu.Lock()
	lists := b.lists
	b.upMu.Unlock()
	cfg := b.cfg
	var out []Route
	if !b.mcpOnly {
		for _, p := range lists.publish {
			out = append(out, Route{Face: RouteFaceA2A, Kind: health.KindPublish, Name: p.Name, Path: "/a2a/" + p.Name})
		}
		for _, f := range lists.frontA2A {
			out = append(out, Route{Face: RouteFaceA2A, Kind: health.KindFrontA2A, Name: f.Name, Path: "/a2a/" + f.Name})
		}
	}
	if b.face != nil {
		for _, e := range lists.expose {
			out = append(out, Route{Face: RouteFaceMCP, Kind: health.KindExpose, Name: e.Alias, Path: cfg.Expose.MCP.Path})
		}
		for _, m := range lists.frontMCP {
			out = append(out, Route{Face: RouteFaceMCP, Kind: health.KindFrontMCP, Name: m.Name, Path: cfg.Expose.MCP.Path, ToolPrefix: m.ToolPrefix})
		}
	}
	ops := []string{"/healthz", "/readyz"}
	if b.signing.Load().jwks != nil {
		ops = append(ops, JWKSPath)
	}
	if cfg.Observability.MetricsEnabled() {
		ops = append(ops, cfg.Observability.MetricsPath)
	}
	for _, p := range ops {
		out = append(out, Route{Face: RouteFaceOps, Path: p})
	}
	return out
}

// ErrNoTaskCounts means the bridge's store does not count its tasks.
var ErrNoTaskCounts = errors.New("gateway: the task store does not count tasks by state")

// TasksByState counts the tasks in the store, of every owner, by state
// (every A2A state present, zero when none is in it). With several
// replicas on one store, it counts theirs too.
func (b *Bridge) TasksByState(ctx context.Context) (map[a2a.TaskState]int64, error) {
	if b.counter == nil {
		return nil, ErrNoTaskCounts
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	got, err := b.counter.CountTasks(ctx)
	if err != nil {
		return nil, err
	}
	out := maps.Clone(got)
	for _, s := range observability.TaskStates() {
		out[s] += 0
	}
	return out, nil
}

// Config is the configuration in force: the file the bridge started with,
// its reloadable sections as last reloaded.
func (b *Bridge) Config() *config.Config { return b.inForce.Load() }

// Started is when the bridge was built.
func (b *Bridge) Started() time.Time { return b.started }

// Gatherer is the registry the metrics are served from.
func (b *Bridge) Gatherer() prometheus.Gatherer { return b.reg }

// TaskStates lists the A2A task states in their lifecycle's order, for
// views that show every state.
func TaskStates() []a2a.TaskState { return observability.TaskStates() }
