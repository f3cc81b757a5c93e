package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"time"

	"github.com/a2a-mcp-bridge/bridge/request"
)

// Authenticator turns a request into a Principal. An implementation that finds
// no credential it recognises returns an error matching ErrNoCredentials, so a
// Chain tries the next one; any other error is a definitive refusal.
type Authenticator interface {
	Authenticate(r *http.Request) (*request.Principal, error)
}

// Describer is implemented by authenticators that can describe what they accept.
type Describer interface {
	Describe() Scheme
}

// SchemeKind names a kind of credential, protocol-neutrally.
type SchemeKind string

// Scheme kinds reported by Describe.
const (
	SchemeOIDC      SchemeKind = "oidc"       // bearer JWT from an OIDC issuer (discovery URL known)
	SchemeBearerJWT SchemeKind = "bearer-jwt" // bearer JWT verified with static keys
	SchemeAPIKey    SchemeKind = "apikey"     // static key in Header (Authorization means bearer)
)

// Scheme describes one accepted credential, for the gateway to publish (A2A
// card securitySchemes, RFC 9728 metadata).
type Scheme struct {
	Kind         SchemeKind
	Issuer       string   // JWT issuer
	DiscoveryURL string   // OIDC discovery document (SchemeOIDC)
	Audience     []string // accepted aud values
	Scopes       []string // scopes every token must carry
	Header       string   // header carrying the credential
	BearerFormat string   // "JWT" for JWT schemes
}

// ChainOptions configure a Chain built by NewChain.
type ChainOptions struct {
	// Cache remembers verified tokens. Nil: no cache.
	Cache *TokenCache
	// IPLimit bounds verifications per client IP (cache hits are not counted).
	// Nil: no limit.
	IPLimit *IPLimiter
	// ClientIP extracts the client address for IPLimit. Default RemoteIP
	// (forwarded headers are not trusted).
	ClientIP func(*http.Request) netip.Addr
	// MaxTokenBytes caps a presented credential. Default DefaultMaxTokenBytes.
	MaxTokenBytes int
}

// Chain tries its authenticators in order and returns the first principal.
// In front of them it refuses malformed and oversized credentials, answers
// repeat tokens from its cache, and applies the per-IP limit. A JWT is only
// handed to the verifier of its (unverified) issuer; the verifier then checks
// that issuer again against the signature.
type Chain struct {
	auths    []Authenticator
	cache    *TokenCache
	limiter  *IPLimiter
	clientIP func(*http.Request) netip.Addr
	maxBytes int
}

var _ Authenticator = (*Chain)(nil)

// NewChain returns a chain over auths, tried in order.
func NewChain(opts ChainOptions, auths ...Authenticator) *Chain {
	if opts.ClientIP == nil {
		opts.ClientIP = RemoteIP
	}
	if opts.MaxTokenBytes <= 0 {
		opts.MaxTokenBytes = DefaultMaxTokenBytes
	}
	return &Chain{auths: slices.Clone(auths), cache: opts.Cache, limiter: opts.IPLimit, clientIP: opts.ClientIP, maxBytes: opts.MaxTokenBytes}
}

// Options are the runtime dependencies of New.
type Options struct {
	// HTTPClient fetches OIDC discovery and JWKS. Default NewHTTPClient();
	// the gateway passes netguard's client.
	HTTPClient *http.Client
	// ListenAddr is the address the server listens on; anonymous access is
	// refused unless it is loopback (or UnsafeAnonymousNonLoopback is set).
	ListenAddr string
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// ClientIP extracts the client address for the per-IP limit. Default RemoteIP.
	ClientIP func(*http.Request) netip.Addr
}

