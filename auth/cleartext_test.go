package auth_test

import (
	"errors"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/auth"
)

// TestIdentityOverCleartextRefused: an OIDC issuer, discovery document or
// JWKS over plain http to a host that is not loopback used to be accepted
// silently; whoever sits on the path could then serve their own keys.
func TestIdentityOverCleartextRefused(t *testing.T) {
	for _, tc := range []struct {
		url    string
		unsafe bool
		ok     bool
	}{
		{"https://idp.example.com", false, true},
		{"http://idp.example.com", false, false},
		{"http://idp.example.com/.well-known/jwks.json", false, false},
		{"http://IDP.example.com:8080", true, true},
		{"http://127.0.0.1:9000", false, true},
		{"http://localhost:9000/realms/x", false, true},
		{"http://[::1]:9000", false, true},
		{"http://10.0.0.1", false, false},
	} {
		err := auth.CheckIdentityURL(tc.url, tc.unsafe)
		if (err == nil) != tc.ok || err != nil && !errors.Is(err, auth.ErrCleartextIdentity) {
			t.Errorf("CheckIdentityURL(%q, %v) = %v, want ok=%v", tc.url, tc.unsafe, err, tc.ok)
		}
	}
	cfg := auth.Config{OIDC: []auth.OIDCConfig{{Issuer: "http://idp.example.com", Audience: []string{"https://b.example.com"}}}}
	errs := cfg.Validate()
	want := `auth.oidc[0].issuer: "http://idp.example.com" is plain http: whoever can read or change the traffic could serve their own keys and mint tokens; use https, an IdP on loopback, or set unsafe_allow_http: true`
	if len(errs) != 1 || errs[0].Error() != want {
		t.Fatalf("Validate = %v, want [%s]", errs, want)
	}
}
