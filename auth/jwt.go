package auth

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	jose "github.com/go-jose/go-jose/v4"

	"github.com/a2a-mcp-bridge/bridge/request"
)

// JWTAuthenticator verifies JWT access tokens of one issuer: signature (alg
// allow-list, keys from OIDC discovery or a JWKS file), issuer, audience,
// exp/nbf/iat with bounded skew, optional typ, and required scopes.
type JWTAuthenticator struct {
	method      string // "oidc" or "jwks"
	issuer      string
	audience    []string
	scopes      []string
	algs        []string
	typs        []string
	skew        time.Duration
	groupsClaim string
	maxBytes    int
	now         func() time.Time

	keys     *keySet
	verifier *oidc.IDTokenVerifier
	scheme   Scheme
}

var _ Authenticator = (*JWTAuthenticator)(nil)

// JWTOptions are the runtime dependencies of a JWT authenticator.
type JWTOptions struct {
	// HTTPClient fetches discovery and JWKS. Default: NewHTTPClient().
	// The gateway passes netguard's client.
	HTTPClient *http.Client
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// MaxTokenBytes caps the token. Default DefaultMaxTokenBytes.
	MaxTokenBytes int
}

func (o *JWTOptions) fill() {
	if o.HTTPClient == nil {
		o.HTTPClient = NewHTTPClient()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxTokenBytes <= 0 {
		o.MaxTokenBytes = DefaultMaxTokenBytes
	}
}

// NewOIDC runs OIDC discovery for cfg.Issuer (or cfg.DiscoveryURL) through
// opts.HTTPClient and returns its verifier. Keys are fetched lazily on the
// first token and cached.
func NewOIDC(ctx context.Context, cfg OIDCConfig, opts JWTOptions) (*JWTAuthenticator, error) {
	opts.fill()
	if errs := validateJWT("oidc", cfg.Issuer, cfg.Audience, cfg.Algorithms, cfg.ClockSkew); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	dctx := oidc.ClientContext(ctx, opts.HTTPClient)
	discovery := cfg.DiscoveryURL
	if discovery != "" {
		// go-oidc appends the well-known path to what it is given; a custom
		// discovery document is reached by giving its base and telling
		// go-oidc which issuer to expect.
		discovery = strings.TrimSuffix(discovery, "/.well-known/openid-configuration")
		dctx = oidc.InsecureIssuerURLContext(dctx, cfg.Issuer)
	} else {
		discovery = cfg.Issuer
	}
	prov, err := oidc.NewProvider(dctx, discovery)
	if err != nil {
		return nil, fmt.Errorf("auth: oidc discovery for %s: %w", cfg.Issuer, err)
	}
	var meta struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := prov.Claims(&meta); err != nil {
		return nil, fmt.Errorf("auth: oidc discovery for %s: %w", cfg.Issuer, err)
	}
	if meta.Issuer != cfg.Issuer {
		return nil, fmt.Errorf("auth: oidc discovery: issuer %q does not match configured %q", meta.Issuer, cfg.Issuer)
	}
	if meta.JWKSURI == "" {
		return nil, fmt.Errorf("auth: oidc discovery for %s: no jwks_uri", cfg.Issuer)
	}
	if err := CheckIdentityURL(meta.JWKSURI, cfg.UnsafeAllowHTTP); err != nil {
		return nil, fmt.Errorf("auth: oidc discovery for %s: jwks_uri: %w", cfg.Issuer, err)
	}
	minRefresh := cfg.MinRefreshInterval
	if minRefresh == 0 {
		minRefresh = DefaultMinRefreshInterval
	}
	a := newJWT("oidc", cfg.Issuer, cfg.Audience, cfg.Scopes, cfg.Algorithms, cfg.TokenTypes, cfg.ClockSkew, cfg.GroupsClaim, opts)
	a.keys.fetch = remoteJWKS(opts.HTTPClient, meta.JWKSURI)
	a.keys.minRefresh = minRefresh
	du := cfg.DiscoveryURL
	if du == "" {
		du = strings.TrimSuffix(cfg.Issuer, "/") + "/.well-known/openid-configuration"
	}
	a.scheme = Scheme{Kind: SchemeOIDC, Issuer: cfg.Issuer, DiscoveryURL: du, Audience: cfg.Audience, Scopes: cfg.Scopes, Header: "Authorization", BearerFormat: "JWT"}
	return a, nil
}

// NewJWKSFile returns a verifier for cfg.Issuer whose keys are read from
// cfg.File once, now.
func NewJWKSFile(cfg JWKSConfig, opts JWTOptions) (*JWTAuthenticator, error) {
	opts.fill()
	errs := validateJWT("jwks", cfg.Issuer, cfg.Audience, cfg.Algorithms, cfg.ClockSkew)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	keys, err := readJWKSFile(cfg.File)
	if err != nil {
		return nil, err
	}
	return NewJWKSKeys(cfg, keys, opts), nil
}

// NewJWKSKeys is NewJWKSFile with the keys already in hand (cfg.File is
// ignored). Symmetric and private keys are dropped. cfg must be valid.
func NewJWKSKeys(cfg JWKSConfig, keys []jose.JSONWebKey, opts JWTOptions) *JWTAuthenticator {
	opts.fill()
	a := newJWT("jwks", cfg.Issuer, cfg.Audience, cfg.Scopes, cfg.Algorithms, cfg.TokenTypes, cfg.ClockSkew, cfg.GroupsClaim, opts)
	for _, k := range keys {
		if _, sym := k.Key.([]byte); !sym && k.IsPublic() && k.Valid() {
			a.keys.keys = append(a.keys.keys, k)
		}
	}
	a.scheme = Scheme{Kind: SchemeBearerJWT, Issuer: cfg.Issuer, Audience: cfg.Audience, Scopes: cfg.Scopes, Header: "Authorization", BearerFormat: "JWT"}
	return a
}

func newJWT(method, issuer string, aud, scopes, algs, typs []string, skew time.Duration, groups string, opts JWTOptions) *JWTAuthenticator {
	if len(algs) == 0 {
		algs = DefaultAlgorithms
	}
	if skew == 0 {
		skew = DefaultClockSkew
	}
	if groups == "" {
		groups = DefaultGroupsClaim
	}
	jalgs := make([]jose.SignatureAlgorithm, len(algs))
	for i, a := range algs {
		jalgs[i] = jose.SignatureAlgorithm(a)
	}
	a := &JWTAuthenticator{
		method: method, issuer: issuer, audience: slices.Clone(aud), scopes: slices.Clone(scopes),
		algs: slices.Clone(algs), typs: slices.Clone(typs), skew: skew, groupsClaim: groups,
		maxBytes: opts.MaxTokenBytes, now: opts.Now,
		keys: &keySet{algs: jalgs, now: opts.Now, minRefresh: DefaultMinRefreshInterval},
	}
	// Expiry, audience and nbf are checked here with our own skew: go-oidc
	// checks exp without leeway and nbf with a fixed five minutes, and only
	// one audience.
	a.verifier = oidc.NewVerifier(issuer, a.keys, &oidc.Config{
		SupportedSigningAlgs: slices.Clone(algs),
		SkipClientIDCheck:    true,
		SkipExpiryCheck:      true,
		Now:                  opts.Now,
	})
	return a
}

// Issuer returns the issuer this authenticator verifies.
func (a *JWTAuthenticator) Issuer() string { return a.issuer }

// KeyFetches reports how many JWKS fetches this authenticator has started.
func (a *JWTAuthenticator) KeyFetches() int64 { return a.keys.fetches.Load() }

// Describe returns the scheme this authenticator accepts.
func (a *JWTAuthenticator) Describe() Scheme { return a.scheme }

// Authenticate verifies the request's bearer token. A request without one, or
// with a token that is not a JWT or is from another issuer, yields an error
// matching ErrNoCredentials.
func (a *JWTAuthenticator) Authenticate(r *http.Request) (*request.Principal, error) {
	tok, err := BearerToken(r, a.maxBytes)
	if err != nil {
		return nil, err
	}
	if tok == "" {
		return nil, noCredentials()
	}
	pk, err := peekJWT(tok)
	if err != nil || pk.Issuer != a.issuer {
		return nil, noCredentials()
	}
	return a.verify(r.Context(), tok, pk, nil)
}

// verify checks a token already routed to this issuer. Its audience must
// name one of want, or of the issuer's configured audience when want is
// nil (a face with audiences of its own passes them: Chain.ForAudience).
func (a *JWTAuthenticator) verify(ctx context.Context, tok string, pk jwtPeek, want []string) (*request.Principal, error) {
	if !slices.Contains(a.algs, pk.Alg) {
		return nil, invalidToken(ReasonAlgorithm, "token algorithm not accepted", nil)
	}
	if len(a.typs) > 0 && !slices.ContainsFunc(a.typs, func(t string) bool { return typEqual(t, pk.Typ) }) {
		return nil, invalidToken(ReasonTokenType, "token type not accepted", nil)
	}
	res := &keySetResult{}
	idt, err := a.verifier.Verify(context.WithValue(ctx, keySetResultKey{}, res), tok)
	if err != nil {
		switch {
		case errors.Is(res.err, errUnknownKey):
			return nil, invalidToken(ReasonUnknownKey, "token signed by an unknown key", nil)
		case errors.Is(res.err, errKeysUnavailable):
			return nil, invalidToken(ReasonKeysUnavailable, "signing keys unavailable", nil)
		case res.err != nil:
			return nil, invalidToken(ReasonSignature, "token signature invalid", nil)
		case strings.Contains(err.Error(), "issued by a different provider"):
			return nil, invalidToken(ReasonIssuer, "token issuer not accepted", nil)
		default:
			return nil, invalidToken(ReasonMalformed, "malformed token", nil)
		}
	}
	var claims map[string]any
	if err := idt.Claims(&claims); err != nil {
		return nil, invalidToken(ReasonMalformed, "malformed token claims", nil)
	}
	now := a.now()
	exp, ok := numericDate(claims["exp"])
	if !ok {
		return nil, invalidToken(ReasonClaims, "token has no valid exp", nil)
	}
	if now.After(exp.Add(a.skew)) {
		return nil, invalidToken(ReasonExpired, "token expired", nil)
	}
	if v, present := claims["nbf"]; present {
		nbf, ok := numericDate(v)
		if !ok {
			return nil, invalidToken(ReasonClaims, "token has an invalid nbf", nil)
		}
		if now.Add(a.skew).Before(nbf) {
			return nil, invalidToken(ReasonNotYetValid, "token not yet valid", nil)
		}
	}
	if v, present := claims["iat"]; present {
		iat, ok := numericDate(v)
		if !ok {
			return nil, invalidToken(ReasonClaims, "token has an invalid iat", nil)
		}
		if now.Add(a.skew).Before(iat) {
			return nil, invalidToken(ReasonNotYetValid, "token issued in the future", nil)
		}
	}
	if want == nil {
		want = a.audience
	}
	if !slices.ContainsFunc(idt.Audience, func(s string) bool { return slices.Contains(want, s) }) {
		return nil, invalidToken(ReasonAudience, "token audience not accepted", nil)
	}
	if idt.Subject == "" {
		return nil, invalidToken(ReasonClaims, "token has no sub", nil)
	}
	p := &request.Principal{
		Subject:  idt.Subject,
		Issuer:   idt.Issuer,
		ClientID: firstString(claims, "azp", "client_id"),
		Scopes:   scopesOf(claims),
		Groups:   stringsOf(claims[a.groupsClaim]),
		Claims:   claims,
		Method:   a.method,
		Token:    tok,
		Expiry:   exp,
		Audience: slices.Clone(idt.Audience),
	}
	if err := RequireScopes(p, a.scopes...); err != nil {
		return nil, err
	}
	return p, nil
}

// typEqual compares JWS typ values per RFC 7515 §4.1.9: case-insensitive,
// with the "application/" prefix optional.
func typEqual(want, got string) bool {
	trim := func(s string) string {
		if len(s) > 12 && strings.EqualFold(s[:12], "application/") {
			return s[12:]
		}
		return s
	}
	return strings.EqualFold(trim(want), trim(got))
}

func numericDate(v any) (time.Time, bool) {
	f, ok := v.(float64)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > 1<<40 {
		return time.Time{}, false
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)), true
}

func firstString(claims map[string]any, names ...string) string {
	for _, n := range names {
		if s, ok := claims[n].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// scopesOf reads "scope" (space-separated string) or "scp" (array or string).
func scopesOf(claims map[string]any) []string {
	if s, ok := claims["scope"].(string); ok {
		return strings.Fields(s)
	}
	switch v := claims["scp"].(type) {
	case string:
		return strings.Fields(v)
	case []any:
		return stringsOf(v)
	}
	return nil
}

// stringsOf reads a claim that is an array of strings or a single string.
func stringsOf(v any) []string {
	switch v := v.(type) {
	case string:
		if v == "" {
			return nil
		}
		return []string{v}
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			if s, ok := e.(string); ok && s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
