package auth_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/request"
)

func TestChallenge(t *testing.T) {
	rm := "https://b.example/.well-known/oauth-protected-resource"
	tests := []struct {
		name  string
		realm string
		err   error
		rm    string
		want  string
	}{
		{"no credentials", "bridge", func() error { _, err := auth.NewChain(auth.ChainOptions{}).Authenticate(bearerRequest("")); return err }(), rm,
			`Bearer realm="bridge", resource_metadata="` + rm + `"`},
		{"insufficient scope", "", auth.InsufficientScope("a", "b"), "",
			`Bearer error="insufficient_scope", error_description="insufficient scope", scope="a b"`},
		{"foreign error", "r", errors.New("boom"), "",
			`Bearer realm="r", error="invalid_token"`},
		{"quotes escaped", `a"b\c`, nil, "",
			`Bearer realm="a\"b\\c"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := auth.Challenge(tt.realm, tt.err, tt.rm); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestSetHeaders(t *testing.T) {
	h := http.Header{}
	e := &auth.Error{Status: http.StatusTooManyRequests, Reason: auth.ReasonRateLimited, Message: "slow down", RetryAfter: 1500 * time.Millisecond}
	if st := auth.SetHeaders(h, "bridge", e, ""); st != http.StatusTooManyRequests || h.Get("Retry-After") != "2" || h.Get("WWW-Authenticate") != "" {
		t.Errorf("status %d headers %v", st, h)
	}
	h = http.Header{}
	if st := auth.SetHeaders(h, "bridge", auth.InsufficientScope("x"), ""); st != http.StatusForbidden || h.Get("WWW-Authenticate") == "" {
		t.Errorf("status %d headers %v", st, h)
	}
}

func TestRequireScopes(t *testing.T) {
	p := &request.Principal{Scopes: []string{"a", "b"}}
	if err := auth.RequireScopes(p, "a", "b"); err != nil {
		t.Errorf("RequireScopes(a b) = %v", err)
	}
	err := auth.RequireScopes(p, "a", "c")
	if auth.StatusOf(err) != http.StatusForbidden {
		t.Errorf("RequireScopes(a c) = %v", err)
	}
}

func TestReasonString(t *testing.T) {
	if auth.ReasonInsufficientScope.String() != "insufficient_scope" || auth.Reason(999).String() != "unknown" {
		t.Error("Reason.String")
	}
}
