package gateway

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/gateway/hops"
	"github.com/a2a-mcp-bridge/bridge/gateway/observability"
	"github.com/a2a-mcp-bridge/bridge/observe"
	"github.com/a2a-mcp-bridge/bridge/request"
	"github.com/prometheus/client_golang/prometheus"
)

// RequestIDHeader carries the request id in and out (observe's header).
const RequestIDHeader = observe.RequestIDHeader

// GoingAwayComment is the SSE comment every open event stream receives when
// the server starts draining ([observability.GoingAwayComment]).
const GoingAwayComment = observability.GoingAwayComment

// GoingAway tells the open event streams that the server is draining; the
// serve command calls it when SIGTERM starts the drain (Listener.OnDrain).
// From then on /readyz answers 503 ("shutting down"), so that a load
// balancer sends no more. The streams, those released from net/http too
// ([server.StreamReleaseObserver]), stay open until their tasks end, their
// clients leave or the grace expires; then Stop fails the tasks still
// running, which gives their streams the final event.
func (b *Bridge) GoingAway() {
	b.draining.Store(true)
	if b.metrics != nil {
		b.metrics.GoingAway()
	}
}

// watchUpstreams sets the upstream metrics from the health registry now and
// every interval until ctx ends (each change is recorded as it happens; this
// catches up with the changes made before the metrics existed).
func (b *Bridge) watchUpstreams(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		b.recordUpstreams()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// taskEvent is the managers' OnEvent: task transitions counted, then push
// delivery.
func (b *Bridge) taskEvent(ctx context.Context, owner string, t *a2a.Task, ev a2a.StreamResponse) {
	b.metrics.Series().OnTaskEvent(ctx, owner, t, ev)
	if b.dispatcher != nil {
		b.dispatcher.OnEvent(ctx, owner, t, ev)
	}
}

// tracedClient is c with every request in a client span whose trace
// context is sent in traceparent ([observe.Transport]), so the agent's
// spans join the caller's trace.
func tracedClient(c *http.Client) *http.Client {
	if c.Transport == nil {
		return c // never fall back to a transport without the guard
	}
	cp := *c
	cp.Transport = observe.Transport(c.Transport)
	return &cp
}

// taskEvents is the OnEvent of one agent's manager ([Bridge.taskEvent]);
// transitions are counted by state, not by agent.
func (b *Bridge) taskEvents(string) func(ctx context.Context, owner string, t *a2a.Task, ev a2a.StreamResponse) {
	return b.taskEvent
}

// auditedAuthn records the principal an authenticator accepted.
type auditedAuthn struct{ hops.Authenticator }

func (a auditedAuthn) Authenticate(r *http.Request) (*request.Principal, error) {
	p, err := a.Authenticator.Authenticate(r)
	if err == nil {
		observability.SetPrincipal(r.Context(), p)
	}
	return p, err
}

// faceOf names the face a path belongs to, for metrics labels.
func faceOf(path, mcpPath string) string {
	switch {
	case strings.HasSuffix(path, "/.well-known/agent-card.json") || path == JWKSPath:
		return observability.FaceCard
	case strings.HasPrefix(path, "/a2a/") || grpcPath(path):
		return observability.FaceA2A
	case mcpPath != "" && (path == mcpPath || strings.HasPrefix(path, "/.well-known/oauth-protected-resource")):
		return observability.FaceMCP
	case path == "/healthz" || path == "/readyz" || path == "/metrics":
		return observability.FaceOps
	}
	return observability.FaceOther
}

// countTasks sets up the task counts and bridge_tasks when raw, the store
// under b.store, can count its tasks.
func (b *Bridge) countTasks(raw taskmanager.Store) error {
	if _, ok := raw.(taskmanager.TaskCounter); !ok {
		return nil
	}
	c, ok := b.store.(taskmanager.TaskCounter)
	if !ok {
		return nil
	}
	b.tasks = observability.NewTaskCounts(c)
	if err := b.reg.Register(observability.NewTaskGauge(b.tasks)); err != nil {
		if _, ok := errors.AsType[prometheus.AlreadyRegisteredError](err); !ok {
			return err
		}
	}
	return nil
}
