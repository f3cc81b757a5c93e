package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/a2a-mcp-bridge/bridge/request"
)

// APIKeys authenticates static API keys, configured as sha256 hashes. A key
// is presented as "Authorization: Bearer <key>" or in the configured header.
// Every configured hash is compared, in constant time, whatever matches, so
// timing does not tell which key (or whether any) matched.
type APIKeys struct {
	keys     []apiKey
	header   string
	maxBytes int
}

type apiKey struct {
	name string
	hash [32]byte
	// principal is built once and shared by every request the key
	// authenticates (see Principal: never modified).
	principal *request.Principal
}

var _ Authenticator = (*APIKeys)(nil)

// NewAPIKeys builds the API key authenticator. header is an extra header name
// that may carry a key ("" for Authorization only). maxBytes caps the key
// (0: DefaultMaxTokenBytes).
func NewAPIKeys(keys []APIKeyConfig, header string, maxBytes int) (*APIKeys, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxTokenBytes
	}
	a := &APIKeys{header: header, maxBytes: maxBytes}
	if header != "" {
		if !validHeaderName(header) {
			return nil, fmt.Errorf("auth: api key header %q is not a valid header name", header)
		}
		a.header = http.CanonicalHeaderKey(header)
	}
	for i, k := range keys {
		b, err := hex.DecodeString(k.SHA256)
		if err != nil || len(b) != 32 || k.Name == "" {
			return nil, fmt.Errorf("auth: api_keys[%d]: need a name and a 64-hex-digit sha256", i)
		}
		var h [32]byte
		copy(h[:], b)
		a.keys = append(a.keys, apiKey{name: k.Name, hash: h, principal: &request.Principal{
			Subject:  k.Name,
			Issuer:   "apikey",
			ClientID: k.Name,
			Scopes:   slices.Clone(k.Scopes),
			Groups:   slices.Clone(k.Groups),
			Method:   "apikey",
		}})
	}
	return a, nil
}

// Header returns the extra header that carries keys, or "".
func (a *APIKeys) Header() string { return a.header }

// Authenticate accepts a request whose key matches a configured hash. A
// request carrying no key, or a bearer token that looks like a JWT, yields an
// error matching ErrNoCredentials; a key that matches nothing is refused.
func (a *APIKeys) Authenticate(r *http.Request) (*request.Principal, error) {
	key, err := a.presented(r)
	if err != nil {
		return nil, err
	}
	if key == "" {
		return nil, noCredentials()
	}
	return a.check(key)
}

// presented returns the key in the configured header, else the bearer token
// unless it is shaped like a JWT.
func (a *APIKeys) presented(r *http.Request) (string, error) {
	if a.header != "" {
		vals := r.Header.Values(a.header)
		switch {
		case len(vals) > 1:
			return "", malformed("more than one API key header", nil)
		case len(vals) == 1:
			v := strings.TrimSpace(vals[0])
			if len(v) > a.maxBytes {
				return "", invalidToken(ReasonOversized, "credential too large", nil)
			}
			if v != "" {
				return v, nil
			}
		}
	}
	tok, err := BearerToken(r, a.maxBytes)
	if err != nil || tok == "" {
		return "", err
	}
	if looksLikeJWT(tok) {
		return "", nil
	}
	return tok, nil
}

func (a *APIKeys) check(key string) (*request.Principal, error) {
	h := sha256.Sum256([]byte(key))
	found, idx := 0, 0
	for i := range a.keys {
		eq := subtle.ConstantTimeCompare(h[:], a.keys[i].hash[:])
		idx = subtle.ConstantTimeSelect(eq, i, idx)
		found |= eq
	}
	if found != 1 {
		return nil, invalidToken(ReasonUnknownAPIKey, "unknown API key", nil)
	}
	return a.keys[idx].principal, nil
}

// Describe returns the scheme: an API key in the configured header, or a
// bearer credential.
func (a *APIKeys) Describe() Scheme {
	h := a.header
	if h == "" {
		h = "Authorization"
	}
	return Scheme{Kind: SchemeAPIKey, Header: h}
}

// looksLikeJWT is the cheap shape test: three non-empty dot-separated parts.
func looksLikeJWT(tok string) bool {
	i := strings.IndexByte(tok, '.')
	if i <= 0 {
		return false
	}
	j := strings.IndexByte(tok[i+1:], '.')
	return j > 0 && i+1+j+1 < len(tok) && strings.IndexByte(tok[i+1+j+1:], '.') < 0
}
