package card

import (
	"encoding/json"
	"fmt"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// CredentialKind is a kind of credential a served agent accepts.
type CredentialKind int

// The kinds a card can declare.
const (
	// CredentialOIDC is a bearer JWT from an OpenID Connect issuer whose
	// discovery document is known.
	CredentialOIDC CredentialKind = iota + 1
	// CredentialBearerJWT is a bearer JWT verified with static keys.
	CredentialBearerJWT
	// CredentialAPIKey is a static key in a header.
	CredentialAPIKey
)

// Credential is one way callers may authenticate to an agent the bridge
// serves, as its card is to declare it.
type Credential struct {
	Kind CredentialKind
	// DiscoveryURL is the OIDC discovery document (CredentialOIDC).
	DiscoveryURL string
	// Scopes every token must carry (JWT kinds).
	Scopes []string
	// Header carries an API key (CredentialAPIKey; default Authorization).
	Header string
}

// Security is a card's securitySchemes and securityRequirements for an
// agent that accepts creds, in order: each credential is one scheme and one
// alternative requirement (oidc, bearer and apikey, numbered from the
// second of a kind: oidc2), and, when anonymous callers are admitted too,
// an empty requirement (credentials optional). No credential declares no
// security at all (nil, nil).
func Security(creds []Credential, anonymous bool) (map[string]a2a.SecurityScheme, []a2a.SecurityRequirement) {
	schemes := map[string]a2a.SecurityScheme{}
	var reqs []a2a.SecurityRequirement
	n := map[string]int{}
	add := func(base string, s a2a.SecurityScheme, scopes []string) {
		n[base]++
		name := base
		if n[base] > 1 {
			name = fmt.Sprintf("%s%d", base, n[base])
		}
		schemes[name] = s
		reqs = append(reqs, a2a.SecurityRequirement{Schemes: map[string]a2a.StringList{name: {List: append([]string(nil), scopes...)}}})
	}
	for _, c := range creds {
		switch c.Kind {
		case CredentialOIDC:
			add("oidc", a2a.SecurityScheme{OpenIDConnect: &a2a.OpenIDConnectSecurityScheme{OpenIDConnectURL: c.DiscoveryURL}}, c.Scopes)
		case CredentialBearerJWT:
			add("bearer", a2a.SecurityScheme{HTTPAuth: &a2a.HTTPAuthSecurityScheme{Scheme: "Bearer", BearerFormat: "JWT"}}, c.Scopes)
		case CredentialAPIKey:
			h := c.Header
			if h == "" {
				h = "Authorization"
			}
			add("apikey", a2a.SecurityScheme{APIKey: &a2a.APIKeySecurityScheme{Location: "header", Name: h,
				Description: "API key, also accepted as Authorization: Bearer KEY"}}, nil)
		}
	}
	if len(schemes) == 0 {
		return nil, nil
	}
	if anonymous {
		reqs = append(reqs, a2a.SecurityRequirement{})
	}
	return schemes, reqs
}

// SignAgentCard signs c with ks and returns the card to serve: c's own
// signatures are dropped (c is not changed), and the result carries only
// those Sign makes over what c encodes to (security included: set it
// first).
func SignAgentCard(c *a2a.AgentCard, ks *KeySet) (*a2a.AgentCard, error) {
	cp := *c
	cp.Signatures = nil
	raw, err := json.Marshal(&cp)
	if err != nil {
		return nil, fmt.Errorf("card: encode the card: %w", err)
	}
	signed, err := Sign(raw, ks)
	if err != nil {
		return nil, err
	}
	var out a2a.AgentCard
	if err := json.Unmarshal(signed, &out); err != nil {
		return nil, fmt.Errorf("card: decode the signed card: %w", err)
	}
	return &out, nil
}
