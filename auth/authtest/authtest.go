// Package authtest provides fakes for testing code that uses package auth: an
// OIDC identity provider (go-oidc's oidctest behind an httptest server, with
// a JWKS fetch counter) and an OAuth2 token endpoint that records requests.
package authtest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc/oidctest"
	jose "github.com/go-jose/go-jose/v4"
)

// IdP is a fake OIDC identity provider on a loopback httptest server.
type IdP struct {
	// Server is the running httptest server; its URL is the issuer.
	Server *httptest.Server
	// Issuer is the issuer URL (Server.URL).
	Issuer string
	// RSA and EC are the signing keys, published under kids "rsa-1" and "ec-1".
	RSA *rsa.PrivateKey
	EC  *ecdsa.PrivateKey

	mu          sync.RWMutex // guards fake.PublicKeys
	fake        *oidctest.Server
	jwksFetches atomic.Int64
}

// Publish replaces the published keys (key rotation). Safe to call while the
// server is serving.
func (i *IdP) Publish(keys ...oidctest.PublicKey) {
	i.mu.Lock()
	i.fake.PublicKeys = keys
	i.mu.Unlock()
}

// PublishedKeys returns the keys currently published.
func (i *IdP) PublishedKeys() []oidctest.PublicKey {
	i.mu.RLock()
	defer i.mu.RUnlock()
	return append([]oidctest.PublicKey(nil), i.fake.PublicKeys...)
}

// Key ids published by NewIdP.
const (
	KidRSA = "rsa-1"
	KidEC  = "ec-1"
)

// NewIdP starts a fake IdP; it is closed when t ends.
func NewIdP(t testing.TB) *IdP {
	t.Helper()
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	idp := &IdP{RSA: rk, EC: ek}
	idp.fake = &oidctest.Server{
		PublicKeys: []oidctest.PublicKey{
			{PublicKey: rk.Public(), KeyID: KidRSA, Algorithm: "RS256"},
			{PublicKey: ek.Public(), KeyID: KidEC, Algorithm: "ES256"},
		},
		Algorithms: []string{"RS256", "ES256"},
	}
	idp.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/keys" {
			idp.jwksFetches.Add(1)
		}
		idp.mu.RLock()
		defer idp.mu.RUnlock()
		idp.fake.ServeHTTP(w, r)
	}))
	t.Cleanup(idp.Server.Close)
	idp.Issuer = idp.Server.URL
	idp.fake.SetIssuer(idp.Issuer)
	return idp
}

// JWKSFetches counts requests for the key set.
func (i *IdP) JWKSFetches() int64 { return i.jwksFetches.Load() }

// JWKS returns the published public keys as a JWKS document.
func (i *IdP) JWKS() []byte {
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
		{Key: i.RSA.Public(), KeyID: KidRSA, Algorithm: "RS256", Use: "sig"},
		{Key: i.EC.Public(), KeyID: KidEC, Algorithm: "ES256", Use: "sig"},
	}}
	b, _ := json.Marshal(set)
	return b
}

// Claims returns a valid claim set for sub and aud, issued now by the IdP,
// expiring in an hour.
func (i *IdP) Claims(sub, aud string, now time.Time) map[string]any {
	return map[string]any{
		"iss": i.Issuer,
		"sub": sub,
		"aud": aud,
		"iat": now.Unix(),
		"exp": now.Add(time.Hour).Unix(),
		"jti": sub + "-" + now.Format(time.RFC3339Nano),
	}
}

// Sign signs claims with the EC key (ES256, kid "ec-1").
func (i *IdP) Sign(t testing.TB, claims map[string]any) string {
	t.Helper()
	return SignJWT(t, i.EC, "ES256", KidEC, "", claims)
}

// SignJWT signs claims with key under alg, setting kid and (if non-empty) typ.
func SignJWT(t testing.TB, key crypto.PrivateKey, alg, kid, typ string, claims map[string]any) string {
	t.Helper()
	b, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	opts := &jose.SignerOptions{ExtraHeaders: map[jose.HeaderKey]any{}}
	if kid != "" {
		opts.ExtraHeaders["kid"] = kid
	}
	if typ != "" {
		opts.ExtraHeaders["typ"] = typ
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(alg), Key: key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := s.Sign(b)
	if err != nil {
		t.Fatal(err)
	}
	out, err := obj.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TokenRequest is one request the fake token endpoint received.
type TokenRequest struct {
	Form         url.Values
	ClientID     string // from HTTP basic auth or the form
	ClientSecret string
}

// TokenEndpoint is a fake OAuth2 token endpoint. It answers every request
// with a fresh access token "issued-N" of type Bearer, valid for ExpiresIn.
type TokenEndpoint struct {
	Server *httptest.Server
	// ExpiresIn is the lifetime announced (seconds). Default 3600.
	ExpiresIn int
	// Fail, when non-empty, makes every request fail with this OAuth error code.
	Fail string

	mu   sync.Mutex
	reqs []TokenRequest
}

// NewTokenEndpoint starts the fake; it is closed when t ends. Its URL is
// Server.URL + "/token".
func NewTokenEndpoint(t testing.TB) *TokenEndpoint {
	t.Helper()
	te := &TokenEndpoint{ExpiresIn: 3600}
	te.Server = httptest.NewServer(http.HandlerFunc(te.serve))
	t.Cleanup(te.Server.Close)
	return te
}

// URL is the token endpoint URL.
func (te *TokenEndpoint) URL() string { return te.Server.URL + "/token" }

// Requests returns what the endpoint has received so far.
func (te *TokenEndpoint) Requests() []TokenRequest {
	te.mu.Lock()
	defer te.mu.Unlock()
	return append([]TokenRequest(nil), te.reqs...)
}

func (te *TokenEndpoint) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/token" {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	req := TokenRequest{Form: r.PostForm}
	if id, secret, ok := r.BasicAuth(); ok {
		req.ClientID, req.ClientSecret = id, secret
	} else {
		req.ClientID, req.ClientSecret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	te.mu.Lock()
	te.reqs = append(te.reqs, req)
	n := len(te.reqs)
	fail, exp := te.Fail, te.ExpiresIn
	te.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if fail != "" {
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": fail, "error_description": "subject_token=" + r.PostForm.Get("subject_token")})
		return
	}
	resp := map[string]any{
		"access_token": "issued-" + itoa(n),
		"token_type":   "Bearer",
		"expires_in":   exp,
	}
	if r.PostForm.Get("grant_type") == "urn:ietf:params:oauth:grant-type:token-exchange" {
		resp["issued_token_type"] = "urn:ietf:params:oauth:token-type:access_token"
	}
	_ = json.NewEncoder(w).Encode(resp)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
