// Package mcptools owns the MCP tools as the gateway wires them between
// the faces and the guards: a publish entry's allow_tools/deny_tools with
// the tools' hints (Filtered), the exposed agents' tools counted against
// the limits on stdio (Limited), the expose direction of the face's
// decisions and limits (ExposeDecider, Limits), and the tool call metrics
// and access-line fields (CountCalls, ObserveRequest).
//
// It must not import gateway or config: the gateway builds it from typed
// options.
package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/gateway/hops"
	"github.com/a2a-mcp-bridge/bridge/gateway/observability"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
	"github.com/a2a-mcp-bridge/bridge/mcp/expose"
	"github.com/a2a-mcp-bridge/bridge/mcp/publish"
	"github.com/a2a-mcp-bridge/bridge/observe"
	"github.com/a2a-mcp-bridge/bridge/policy"
	"github.com/a2a-mcp-bridge/bridge/ratelimit"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// Filtered applies a publish entry's allow_tools and deny_tools: a
// hidden tool is neither listed nor callable. It remembers the tools' hints
// for the policy.
type Filtered struct {
	publish.Upstream
	Allow, Deny []string
	// Agent names the published agent in the skill call metrics (M, nil:
	// none).
	Agent string
	M     *observability.Metrics

	mu    sync.Mutex
	known map[string]connector.Annotations
}

var (
	_ publish.Upstream     = (*Filtered)(nil)
	_ publish.Availability = (*Filtered)(nil)
)

// Available implements publish.Availability for upstreams that know it.
func (f *Filtered) Available() error {
	if av, ok := f.Upstream.(publish.Availability); ok {
		return av.Available()
	}
	return nil
}

func (f *Filtered) visible(name string) bool {
	for _, p := range f.Deny {
		if ok, _ := path.Match(p, name); ok {
			return false
		}
	}
	if len(f.Allow) == 0 {
		return true
	}
	for _, p := range f.Allow {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

func (f *Filtered) filter(ts []connector.Tool) []connector.Tool {
	out := make([]connector.Tool, 0, len(ts))
	known := make(map[string]connector.Annotations, len(ts))
	for _, t := range ts {
		if f.visible(t.Name) {
			out = append(out, t)
			known[t.Name] = t.Annotations
		}
	}
	f.mu.Lock()
	f.known = known
	f.mu.Unlock()
	return out
}

// Tools implements publish.Upstream.
func (f *Filtered) Tools(ctx context.Context) ([]connector.Tool, error) {
	ts, err := f.Upstream.Tools(ctx)
	if err != nil {
		return nil, err
	}
	return f.filter(ts), nil
}

// CallTool implements publish.Upstream.
func (f *Filtered) CallTool(ctx context.Context, name string, args json.RawMessage, progress connector.ProgressFunc, elicit connector.ElicitFunc) (json.RawMessage, error) {
	if !f.visible(name) {
		return nil, fmt.Errorf("gateway: tool %q is not published", name)
	}
	start := time.Now()
	res, err := f.Upstream.CallTool(ctx, name, args, progress, elicit)
	outcome := callOutcome(res, err)
	if ctx.Err() != nil {
		outcome = observe.OutcomeCanceled // the task was cancelled
	}
	f.M.Series().SkillCall(f.Agent, name, outcome, time.Since(start))
	return res, err
}

// callOutcome is the outcome label of an MCP tool call's raw result.
func callOutcome(res json.RawMessage, err error) string {
	if err != nil {
		return observe.OutcomeError
	}
	var r struct {
		IsError bool `json:"isError"`
	}
	if json.Unmarshal(res, &r) == nil && r.IsError {
		return observe.OutcomeToolError
	}
	return observe.OutcomeOK
}

// CountCalls is the MCP face's tool middleware that counts every
// tools/call by tool, outcome and latency, and names the tool in the
// access line. mcp-go runs it only for a tool the face serves, so the tool
// label takes served names only.
func CountCalls(m *observability.Metrics) func(server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			observability.SetTarget(ctx, observability.Target{Tool: req.Params.Name})
			start := time.Now()
			res, err := next(ctx, req)
			outcome := observe.OutcomeOK
			switch {
			case ctx.Err() != nil:
				outcome = observe.OutcomeCanceled // the host went away or cancelled
			case err != nil:
				outcome = observe.OutcomeError
			case res != nil && res.IsError:
				outcome = observe.OutcomeToolError
			}
			m.Series().ToolCall(req.Params.Name, outcome, time.Since(start))
			return res, err
		}
	}
}

// ObserveRequest is the MCP face's OnRequest: the method (also when the
// limits do not count it) for the metrics and the access line, and what
// was called for the access line.
func ObserveRequest(ctx context.Context, hop request.Hop, resource string) {
	observability.SetMethod(ctx, hop.Method)
	observability.SetTarget(ctx, observability.Target{Agent: hop.Agent, Tool: hop.Tool, Resource: resource})
}

