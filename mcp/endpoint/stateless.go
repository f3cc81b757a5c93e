package endpoint

import (
	"context"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint/relay"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// A stateless (session-less) 2025-era host over streamable HTTP declares its
// capabilities once, on initialize, and never again: later requests carry
// no session and no capabilities. To know whether such a host can be asked
// (elicitation/create, sampling/createMessage) during a tools/call, the face
// keeps what each principal's host declared at its latest initialize in this
// process, for SessionIdleTTL. A tools/call whose response can stream (its
// Accept names text/event-stream) from a principal whose host declared the
// capability is asked on that call's own stream, with a bridge-minted
// unguessable id bound to the principal; the host answers with a new POST
// (samplingRelay). A principal unknown here (its initialize went to another
// replica, or long ago) is not asked: the fronted server's request is
// refused, never answered on the user's behalf. Two hosts of one principal
// that declare differently: the latest initialize wins.
type hostCaps struct {
	now func() time.Time
	mu  sync.Mutex
	m   map[string]hostCapsEntry
}

type hostCapsEntry struct {
	caps mcp.ClientCapabilities
	at   time.Time
}

// maxHostCaps bounds the remembered principals (the oldest is forgotten).
const maxHostCaps = MaxSessions

func newHostCaps(now func() time.Time) *hostCaps {
	return &hostCaps{now: now, m: map[string]hostCapsEntry{}}
}

// remember is an AfterInitialize hook: it keeps what the host of the
// principal in ctx declared.
func (h *hostCaps) remember(ctx context.Context, _ any, req *mcp.InitializeRequest, res *mcp.InitializeResult) {
	p := request.PrincipalFrom(ctx)
	if p == nil || req == nil || res == nil {
		return
	}
	now := h.now()
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.m[p.Key()]; !ok && len(h.m) >= maxHostCaps {
		oldest, first := "", true
		for k, e := range h.m {
			if first || e.at.Before(h.m[oldest].at) {
				oldest, first = k, false
			}
		}
		delete(h.m, oldest)
	}
	h.m[p.Key()] = hostCapsEntry{caps: req.Params.Capabilities, at: now}
}

// lookup returns what owner's host last declared, if within SessionIdleTTL.
func (h *hostCaps) lookup(owner string) (mcp.ClientCapabilities, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	e, ok := h.m[owner]
	if !ok {
		return mcp.ClientCapabilities{}, false
	}
	if h.now().Sub(e.at) > SessionIdleTTL {
		delete(h.m, owner)
		return mcp.ClientCapabilities{}, false
	}
	return e.caps, true
}

type hostCapsKey struct{}

type statelessAskKey struct{}

// HostCapabilities returns the capabilities the host of the request in ctx
// declared: its session's (stdio, HTTP sessions), or for a stateless HTTP
// tools/call the ones its principal's host declared at its latest
// initialize in this process (see hostCaps). ok is false where nothing is
// known: such a host must not be sent a server request.
func HostCapabilities(ctx context.Context) (mcp.ClientCapabilities, bool) {
	if c, ok := ctx.Value(hostCapsKey{}).(mcp.ClientCapabilities); ok {
		return c, true
	}
	if ctx.Value(statelessAskKey{}) != nil {
		return mcp.ClientCapabilities{}, false
	}
	cs, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo)
	if !ok || cs == nil {
		return mcp.ClientCapabilities{}, false
	}
	return cs.GetClientCapabilities(), true
}

// Elicit sends elicitation/create to the host of the request in ctx and
// returns its answer. On a stateless HTTP tools/call the face sends it on
// the call's own response stream with a bridge-minted id bound to the
// caller's principal (mcp-go's would be a counter routed by a session id
// the host does not have); elsewhere mcp-go sends it (the session's POST
// stream over HTTP, stdio).
func Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	if a, ok := ctx.Value(statelessAskKey{}).(*relay.Sampler); ok && a != nil {
		return a.Elicit(ctx, req)
	}
	srv := server.ServerFromContext(ctx)
	if srv == nil {
		return nil, errNoHost
	}
	return srv.RequestElicitation(ctx, req)
}
