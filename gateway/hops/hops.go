// Package hops owns the hop chain every inbound call goes through:
// authenticate (after the pre-auth address limit) → rate-limit →
// authorize, and the A2A errors a refusal answers with (challenge headers,
// RateLimit and Retry-After). The faces apply it to a request.Hop they
// have built; the guards behind it are interfaces (Authenticator,
// Authorizer, Limiter) so that the gateway can swap them on reload.
//
// It must not import gateway, config, or any MCP package: the MCP faces
// read it through their own one-method interfaces (mcp/front.Checker).
package hops

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/gateway/observability"
	"github.com/a2a-mcp-bridge/bridge/policy"
	"github.com/a2a-mcp-bridge/bridge/ratelimit"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// Authenticator turns a request into a principal.
type Authenticator interface {
	Authenticate(r *http.Request) (*request.Principal, error)
}

// Authorizer decides whether a hop may be taken.
type Authorizer interface {
	Decide(ctx context.Context, hop request.Hop) policy.Decision
}

// Limiter counts a hop against the configured rate limits.
type Limiter interface {
	Allow(ctx context.Context, hop request.Hop) (ratelimit.Result, error)
}

// IPLimiter bounds work done per client address before authentication.
type IPLimiter interface {
	Check(ip string) ratelimit.Result
}

// Chain is the hop chain every inbound request goes through:
// authenticate → rate-limit → authorize, in that order.
type Chain struct {
	// Authn authenticates callers; nil makes every caller anonymous.
	Authn Authenticator
	// IPLimit runs before authentication (nil: none).
	IPLimit IPLimiter
	// Authz decides per hop; nil allows every hop.
	Authz Authorizer
	// Limits counts hops; nil limits nothing.
	Limits Limiter
	// Realm names the protection space in challenges.
	Realm string
	// Log receives refusals (never tokens).
	Log *slog.Logger
	// Metrics counts rate-limit refusals by face and rule (nil: none).
	Metrics *observability.Metrics
}

func (h *Chain) log() *slog.Logger {
	if h.Log != nil {
		return h.Log
	}
	return slog.Default()
}

// authenticate applies the pre-auth IP limit and the authenticator. The
// returned error is an *a2a.Error carrying the challenge headers.
func (h *Chain) authenticate(r *http.Request) (*request.Principal, *a2a.Error) {
	if h.IPLimit != nil {
		if res := h.IPLimit.Check(observability.ClientIP(r)); !res.Allowed {
			e := a2a.ErrRateLimited.With("too many requests from this address")
			e.Header = http.Header{}
			ratelimit.WriteHeaders(headerWriter(e.Header), res)
			return nil, e
		}
	}
	if h.Authn == nil {
		return auth.AnonymousPrincipal(), nil
	}
	p, err := h.Authn.Authenticate(r)
	if err == nil {
		return p, nil
	}
	hdr := http.Header{}
	status := auth.SetHeaders(hdr, h.Realm, err, "")
	var e *a2a.Error
	switch status {
	case http.StatusForbidden:
		e = a2a.ErrPermissionDenied.With("insufficient scope")
	case http.StatusTooManyRequests:
		e = a2a.ErrRateLimited.With("too many authentication attempts")
	default:
		e = a2a.ErrUnauthenticated.With(safeAuthMessage(err))
	}
	e.Header = hdr
	h.log().Info("authentication refused", "remote", observability.ClientIP(r), "status", status, "reason", authReason(err))
	return nil, e
}

func safeAuthMessage(err error) string {
	var ae *auth.Error
	if errors.As(err, &ae) && ae.Message != "" {
		return ae.Message
	}
	return "authentication required"
}

func authReason(err error) string {
	var ae *auth.Error
	if errors.As(err, &ae) {
		return ae.Reason.String()
	}
	return "unknown"
}

// headerWriter adapts a header map to the ResponseWriter that
// ratelimit.WriteHeaders fills.
type headerWriter http.Header

func (h headerWriter) Header() http.Header       { return http.Header(h) }
func (headerWriter) Write(b []byte) (int, error) { return len(b), nil }
func (headerWriter) WriteHeader(int)             {}

// audiencer is an authenticator that can hold a face to audiences of its
// own (gateway's live chain).
type audiencer interface {
	ForAudience(aud ...string) Authenticator
}

// ForAudience is the hop chain of a face whose tokens must name one of aud
// (auth.Chain.AuthenticateFor); empty aud keeps each issuer's own audiences.
func (h *Chain) ForAudience(aud []string) *Chain {
	a, ok := h.Authn.(audiencer)
	if !ok || len(aud) == 0 {
		return h
	}
	c := *h
	c.Authn = a.ForAudience(aud...)
	return &c
}

