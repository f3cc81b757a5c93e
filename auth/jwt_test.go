package auth_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/auth/authtest"
	"github.com/coreos/go-oidc/v3/oidc/oidctest"
)

func TestAcceptsValidToken(t *testing.T) {
	idp := authtest.NewIdP(t)
	clk := newClock()
	chain := newChain(t, oidcConfig(idp), clk)

	tests := []struct {
		name       string
		claims     func(map[string]any)
		sign       func(map[string]any) string
		wantScopes []string
		wantClient string
		wantGroups []string
	}{
		{
			name: "ES256 with scope string and azp",
			claims: func(c map[string]any) {
				c["scope"] = "agents tools"
				c["azp"] = "cli"
				c["roles"] = []string{"staff", "ops"}
			},
			wantScopes: []string{"agents", "tools"},
			wantClient: "cli",
			wantGroups: []string{"staff", "ops"},
		},
		{
			name:       "RS256 with scp array and client_id",
			claims:     func(c map[string]any) { c["scp"] = []string{"agents"}; c["client_id"] = "bot-1"; c["roles"] = "staff" },
			sign:       func(c map[string]any) string { return oidctestSign(t, idp.RSA, authtest.KidRSA, "RS256", c) },
			wantScopes: []string{"agents"},
			wantClient: "bot-1",
			wantGroups: []string{"staff"},
		},
		{
			name:   "audience array containing ours among others",
			claims: func(c map[string]any) { c["aud"] = []string{"https://other.example.com", resource} },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := idp.Claims("alice", resource, clk.Now())
			tt.claims(c)
			var tok string
			if tt.sign != nil {
				tok = tt.sign(c)
			} else {
				tok = idp.Sign(t, c)
			}
			p, err := chain.Authenticate(bearerRequest(tok))
			if err != nil {
				t.Fatalf("Authenticate: %v", err)
			}
			if p.Subject != "alice" || p.Issuer != idp.Issuer || p.Method != "oidc" || p.Token != tok {
				t.Errorf("principal = %v (method %q)", p, p.Method)
			}
			if p.Key() != idp.Issuer+"|alice" {
				t.Errorf("Key() = %q", p.Key())
			}
			if !slices.Equal(p.Scopes, tt.wantScopes) || p.ClientID != tt.wantClient || !slices.Equal(p.Groups, tt.wantGroups) {
				t.Errorf("scopes %v client %q groups %v; want %v %q %v", p.Scopes, p.ClientID, p.Groups, tt.wantScopes, tt.wantClient, tt.wantGroups)
			}
			if !p.Expiry.Equal(clk.Now().Add(time.Hour)) {
				t.Errorf("expiry = %v", p.Expiry)
			}
		})
	}
}

func oidctestSign(t *testing.T, key *rsa.PrivateKey, kid, alg string, claims map[string]any) string {
	t.Helper()
	b, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	return oidctest.SignIDToken(key, kid, alg, string(b))
}

// rawJWT assembles a token from a literal header, claims and signature.
func rawJWT(header map[string]any, claims map[string]any, sign func(input string) []byte) string {
	h, _ := json.Marshal(header)
	c, _ := json.Marshal(claims)
	input := base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c)
	var sig []byte
	if sign != nil {
		sig = sign(input)
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig)
}

func TestRejectsAlgNone(t *testing.T) {
	idp := authtest.NewIdP(t)
	clk := newClock()
	chain := newChain(t, oidcConfig(idp), clk)
	claims := idp.Claims("mallory", resource, clk.Now())
	for _, alg := range []string{"none", "None", "NONE"} {
		t.Run(alg, func(t *testing.T) {
			tok := rawJWT(map[string]any{"alg": alg, "kid": authtest.KidRSA}, claims, nil)
			// An empty third segment is how alg none is usually sent; also try "x".
			for _, tk := range []string{strings.TrimSuffix(tok, "."), tok + "eA"} {
				_, err := chain.Authenticate(bearerRequest(tk))
				if err == nil {
					t.Fatalf("alg %s accepted", alg)
				}
				if auth.StatusOf(err) != http.StatusUnauthorized {
					t.Fatalf("status %d: %v", auth.StatusOf(err), err)
				}
			}
		})
	}
	if n := idp.JWKSFetches(); n != 0 {
		t.Errorf("alg none reached the key set: %d JWKS fetches", n)
	}
}

