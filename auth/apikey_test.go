package auth_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/auth"
)

func hashKey(k string) string {
	h := sha256.Sum256([]byte(k))
	return hex.EncodeToString(h[:])
}

func apiKeyConfig(keys map[string]string) auth.Config {
	cfg := auth.Config{APIKeyHeader: "X-API-Key", IPLimit: auth.IPLimitConfig{Disable: true}}
	for name, k := range keys {
		cfg.APIKeys = append(cfg.APIKeys, auth.APIKeyConfig{Name: name, SHA256: hashKey(k), Scopes: []string{"agents"}})
	}
	return cfg
}

func TestAcceptsAPIKey(t *testing.T) {
	chain := newChain(t, apiKeyConfig(map[string]string{"ci-bot": "key-one", "ops": "key-two"}), newClock())
	for _, tt := range []struct {
		name, header, value, want string
	}{
		{"bearer", "Authorization", "Bearer key-one", "ci-bot"},
		{"bearer odd case", "Authorization", "bEaReR   key-two", "ops"},
		{"custom header", "X-API-Key", "key-two", "ops"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := bearerRequest("")
			r.Header.Set(tt.header, tt.value)
			p, err := chain.Authenticate(r)
			if err != nil {
				t.Fatal(err)
			}
			if p.Subject != tt.want || p.Method != "apikey" || p.Issuer != "apikey" || p.Token != "" || !p.HasScope("agents") {
				t.Errorf("principal %v token-set=%v scopes %v", p, p.Token != "", p.Scopes)
			}
		})
	}
}

func TestRejectsRevokedAPIKey(t *testing.T) {
	keys := map[string]string{"ci-bot": "key-one", "old": "key-revoked"}
	before := newChain(t, apiKeyConfig(keys), newClock())
	if _, err := before.Authenticate(bearerRequest("key-revoked")); err != nil {
		t.Fatalf("key refused before revocation: %v", err)
	}
	delete(keys, "old")
	after := newChain(t, apiKeyConfig(keys), newClock())
	for _, r := range []*http.Request{bearerRequest("key-revoked"), func() *http.Request {
		r := bearerRequest("")
		r.Header.Set("X-API-Key", "key-revoked")
		return r
	}()} {
		_, err := after.Authenticate(r)
		wantAuthError(t, err, http.StatusUnauthorized, auth.ReasonUnknownAPIKey, "key-revoked")
	}
	if _, err := after.Authenticate(bearerRequest("key-one")); err != nil {
		t.Fatalf("remaining key refused: %v", err)
	}
}

func TestAPIKeyFloodIsRateLimited(t *testing.T) {
	cfg := apiKeyConfig(map[string]string{"ci-bot": "key-one"})
	cfg.IPLimit = auth.IPLimitConfig{Rate: 1, Burst: 3}
	chain := newChain(t, cfg, newClock())
	var limited int
	for range 10 {
		_, err := chain.Authenticate(bearerRequest("guess"))
		var ae *auth.Error
		if errors.As(err, &ae) && ae.Reason == auth.ReasonRateLimited {
			limited++
		}
	}
	if limited != 7 {
		t.Errorf("%d of 10 guesses limited; want 7", limited)
	}
}

func TestAnonymousRefusedOnNonLoopbackListener(t *testing.T) {
	for _, tt := range []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:8080", true},
		{"127.9.9.9:8080", true},
		{"[::1]:8080", true},
		{"localhost:8080", true},
		{"[::ffff:127.0.0.1]:8080", true},
		{"0.0.0.0:8080", false},
		{":8080", false},
		{"[::]:8080", false},
		{"192.168.1.10:8080", false},
		{"bridge.example.com:8080", false},
		{"", false},
	} {
		t.Run(tt.addr, func(t *testing.T) {
			_, err := auth.NewAnonymous(tt.addr, false)
			if tt.ok != (err == nil) {
				t.Fatalf("NewAnonymous(%q) err = %v; want ok=%v", tt.addr, err, tt.ok)
			}
			if !tt.ok && !errors.Is(err, auth.ErrAnonymousNotLoopback) {
				t.Fatalf("error %v is not ErrAnonymousNotLoopback", err)
			}
			if _, err := auth.NewAnonymous(tt.addr, true); err != nil {
				t.Fatalf("with the unsafe switch: %v", err)
			}
		})
	}
	_, err := auth.New(t.Context(), auth.Config{Anonymous: true}, auth.Options{ListenAddr: "0.0.0.0:8080"})
	if !errors.Is(err, auth.ErrAnonymousNotLoopback) {
		t.Fatalf("auth.New on 0.0.0.0 with anonymous: %v", err)
	}
}

func TestAnonymousNeverDowngradesABadCredential(t *testing.T) {
	cfg := apiKeyConfig(map[string]string{"ci-bot": "key-one"})
	cfg.Anonymous = true
	chain := newChain(t, cfg, newClock())
	if !chain.AllowsAnonymous() {
		t.Fatal("AllowsAnonymous = false")
	}
	p, err := chain.Authenticate(bearerRequest(""))
	if err != nil || p.Subject != "anonymous" || p.Method != "anonymous" {
		t.Fatalf("no credentials: %v %v", p, err)
	}
	_, err = chain.Authenticate(bearerRequest("wrong-key"))
	wantAuthError(t, err, http.StatusUnauthorized, auth.ReasonUnknownAPIKey, "wrong-key")
	r := bearerRequest("")
	r.Header.Set("Authorization", "Basic dXNlcjpwYXNz")
	if _, err := chain.Authenticate(r); err == nil {
		t.Fatal("request with Basic credentials admitted as anonymous")
	}
}
