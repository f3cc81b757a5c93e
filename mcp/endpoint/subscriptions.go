package endpoint

import (
	"context"
	"sync"

	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint/relay"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// subscriptions tracks which sessions subscribed to which resource URIs and
// holds one source subscription per URI while any session is subscribed.
// Session-less (stateless HTTP) callers cannot subscribe: nothing could
// reach them later.
type subscriptions struct {
	f       *Face
	sources []ResourceSubscriber

	mu    sync.Mutex
	byURI map[string]map[string]bool // uri → session IDs
}

func newSubscriptions(f *Face) *subscriptions {
	return &subscriptions{f: f, byURI: map[string]map[string]bool{}}
}

// hook wires the subscription hooks and the sources' update callbacks.
func (s *subscriptions) hook(h *server.Hooks) {
	h.AddAfterSubscribe(func(ctx context.Context, _ any, req *mcp.SubscribeRequest, _ *mcp.EmptyResult) {
		s.subscribe(ctx, req.Params.URI)
	})
	h.AddAfterUnsubscribe(func(ctx context.Context, _ any, req *mcp.UnsubscribeRequest, _ *mcp.EmptyResult) {
		if cs := server.ClientSessionFromContext(ctx); cs != nil {
			s.drop(ctx, cs.SessionID(), req.Params.URI)
		}
	})
	h.AddOnUnregisterSession(func(ctx context.Context, cs server.ClientSession) {
		s.mu.Lock()
		var uris []string
		for uri, ids := range s.byURI {
			if ids[cs.SessionID()] {
				uris = append(uris, uri)
			}
		}
		s.mu.Unlock()
		for _, uri := range uris {
			s.drop(context.WithoutCancel(ctx), cs.SessionID(), uri)
		}
	})
	for _, src := range s.sources {
		src.OnResourceUpdated(s.updated)
	}
}

// subscribe records the caller's session on uri (when the policy lets it
// read uri) and subscribes the sources on the first one.
func (s *subscriptions) subscribe(ctx context.Context, uri string) {
	cs := server.ClientSessionFromContext(ctx)
	if cs == nil || cs.SessionID() == "" || uri == "" || !s.f.allowResource(ctx, uri, uri) {
		return
	}
	s.mu.Lock()
	ids := s.byURI[uri]
	first := ids == nil
	if first {
		ids = map[string]bool{}
		s.byURI[uri] = ids
	}
	ids[cs.SessionID()] = true
	s.mu.Unlock()
	if !first {
		return
	}
	for _, src := range s.sources {
		if err := src.SubscribeResource(ctx, uri); err != nil {
			s.f.log.Debug("endpoint: a source did not subscribe to a resource", "uri", relay.SanitizeLog(uri), "error", err.Error())
		}
	}
}

// drop removes a session's subscription and unsubscribes the sources after
// the last one.
func (s *subscriptions) drop(ctx context.Context, sid, uri string) {
	s.mu.Lock()
	ids := s.byURI[uri]
	if !ids[sid] {
		s.mu.Unlock()
		return
	}
	delete(ids, sid)
	last := len(ids) == 0
	if last {
		delete(s.byURI, uri)
	}
	s.mu.Unlock()
	if !last {
		return
	}
	for _, src := range s.sources {
		if err := src.UnsubscribeResource(ctx, uri); err != nil {
			s.f.log.Debug("endpoint: a source did not unsubscribe from a resource", "uri", relay.SanitizeLog(uri), "error", err.Error())
		}
	}
}

// updated tells every session subscribed to uri that it changed.
func (s *subscriptions) updated(uri string) {
	s.mu.Lock()
	ids := make([]string, 0, len(s.byURI[uri]))
	for id := range s.byURI[uri] {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	for _, id := range ids {
		if err := s.f.mcp.SendNotificationToSpecificClient(id, mcp.MethodNotificationResourceUpdated, map[string]any{"uri": uri}); err != nil {
			s.f.log.Debug("endpoint: could not notify a resource update", "error", err.Error())
		}
	}
}
