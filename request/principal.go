// Package request holds what every guard reads about one request: who is
// calling (Principal, put on the context once by authentication) and what the
// call is about (Hop). It imports nothing of the bridge, so the guards (auth,
// policy, ratelimit) and the faces share these types without importing each
// other.
package request

import (
	"context"
	"strings"
	"time"
)

// Principal is an authenticated caller. It is built once when the credential
// is verified and then shared, unchanged, by every request that credential
// authenticates (the token cache hands out the same value; policy remembers
// decisions per principal value): never modify one after authentication.
type Principal struct {
	// Subject is the caller's stable identifier (JWT "sub", API key name, "anonymous").
	Subject string
	// Issuer is who vouched for Subject (JWT "iss"; "apikey" for API keys; "local" for anonymous).
	Issuer string
	// ClientID is the OAuth client the token was issued to ("azp" or "client_id"), if any.
	ClientID string
	// Scopes granted to the token.
	Scopes []string
	// Groups the subject belongs to (from a configured claim).
	Groups []string
	// Claims holds the verified token's raw claims (never the token itself).
	Claims map[string]any
	// Method names the authenticator that accepted the caller: "oidc", "jwks", "apikey", "anonymous".
	Method string
	// Expiry is when the credential stops being valid (the token's exp);
	// zero for credentials without one (API keys, anonymous).
	Expiry time.Time
	// Audience is the verified token's "aud" values (JWT principals only):
	// the resources the token was issued for. Each face accepts only
	// tokens naming its own (Chain.ForAudience).
	Audience []string
	// Token is the caller's raw bearer credential, kept only for RFC 8693 token
	// exchange. It is never logged, never forwarded and never serialised.
	Token string `json:"-"`
}

// Key is the owner key under which the principal's tasks are stored: issuer and
// subject together, so equal subjects from two issuers never share tasks.
func (p *Principal) Key() string {
	if p == nil {
		return ""
	}
	return p.Issuer + "|" + p.Subject
}

// HasScope reports whether the principal was granted scope s.
func (p *Principal) HasScope(s string) bool {
	for _, g := range p.Scopes {
		if g == s {
			return true
		}
	}
	return false
}

// String is safe to log: it never includes the token or claims.
func (p *Principal) String() string {
	if p == nil {
		return "<none>"
	}
	n := len(p.Method) + 1 + len(p.Subject)
	if p.Issuer != "" {
		n += 1 + len(p.Issuer)
	}
	var b strings.Builder
	b.Grow(n) // one allocation: it is written on every audit line
	b.WriteString(p.Method)
	b.WriteString(":")
	b.WriteString(p.Subject)
	if p.Issuer != "" {
		b.WriteString("@")
		b.WriteString(p.Issuer)
	}
	return b.String()
}

type principalKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalValue answers the principal's lookup for a context type that
// carries the principal among other values in one allocation (see
// gateway/hops): when key is the principal's, it returns p.
func PrincipalValue(key any, p *Principal) (any, bool) {
	if _, ok := key.(principalKey); ok {
		return p, true
	}
	return nil, false
}

// PrincipalFrom returns the principal carried by ctx, or nil.
func PrincipalFrom(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}