// OnToolsChanged implements publish.Upstream.
func (f *Filtered) OnToolsChanged(fn func([]connector.Tool)) {
	f.Upstream.OnToolsChanged(func(ts []connector.Tool) { fn(f.filter(ts)) })
}

// Hints reports a tool's destructive and read-only hints (unknown tools are
// treated as destructive, as MCP says).
func (f *Filtered) Hints(name string) (destructive, readOnly bool) {
	f.mu.Lock()
	a, ok := f.known[name]
	f.mu.Unlock()
	if !ok {
		return true, false
	}
	return a.Destructive(), a.ReadOnly()
}

// ReadOnly reports a tool's read-only hint (Hints).
func (f *Filtered) ReadOnly(name string) bool {
	_, ro := f.Hints(name)
	return ro
}

// Limited wraps the exposed agents' tools so that a call the face's
// front door did not count (stdio) is counted against the rate limits (the
// face's policy filter has already decided that the caller may see and
// call the tool).
type Limited struct {
	Src  *expose.AgentTools
	Hops *hops.Chain
}

var (
	_ endpoint.ToolSource     = (*Limited)(nil)
	_ endpoint.HopDescriber   = (*Limited)(nil)
	_ endpoint.Notifier       = (*Limited)(nil)
	_ endpoint.ResourceSource = (*Limited)(nil)
	// The cards' resources are decided under their agent: without this,
	// a card's hop would name no agent, and a policy that allows the
	// agent (deny by default) would hide its card.
	_ endpoint.ResourceHopDescriber = (*Limited)(nil)
)

// Tools implements endpoint.ToolSource.
func (l *Limited) Tools() []server.ServerTool {
	ts := l.Src.Tools()
	out := make([]server.ServerTool, len(ts))
	for i, t := range ts {
		name, next := t.Tool.Name, t.Handler
		t.Handler = func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			observability.SetMethod(ctx, "tools/call")
			if !endpoint.Counted(ctx) {
				// stdio: no front door counted the call (over HTTP the face
				// did, and answered 429 when over a limit).
				hop, _ := l.Src.Hop(name)
				hop.Principal = request.PrincipalFrom(ctx)
				hop.Face, hop.Direction, hop.Tool, hop.Method = request.FaceMCP, request.DirExpose, name, "tools/call"
				if err := l.Hops.Limit(ctx, hop); err != nil {
					msg := "refused"
					if e := a2a.AsError(err); e != nil {
						msg = e.Message
					}
					return mcp.NewToolResultError(msg), nil
				}
			}
			return next(ctx, req)
		}
		out[i] = t
	}
	return out
}

// Hop implements endpoint.HopDescriber.
func (l *Limited) Hop(tool string) (request.Hop, bool) {
	h, ok := l.Src.Hop(tool)
	h.Direction = request.DirExpose
	return h, ok
}

// OnChange implements endpoint.Notifier.
func (l *Limited) OnChange(fn func()) { l.Src.OnChange(fn) }

// Resources implements endpoint.ResourceSource.
func (l *Limited) Resources() []server.ServerResource { return l.Src.Resources() }

// ResourceHop implements endpoint.ResourceHopDescriber: an agent card belongs
// to its agent.
func (l *Limited) ResourceHop(uri string) (request.Hop, bool) {
	h, ok := l.Src.ResourceHop(uri)
	h.Direction = request.DirExpose
	return h, ok
}

// ExposeDecider marks the face's hops as the expose direction.
type ExposeDecider struct{ E hops.Authorizer }

// Decide implements endpoint.Decider.
func (d ExposeDecider) Decide(ctx context.Context, hop request.Hop) policy.Decision {
	if hop.Direction == "" {
		hop.Direction = request.DirExpose
	}
	return d.E.Decide(ctx, hop)
}

// Limits is the MCP face's front-door limiter: the hop chain's limits,
// with the face's refusals counted in the metrics.
type Limits struct{ H *hops.Chain }

var _ endpoint.Limiter = Limits{}

// Allow implements endpoint.Limiter.
func (l Limits) Allow(ctx context.Context, hop request.Hop) (ratelimit.Result, error) {
	observability.SetMethod(ctx, hop.Method)
	if l.H.Limits == nil {
		return ratelimit.Result{Allowed: true}, nil
	}
	if hop.Direction == "" {
		hop.Direction = request.DirExpose
	}
	res, err := l.H.Limits.Allow(ctx, hop)
	var le *ratelimit.LimitError
	if errors.As(err, &le) && !errors.Is(err, ratelimit.ErrUnavailable) {
		l.H.Metrics.Series().RateLimited(string(hop.Face), le.Result.Rule)
	}
	return res, err
}