func TestRejectsHS256SignedWithRSAPublicKey(t *testing.T) {
	idp := authtest.NewIdP(t)
	clk := newClock()
	chain := newChain(t, oidcConfig(idp), clk)
	claims := idp.Claims("mallory", resource, clk.Now())
	der, err := x509.MarshalPKIXPublicKey(idp.RSA.Public())
	if err != nil {
		t.Fatal(err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	jwkJSON := idp.JWKS()
	for name, secret := range map[string][]byte{"pem": pemKey, "der": der, "jwks": jwkJSON} {
		for _, alg := range []string{"HS256", "HS384", "HS512"} {
			t.Run(name+"/"+alg, func(t *testing.T) {
				tok := rawJWT(map[string]any{"alg": alg, "kid": authtest.KidRSA, "typ": "JWT"}, claims, func(in string) []byte {
					m := hmac.New(sha256.New, secret)
					m.Write([]byte(in))
					return m.Sum(nil)
				})
				_, err := chain.Authenticate(bearerRequest(tok))
				wantAuthError(t, err, http.StatusUnauthorized, auth.ReasonAlgorithm, tok)
			})
		}
	}
}

func TestRejectsHSAlgorithmInConfig(t *testing.T) {
	idp := authtest.NewIdP(t)
	cfg := oidcConfig(idp)
	cfg.OIDC[0].Algorithms = []string{"RS256", "HS256", "none"}
	errs := cfg.Validate()
	if len(errs) != 2 {
		t.Fatalf("Validate = %v; want 2 errors (HS256, none)", errs)
	}
}

func TestUnknownKidFloodIsBounded(t *testing.T) {
	idp := authtest.NewIdP(t)
	clk := newClock()
	chain := newChain(t, oidcConfig(idp), clk)
	good := idp.Sign(t, idp.Claims("alice", resource, clk.Now()))
	if _, err := chain.Authenticate(bearerRequest(good)); err != nil {
		t.Fatalf("valid token: %v", err)
	}
	if n := idp.JWKSFetches(); n != 1 {
		t.Fatalf("first token: %d JWKS fetches; want 1", n)
	}

	flood := func(round int) {
		for i := range 500 {
			c := idp.Claims(fmt.Sprint("m", i), resource, clk.Now())
			tok := authtest.SignJWT(t, idp.EC, "ES256", fmt.Sprintf("kid-%d-%d", round, i), "", c)
			_, err := chain.Authenticate(bearerRequest(tok))
			wantAuthError(t, err, http.StatusUnauthorized, auth.ReasonUnknownKey, tok)
		}
	}
	flood(0)
	if n := idp.JWKSFetches(); n != 1 {
		t.Fatalf("500 unknown kids within the refresh interval caused %d fetches; want 1 in total", n)
	}
	clk.Add(auth.DefaultMinRefreshInterval + time.Second)
	flood(1)
	if n := idp.JWKSFetches(); n != 2 {
		t.Fatalf("after the refresh interval: %d fetches; want exactly 2 in total", n)
	}
	// The known key still works throughout.
	if _, err := chain.Authenticate(bearerRequest(idp.Sign(t, idp.Claims("bob", resource, clk.Now())))); err != nil {
		t.Fatalf("valid token after flood: %v", err)
	}
}

func TestUnknownKidFloodStoppedByIPLimit(t *testing.T) {
	idp := authtest.NewIdP(t)
	clk := newClock()
	cfg := oidcConfig(idp)
	cfg.IPLimit = auth.IPLimitConfig{Rate: 1, Burst: 5}
	chain := newChain(t, cfg, clk)
	var limited int
	for i := range 100 {
		tok := authtest.SignJWT(t, idp.EC, "ES256", fmt.Sprint("kid-", i), "", idp.Claims("m", resource, clk.Now()))
		_, err := chain.Authenticate(bearerRequest(tok))
		if err == nil {
			t.Fatal("unknown kid accepted")
		}
		var ae *auth.Error
		if ae, _ = err.(*auth.Error); ae != nil && ae.Reason == auth.ReasonRateLimited {
			limited++
			if ae.Status != http.StatusTooManyRequests || ae.RetryAfter < time.Second {
				t.Fatalf("rate-limit error: status %d retry %v", ae.Status, ae.RetryAfter)
			}
		}
	}
	if limited != 95 {
		t.Errorf("%d of 100 attempts limited; want 95 (burst 5)", limited)
	}
	// Another client IP has its own budget.
	r := bearerRequest(idp.Sign(t, idp.Claims("alice", resource, clk.Now())))
	r.RemoteAddr = "198.51.100.7:4000"
	if _, err := chain.Authenticate(r); err != nil {
		t.Fatalf("other IP refused: %v", err)
	}
}

func TestRejectsInvalidClaims(t *testing.T) {
	idp := authtest.NewIdP(t)
	clk := newClock()
	cfg := oidcConfig(idp)
	cfg.OIDC[0].Scopes = nil
	chain := newChain(t, cfg, clk)
	now := clk.Now()
	tests := []struct {
		name   string
		mutate func(map[string]any)
		reason auth.Reason
	}{
		{"expired", func(c map[string]any) { c["exp"] = now.Add(-2 * time.Minute).Unix() }, auth.ReasonExpired},
		{"expired just past skew", func(c map[string]any) { c["exp"] = now.Add(-auth.DefaultClockSkew - time.Second).Unix() }, auth.ReasonExpired},
		{"no exp", func(c map[string]any) { delete(c, "exp") }, auth.ReasonClaims},
		{"nbf in the future", func(c map[string]any) { c["nbf"] = now.Add(10 * time.Minute).Unix() }, auth.ReasonNotYetValid},
		{"nbf just beyond skew", func(c map[string]any) { c["nbf"] = now.Add(auth.DefaultClockSkew + time.Second).Unix() }, auth.ReasonNotYetValid},
		{"iat in the future", func(c map[string]any) { c["iat"] = now.Add(time.Hour).Unix() }, auth.ReasonNotYetValid},
		{"wrong audience", func(c map[string]any) { c["aud"] = "https://bridge.example.com/other" }, auth.ReasonAudience},
		{"token for another resource", func(c map[string]any) { c["aud"] = []string{"https://files.example.com/mcp"} }, auth.ReasonAudience},
		{"no audience", func(c map[string]any) { delete(c, "aud") }, auth.ReasonAudience},
		{"no sub", func(c map[string]any) { delete(c, "sub") }, auth.ReasonClaims},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := idp.Claims("alice", resource, now)
			tt.mutate(c)
			tok := idp.Sign(t, c)
			_, err := chain.Authenticate(bearerRequest(tok))
			wantAuthError(t, err, http.StatusUnauthorized, tt.reason, tok)
		})
	}
	// Inside the skew is accepted.
	c := idp.Claims("alice", resource, now)
	c["exp"] = now.Add(-auth.DefaultClockSkew + time.Second).Unix()
	c["nbf"] = now.Add(auth.DefaultClockSkew - time.Second).Unix()
	if _, err := chain.Authenticate(bearerRequest(idp.Sign(t, c))); err != nil {
		t.Errorf("token within skew refused: %v", err)
	}
}