// ProtectA2A puts the hop chain's authentication in front of an agent's
// handler. The public card stays public; everything else needs a principal,
// which also becomes the owner of the tasks the caller creates.
func (h *Chain) ProtectA2A(srv *server.Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/.well-known/agent-card.json") {
			srv.ServeHTTP(w, r)
			return
		}
		p, err := h.authenticate(r)
		if err != nil {
			srv.WriteError(w, r, err)
			return
		}
		observability.SetPrincipal(r.Context(), p)
		srv.ServeHTTP(w, r.WithContext(withCaller(r.Context(), p)))
	})
}

// callerCtx carries a caller's principal (request.PrincipalFrom) and owner
// key (server.OwnerFromContext) in one allocation: request.WithPrincipal
// and server.WithOwner make three (two context values and the boxed owner
// string), which the allocation profile of bridge serve under load showed
// on every fronted call.
type callerCtx struct {
	context.Context
	p     *request.Principal
	owner string
}

// withCaller is request.WithPrincipal(ctx, p) then server.WithOwner(ctx,
// p.Key()).
func withCaller(ctx context.Context, p *request.Principal) context.Context {
	return &callerCtx{Context: ctx, p: p, owner: p.Key()}
}

// Value implements [context.Context].
func (c *callerCtx) Value(key any) any {
	if v, ok := request.PrincipalValue(key, c.p); ok {
		return v
	}
	if v, ok := server.OwnerValue(key, &c.owner); ok {
		return v
	}
	return c.Context.Value(key)
}

// A2AGuard is the server.Config.Guard of one agent: rate limits, then
// policy, for every parsed call.
func (h *Chain) A2AGuard(agent string, dir request.Direction) func(ctx context.Context, c *server.Call) error {
	return func(ctx context.Context, c *server.Call) error {
		hop := request.Hop{
			Principal: request.PrincipalFrom(ctx), Face: request.FaceA2A, Direction: dir,
			Agent: agent, Skill: c.Skill, Method: c.Method, TaskID: c.TaskID, RemoteIP: observability.ClientIP(c.Request),
		}
		observability.SetMethod(ctx, c.Method)
		observability.SetTarget(ctx, observability.Target{Agent: agent, Skill: c.Skill})
		return h.Check(ctx, hop)
	}
}

// Check applies the rate limits and the policy to a hop, returning an
// *a2a.Error for a refusal (callers of other protocols map it).
func (h *Chain) Check(ctx context.Context, hop request.Hop) error {
	if err := h.Limit(ctx, hop); err != nil {
		return err
	}
	return h.Authorize(ctx, hop)
}

// Authorize applies the policy alone to a hop (for a second decision on the
// same request once more is known, e.g. the tool a message selected, so
// that the limits are not counted twice).
func (h *Chain) Authorize(ctx context.Context, hop request.Hop) error {
	if h.Authz != nil {
		if d := h.Authz.Decide(ctx, hop); !d.Allow {
			return a2a.ErrPermissionDenied.Withf("denied by policy: %s", d.Reason)
		}
	}
	return nil
}

// Limit counts a hop against the rate limits alone.
func (h *Chain) Limit(ctx context.Context, hop request.Hop) error {
	if h.Limits != nil {
		res, err := h.Limits.Allow(ctx, hop)
		if err != nil {
			var le *ratelimit.LimitError
			if !errors.As(err, &le) {
				return a2a.ErrUnavailable.With("rate limiting is unavailable")
			}
			e := a2a.ErrRateLimited.Withf("rate limit %q exceeded; retry later", le.Result.Rule)
			if errors.Is(err, ratelimit.ErrUnavailable) {
				e = a2a.ErrUnavailable.With("rate limiting is unavailable; retry later")
			} else {
				h.Metrics.Series().RateLimited(string(hop.Face), le.Result.Rule)
			}
			e.Header = http.Header{}
			ratelimit.WriteHeaders(headerWriter(e.Header), le.Result)
			if e.Header.Get("Retry-After") == "" {
				e.Header.Set("Retry-After", strconv.Itoa(1))
			}
			return e
		}
		_ = res
	}
	return nil
}

// A2AContext authenticates r with the hop chain and returns the context
// an A2A call runs with: the principal, and its key as the tasks' owner.
func (h *Chain) A2AContext(r *http.Request) (context.Context, error) {
	p, err := h.authenticate(r)
	if err != nil {
		return nil, err
	}
	observability.SetPrincipal(r.Context(), p)
	return withCaller(r.Context(), p), nil
}
