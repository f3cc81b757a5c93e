package auth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/auth/authtest"
)

const resource = "https://bridge.example.com/mcp"

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Unix(1_900_000_000, 0)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// oidcConfig is a valid single-issuer config for idp.
func oidcConfig(idp *authtest.IdP) auth.Config {
	return auth.Config{
		OIDC: []auth.OIDCConfig{{
			Issuer:      idp.Issuer,
			Audience:    []string{resource},
			GroupsClaim: "roles",
		}},
		IPLimit: auth.IPLimitConfig{Disable: true},
	}
}

func newChain(t testing.TB, cfg auth.Config, clk *clock) *auth.Chain {
	t.Helper()
	c, err := auth.New(context.Background(), cfg, auth.Options{
		HTTPClient: &http.Client{Timeout: 10 * time.Second},
		ListenAddr: "127.0.0.1:8080",
		Now:        clk.Now,
	})
	if err != nil {
		t.Fatalf("auth.New: %v", err)
	}
	return c
}

func bearerRequest(tok string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/a2a/x", nil)
	if tok != "" {
		r.Header.Set("Authorization", "Bearer "+tok)
	}
	return r
}

// wantAuthError asserts err is an *auth.Error with the given status and
// reason, and that neither its text nor its challenge contains tok.
func wantAuthError(t *testing.T, err error, status int, reason auth.Reason, tok string) *auth.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted; want status %d reason %v", status, reason)
	}
	ae, ok := err.(*auth.Error)
	if !ok {
		t.Fatalf("error %T %v is not *auth.Error", err, err)
	}
	if ae.Status != status || ae.Reason != reason {
		t.Fatalf("got status %d reason %v (%v); want %d %v", ae.Status, ae.Reason, err, status, reason)
	}
	if tok != "" {
		for _, s := range []string{err.Error(), ae.Challenge("bridge", resource+"/meta")} {
			if strings.Contains(s, tok) || (len(tok) > 20 && strings.Contains(s, tok[len(tok)-20:])) {
				t.Fatalf("error text leaks the token: %q", s)
			}
		}
	}
	return ae
}