func TestRejectsWrongIssuer(t *testing.T) {
	idp := authtest.NewIdP(t)
	other := authtest.NewIdP(t)
	clk := newClock()
	chain := newChain(t, oidcConfig(idp), clk)
	now := clk.Now()

	t.Run("unconfigured issuer", func(t *testing.T) {
		tok := other.Sign(t, other.Claims("alice", resource, now))
		_, err := chain.Authenticate(bearerRequest(tok))
		wantAuthError(t, err, http.StatusUnauthorized, auth.ReasonIssuer, tok)
	})
	t.Run("our issuer claimed, other IdP's key", func(t *testing.T) {
		c := other.Claims("alice", resource, now)
		c["iss"] = idp.Issuer
		tok := authtest.SignJWT(t, other.EC, "ES256", authtest.KidEC, "", c)
		_, err := chain.Authenticate(bearerRequest(tok))
		wantAuthError(t, err, http.StatusUnauthorized, auth.ReasonSignature, tok)
	})
	t.Run("trailing slash variant of the issuer", func(t *testing.T) {
		c := idp.Claims("alice", resource, now)
		c["iss"] = idp.Issuer + "/"
		tok := idp.Sign(t, c)
		_, err := chain.Authenticate(bearerRequest(tok))
		wantAuthError(t, err, http.StatusUnauthorized, auth.ReasonIssuer, tok)
	})
}