// New builds the chain for cfg: OIDC issuers (discovery runs now), JWKS
// files (read now), API keys, then anonymous.
func New(ctx context.Context, cfg Config, opts Options) (*Chain, error) {
	if errs := cfg.Validate(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	jopts := JWTOptions{HTTPClient: opts.HTTPClient, Now: opts.Now, MaxTokenBytes: cfg.MaxTokenBytes}
	var auths []Authenticator
	for _, o := range cfg.OIDC {
		a, err := NewOIDC(ctx, o, jopts)
		if err != nil {
			return nil, err
		}
		auths = append(auths, a)
	}
	for _, j := range cfg.JWKS {
		a, err := NewJWKSFile(j, jopts)
		if err != nil {
			return nil, err
		}
		auths = append(auths, a)
	}
	if len(cfg.APIKeys) > 0 {
		a, err := NewAPIKeys(cfg.APIKeys, cfg.APIKeyHeader, cfg.MaxTokenBytes)
		if err != nil {
			return nil, err
		}
		auths = append(auths, a)
	}
	if cfg.Anonymous {
		a, err := NewAnonymous(opts.ListenAddr, cfg.UnsafeAnonymousNonLoopback)
		if err != nil {
			return nil, err
		}
		auths = append(auths, a)
	}
	co := ChainOptions{ClientIP: opts.ClientIP, MaxTokenBytes: cfg.MaxTokenBytes}
	if !cfg.Cache.Disable {
		co.Cache = NewTokenCache(cfg.Cache.MaxEntries, cfg.Cache.MaxTTL, opts.Now)
	}
	if !cfg.IPLimit.Disable {
		co.IPLimit = NewIPLimiter(cfg.IPLimit.Rate, cfg.IPLimit.Burst, cfg.IPLimit.MaxClients, opts.Now)
	}
	return NewChain(co, auths...), nil
}

// Authenticate returns the caller's principal, or an *Error whose Status and
// Challenge the caller turns into the HTTP answer. The returned principal may
// be shared with other requests (cache): treat it as read-only. A token
// must name one of its issuer's configured audiences; ForAudience gives a
// face with audiences of its own.
func (c *Chain) Authenticate(r *http.Request) (*request.Principal, error) {
	return c.authenticate(r, nil)
}

// Audienced is a Chain for one face: a JWT must name one of the face's own
// audiences instead of its issuer's configured ones, so that a token issued
// for one face (the MCP endpoint's resource, RFC 8707) is refused on another
// (an A2A agent) and the reverse. API keys and anonymous callers carry no
// audience and are accepted as by the Chain.
type Audienced struct {
	c   *Chain
	aud []string
}

var _ Authenticator = (*Audienced)(nil)

// ForAudience returns the chain for a face whose tokens must name one of
// aud. An empty aud is the chain itself (each issuer's own audiences).
func (c *Chain) ForAudience(aud ...string) *Audienced {
	return &Audienced{c: c, aud: slices.Clone(aud)}
}

// Authenticate implements Authenticator.
func (a *Audienced) Authenticate(r *http.Request) (*request.Principal, error) {
	return a.c.AuthenticateFor(r, a.aud)
}

// AuthenticateFor is Authenticate for a face whose tokens must name one of
// aud (empty: each issuer's own audiences).
func (c *Chain) AuthenticateFor(r *http.Request, aud []string) (*request.Principal, error) {
	if len(aud) == 0 {
		return c.authenticate(r, nil)
	}
	return c.authenticate(r, aud)
}

// Audience is the face's accepted audiences (nil: each issuer's own).
func (a *Audienced) Audience() []string { return slices.Clone(a.aud) }

// audienceOK reports whether a cached principal may be used where its
// token must name one of want (nil: its issuer's configured audiences).
func (c *Chain) audienceOK(p *request.Principal, want []string) bool {
	if p.Method != "oidc" && p.Method != "jwks" {
		return true
	}
	if want == nil {
		j := c.JWT(p.Issuer)
		if j == nil {
			return false
		}
		want = j.audience
	}
	return slices.ContainsFunc(p.Audience, func(s string) bool { return slices.Contains(want, s) })
}

func (c *Chain) authenticate(r *http.Request, want []string) (*request.Principal, error) {
	tok, err := BearerToken(r, c.maxBytes)
	if err != nil {
		return nil, err
	}
	if err := c.onePrincipal(r, tok); err != nil {
		return nil, err
	}
	if tok != "" && c.cache != nil {
		if p := c.cache.Get(tok); p != nil {
			if !c.audienceOK(p, want) {
				return nil, invalidToken(ReasonAudience, "token audience not accepted", nil)
			}
			return p, nil
		}
	}
	if c.limiter != nil && (tok != "" || c.otherCredential(r)) {
		if ok, wait := c.limiter.Allow(c.clientIP(r)); !ok {
			e := newError(http.StatusTooManyRequests, "", ReasonRateLimited, "too many authentication attempts", nil)
			e.RetryAfter = wait
			return nil, e
		}
	}
	var pk jwtPeek
	jwtOK := false
	if tok != "" {
		var perr error
		pk, perr = peekJWT(tok)
		jwtOK = perr == nil
	}
	for _, a := range c.auths {
		var p *request.Principal
		var err error
		if j, ok := a.(*JWTAuthenticator); ok {
			if !jwtOK || pk.Issuer != j.issuer {
				continue
			}
			p, err = j.verify(r.Context(), tok, pk, want)
		} else {
			p, err = a.Authenticate(r)
		}
		if err == nil {
			if c.cache != nil && tok != "" && p.Token == tok {
				c.cache.Put(p)
			}
			return p, nil
		}
		if !errors.Is(err, ErrNoCredentials) {
			return nil, err
		}
	}
	switch {
	case jwtOK:
		return nil, invalidToken(ReasonIssuer, "token issuer not accepted", nil)
	case tok != "" && looksLikeJWT(tok):
		return nil, invalidToken(ReasonMalformed, "malformed token", nil)
	case tok != "":
		return nil, invalidToken(ReasonUnknownAPIKey, "unrecognised token", nil)
	}
	return nil, noCredentials()
}

// onePrincipal refuses a request that presents two credentials (a bearer
// token and an API key header), which could name two principals: which one
// the request acts as must not depend on which authenticator runs first.
func (c *Chain) onePrincipal(r *http.Request, tok string) error {
	if tok != "" && c.otherCredential(r) {
		return malformed("more than one credential: send the Authorization header or the API key header, not both", nil)
	}
	return nil
}

// otherCredential reports whether r carries a credential outside the bearer
// header (an API key header).
func (c *Chain) otherCredential(r *http.Request) bool {
	for _, a := range c.auths {
		if k, ok := a.(*APIKeys); ok && k.header != "" && len(r.Header.Values(k.header)) > 0 {
			return true
		}
	}
	return false
}

// Describe lists the accepted credential schemes, in chain order. Anonymous
// access is not a scheme; see AllowsAnonymous.
func (c *Chain) Describe() []Scheme {
	var out []Scheme
	for _, a := range c.auths {
		if d, ok := a.(Describer); ok {
			out = append(out, d.Describe())
		}
	}
	return out
}

// AllowsAnonymous reports whether callers without credentials are admitted.
func (c *Chain) AllowsAnonymous() bool {
	for _, a := range c.auths {
		if _, ok := a.(*Anonymous); ok {
			return true
		}
	}
	return false
}

// JWT returns the JWT authenticator for issuer, or nil.
func (c *Chain) JWT(issuer string) *JWTAuthenticator {
	for _, a := range c.auths {
		if j, ok := a.(*JWTAuthenticator); ok && j.issuer == issuer {
			return j
		}
	}
	return nil
}

// ResourceMetadata is an RFC 9728 OAuth protected resource metadata document.
type ResourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers,omitempty"`
	ScopesSupported        []string `json:"scopes_supported,omitempty"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
}

// ResourceMetadata returns the RFC 9728 document for resource (the exact URL
// clients use): the configured issuers as authorization servers and the
// required scopes. It errors when resource is empty.
func (c *Chain) ResourceMetadata(resource string) (ResourceMetadata, error) {
	if resource == "" {
		return ResourceMetadata{}, fmt.Errorf("auth: resource metadata: empty resource URL")
	}
	md := ResourceMetadata{Resource: resource, BearerMethodsSupported: []string{"header"}}
	for _, s := range c.Describe() {
		if s.Issuer != "" && !slices.Contains(md.AuthorizationServers, s.Issuer) {
			md.AuthorizationServers = append(md.AuthorizationServers, s.Issuer)
		}
		for _, sc := range s.Scopes {
			if !slices.Contains(md.ScopesSupported, sc) {
				md.ScopesSupported = append(md.ScopesSupported, sc)
			}
		}
	}
	return md, nil
}
