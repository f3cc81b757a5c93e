package endpoint

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint/relay"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// Session limits of Config.LegacySessions.
const (
	SessionIdleTTL = time.Hour
	MaxSessions    = 10_000
)

// sessions are the 2025-era (legacy) Mcp-Session-Id sessions, bound to the
// principal that initialized them. They exist so that a server-initiated
// request (elicitation/create) can be answered over streamable HTTP: the
// answer arrives in another POST, routed by the session id. A session id is
// never a credential: every request is authenticated, and a session is only
// usable by its owner (anyone else gets 404, as for an unknown session).
// The modern era (2026-07-28) has no sessions and is unaffected.
type sessions struct {
	now func() time.Time
	mu  sync.Mutex
	m   map[string]*session
}

type session struct {
	owner    string
	caps     *mcp.ClientCapabilities
	lastSeen time.Time
}

var errSessionNotFound = errors.New("endpoint: unknown session")

func newSessions(now func() time.Time) *sessions {
	return &sessions{now: now, m: map[string]*session{}}
}

// ResolveSessionIdManager implements server.SessionIdManagerResolver: the
// manager sees the principal our middleware put into the request context.
func (s *sessions) ResolveSessionIdManager(r *http.Request) server.SessionIdManager {
	return &sessionManager{s: s, owner: request.PrincipalFrom(r.Context()).Key()}
}

type sessionManager struct {
	s     *sessions
	owner string
}

var _ server.SessionIdManager = (*sessionManager)(nil)

// Generate mints a random session id owned by the caller.
func (m *sessionManager) Generate() string {
	if m.owner == "" {
		return ""
	}
	var b [24]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	s := m.s
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if len(s.m) >= MaxSessions {
		s.evict(now)
	}
	s.m[id] = &session{owner: m.owner, lastSeen: now}
	return id
}

// evict drops idle sessions, then the least recently seen ones until there
// is room. Callers hold mu.
func (s *sessions) evict(now time.Time) {
	for id, e := range s.m {
		if now.Sub(e.lastSeen) > SessionIdleTTL {
			delete(s.m, id)
		}
	}
	for len(s.m) >= MaxSessions {
		var oldest string
		var t time.Time
		for id, e := range s.m {
			if oldest == "" || e.lastSeen.Before(t) {
				oldest, t = id, e.lastSeen
			}
		}
		delete(s.m, oldest)
	}
}

// Validate accepts an empty id (a client without a session is served
// statelessly) and ids the caller owns; any other id is terminated (404).
func (m *sessionManager) Validate(id string) (bool, error) {
	if id == "" {
		return false, nil
	}
	s := m.s
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.m[id]
	now := s.now()
	if !ok || e.owner != m.owner || now.Sub(e.lastSeen) > SessionIdleTTL {
		return true, nil
	}
	e.lastSeen = now
	return false, nil
}

// Terminate ends a session of the caller's (DELETE).
func (m *sessionManager) Terminate(id string) (bool, error) {
	s := m.s
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.m[id]
	if !ok || e.owner != m.owner {
		return false, errSessionNotFound
	}
	delete(s.m, id)
	return false, nil
}

// remember records the capabilities declared at initialize.
func (s *sessions) remember(ctx context.Context, _ any, req *mcp.InitializeRequest, _ *mcp.InitializeResult) {
	cs := server.ClientSessionFromContext(ctx)
	if cs == nil || cs.SessionID() == "" || req == nil {
		return
	}
	caps := req.Params.Capabilities
	s.mu.Lock()
	if e, ok := s.m[cs.SessionID()]; ok {
		e.caps = &caps
	}
	s.mu.Unlock()
}

// restore gives the per-request session of a legacy request the
// capabilities its client declared at initialize, so tool handlers can tell
// whether the host supports elicitation.
func (s *sessions) restore(ctx context.Context, r *http.Request) context.Context {
	cs, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo)
	if !ok || cs == nil || cs.SessionID() == "" {
		return ctx
	}
	s.mu.Lock()
	e, found := s.m[cs.SessionID()]
	var caps *mcp.ClientCapabilities
	if found && e.owner == request.PrincipalFrom(r.Context()).Key() {
		caps = e.caps
	}
	s.mu.Unlock()
	if caps != nil {
		cs.SetClientCapabilities(*caps)
	}
	return ctx
}

// Live implements relay.Sessions: session is still owner's (not expired,
// not deleted).
func (s *sessions) Live(owner, session string) bool {
	gone, err := (&sessionManager{s: s, owner: owner}).Validate(session)
	return !gone && err == nil
}

var _ relay.Sessions = (*sessions)(nil)

// liveSessions is s as the relay's session check, nil when the face keeps
// no sessions.
func liveSessions(s *sessions) relay.Sessions {
	if s == nil {
		return nil
	}
	return s
}