func TestMissingScopeIsInsufficientScope(t *testing.T) {
	idp := authtest.NewIdP(t)
	clk := newClock()
	cfg := oidcConfig(idp)
	cfg.OIDC[0].Scopes = []string{"agents", "tools"}
	chain := newChain(t, cfg, clk)
	c := idp.Claims("alice", resource, clk.Now())
	c["scope"] = "agents"
	tok := idp.Sign(t, c)
	_, err := chain.Authenticate(bearerRequest(tok))
	ae := wantAuthError(t, err, http.StatusForbidden, auth.ReasonInsufficientScope, tok)
	got := ae.Challenge("bridge", "https://bridge.example.com/.well-known/oauth-protected-resource/mcp")
	want := `Bearer realm="bridge", error="insufficient_scope", error_description="insufficient scope", scope="agents tools", resource_metadata="https://bridge.example.com/.well-known/oauth-protected-resource/mcp"`
	if got != want {
		t.Errorf("challenge\n got %s\nwant %s", got, want)
	}
	c["scope"] = "tools agents"
	if _, err := chain.Authenticate(bearerRequest(idp.Sign(t, c))); err != nil {
		t.Errorf("token with both scopes refused: %v", err)
	}
}

func TestRequiresTokenType(t *testing.T) {
	idp := authtest.NewIdP(t)
	clk := newClock()
	cfg := oidcConfig(idp)
	cfg.OIDC[0].TokenTypes = []string{"at+jwt"}
	chain := newChain(t, cfg, clk)
	c := idp.Claims("alice", resource, clk.Now())
	for typ, ok := range map[string]bool{"at+jwt": true, "application/AT+JWT": true, "JWT": false, "": false} {
		tok := authtest.SignJWT(t, idp.EC, "ES256", authtest.KidEC, typ, c)
		_, err := chain.Authenticate(bearerRequest(tok))
		if ok && err != nil {
			t.Errorf("typ %q refused: %v", typ, err)
		}
		if !ok {
			wantAuthError(t, err, http.StatusUnauthorized, auth.ReasonTokenType, tok)
		}
	}
}

func TestRejectsOversizedToken(t *testing.T) {
	idp := authtest.NewIdP(t)
	clk := newClock()
	chain := newChain(t, oidcConfig(idp), clk)
	c := idp.Claims("alice", resource, clk.Now())
	c["pad"] = strings.Repeat("A", 9<<10)
	tok := idp.Sign(t, c)
	_, err := chain.Authenticate(bearerRequest(tok))
	wantAuthError(t, err, http.StatusUnauthorized, auth.ReasonOversized, tok)
	_, err = chain.Authenticate(bearerRequest(strings.Repeat("a", 64<<10)))
	wantAuthError(t, err, http.StatusUnauthorized, auth.ReasonOversized, "")
	if n := idp.JWKSFetches(); n != 0 {
		t.Errorf("oversized token reached the key set (%d fetches)", n)
	}
}

func TestRejectsAmbiguousCredentials(t *testing.T) {
	idp := authtest.NewIdP(t)
	clk := newClock()
	chain := newChain(t, oidcConfig(idp), clk)
	tok := idp.Sign(t, idp.Claims("alice", resource, clk.Now()))

	two := bearerRequest(tok)
	two.Header.Add("Authorization", "Bearer "+tok)
	_, err := chain.Authenticate(two)
	wantAuthError(t, err, http.StatusUnauthorized, auth.ReasonMalformed, tok)

	q := bearerRequest("")
	q.URL.RawQuery = "access_token=" + tok
	_, err = chain.Authenticate(q)
	wantAuthError(t, err, http.StatusUnauthorized, auth.ReasonMalformed, tok)

	none := bearerRequest("")
	_, err = chain.Authenticate(none)
	ae := wantAuthError(t, err, http.StatusUnauthorized, auth.ReasonNoCredentials, "")
	if got := ae.Challenge("bridge", ""); got != `Bearer realm="bridge"` {
		t.Errorf("no-credential challenge = %s", got)
	}
}

func TestCacheHitSkipsVerificationAndNeverOutlivesToken(t *testing.T) {
	idp := authtest.NewIdP(t)
	clk := newClock()
	cfg := oidcConfig(idp)
	cfg.OIDC[0].ClockSkew = time.Second
	chain := newChain(t, cfg, clk)
	c := idp.Claims("alice", resource, clk.Now())
	c["exp"] = clk.Now().Add(10 * time.Second).Unix()
	tok := idp.Sign(t, c)
	p1, err := chain.Authenticate(bearerRequest(tok))
	if err != nil {
		t.Fatal(err)
	}
	p2, err := chain.Authenticate(bearerRequest(tok))
	if err != nil || p2 != p1 {
		t.Fatalf("second call: %v, same principal %v; want a cache hit", err, p2 == p1)
	}
	clk.Add(12 * time.Second) // past exp + skew
	_, err = chain.Authenticate(bearerRequest(tok))
	wantAuthError(t, err, http.StatusUnauthorized, auth.ReasonExpired, tok)
}

func TestStaticJWKSFile(t *testing.T) {
	idp := authtest.NewIdP(t)
	clk := newClock()
	path := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(path, idp.JWKS(), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := auth.Config{
		JWKS:    []auth.JWKSConfig{{Issuer: idp.Issuer, File: path, Audience: []string{resource}}},
		IPLimit: auth.IPLimitConfig{Disable: true},
	}
	chain := newChain(t, cfg, clk)
	c := idp.Claims("alice", resource, clk.Now())
	p, err := chain.Authenticate(bearerRequest(oidctestSign(t, idp.RSA, authtest.KidRSA, "RS256", c)))
	if err != nil || p.Method != "jwks" {
		t.Fatalf("RS256 via JWKS file: %v %v", p, err)
	}
	tok := authtest.SignJWT(t, idp.EC, "ES256", "rotated", "", c)
	_, err = chain.Authenticate(bearerRequest(tok))
	wantAuthError(t, err, http.StatusUnauthorized, auth.ReasonUnknownKey, tok)
	if n := idp.JWKSFetches(); n != 0 {
		t.Errorf("static key set fetched remotely %d times", n)
	}
	c["exp"] = clk.Now().Add(-time.Hour).Unix()
	tok = idp.Sign(t, c)
	_, err = chain.Authenticate(bearerRequest(tok))
	wantAuthError(t, err, http.StatusUnauthorized, auth.ReasonExpired, tok)
}

func TestJWKSIgnoresSymmetricKeys(t *testing.T) {
	// A JWKS file holding an "oct" key must not let HS256 tokens in, even if
	// the operator lists only RS256.
	idp := authtest.NewIdP(t)
	clk := newClock()
	path := filepath.Join(t.TempDir(), "jwks.json")
	secret := []byte("0123456789abcdef0123456789abcdef")
	doc := fmt.Sprintf(`{"keys":[{"kty":"oct","kid":"k","k":%q}]}`, base64.RawURLEncoding.EncodeToString(secret))
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := auth.New(t.Context(), auth.Config{JWKS: []auth.JWKSConfig{{Issuer: idp.Issuer, File: path, Audience: []string{resource}}}}, auth.Options{Now: clk.Now})
	if err == nil {
		t.Fatal("JWKS file with only a symmetric key was accepted")
	}
}

func TestKeyRotationPickedUpAfterRefreshInterval(t *testing.T) {
	idp := authtest.NewIdP(t)
	clk := newClock()
	chain := newChain(t, oidcConfig(idp), clk)
	if _, err := chain.Authenticate(bearerRequest(idp.Sign(t, idp.Claims("alice", resource, clk.Now())))); err != nil {
		t.Fatal(err)
	}
	newKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	idp.Publish(append(idp.PublishedKeys(), oidctest.PublicKey{PublicKey: newKey.Public(), KeyID: "ec-2", Algorithm: "ES256"})...)
	tok := authtest.SignJWT(t, newKey, "ES256", "ec-2", "", idp.Claims("bob", resource, clk.Now()))
	// Within the interval the new kid is one more unknown kid...
	_, err = chain.Authenticate(bearerRequest(tok))
	wantAuthError(t, err, http.StatusUnauthorized, auth.ReasonUnknownKey, tok)
	// ...after it, one fetch picks it up.
	clk.Add(auth.DefaultMinRefreshInterval)
	if _, err := chain.Authenticate(bearerRequest(tok)); err != nil {
		t.Fatalf("rotated key refused after the refresh interval: %v", err)
	}
	if n := idp.JWKSFetches(); n != 2 {
		t.Errorf("%d JWKS fetches; want 2", n)
	}
}

func TestDiscoveryURLOverride(t *testing.T) {
	idp := authtest.NewIdP(t)
	clk := newClock()
	cfg := oidcConfig(idp)
	cfg.OIDC[0].DiscoveryURL = idp.Issuer + "/.well-known/openid-configuration"
	chain := newChain(t, cfg, clk)
	if _, err := chain.Authenticate(bearerRequest(idp.Sign(t, idp.Claims("alice", resource, clk.Now())))); err != nil {
		t.Fatal(err)
	}
	cfg.OIDC[0].Issuer = "https://not-the-discovered-issuer.example"
	if _, err := auth.New(t.Context(), cfg, auth.Options{Now: clk.Now}); err == nil {
		t.Fatal("discovery document for another issuer accepted")
	}
}
