package hostguard_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/hostguard"
)

func TestCheck(t *testing.T) {
	g, err := hostguard.New(hostguard.Config{
		PublicURL: "https://bridge.example.com", Listen: "0.0.0.0:8443",
		Hosts: []string{"bridge.internal"}, Origins: []string{"https://app.example.com"},
	})
	if err != nil {
		t.Fatal(err)
	}
	gm, err := g.With("http://localhost:6274")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, host, origin string
		guard              *hostguard.Guard
		want               error
	}{
		{name: "public host", host: "bridge.example.com"},
		{name: "public host with port, any case, trailing dot", host: "BRIDGE.example.com.:443"},
		{name: "configured host", host: "bridge.internal:8443"},
		{name: "loopback name", host: "localhost:8443"},
		{name: "IPv4 literal", host: "10.1.2.3:8443"},
		{name: "IPv6 literal", host: "[::1]:8443"},
		{name: "rebound name", host: "evil.example:8443", want: hostguard.ErrHost},
		{name: "suffix of an allowed name", host: "evilbridge.example.com", want: hostguard.ErrHost},
		{name: "subdomain of an allowed name", host: "x.bridge.example.com", want: hostguard.ErrHost},
		{name: "no host (HTTP/1.0, in process): no browser sends it", host: ""},
		{name: "allowed origin", host: "bridge.example.com", origin: "https://app.example.com"},
		{name: "own origin", host: "bridge.example.com", origin: "https://bridge.example.com"},
		{name: "request's own origin", host: "bridge.internal:8443", origin: "http://bridge.internal:8443"},
		{name: "foreign origin", host: "bridge.example.com", origin: "https://evil.example", want: hostguard.ErrOrigin},
		{name: "null origin", host: "bridge.example.com", origin: "null", want: hostguard.ErrOrigin},
		{name: "origin with a path", host: "bridge.example.com", origin: "https://app.example.com/x", want: hostguard.ErrOrigin},
		{name: "route origin on its route", host: "localhost", origin: "http://localhost:6274", guard: gm},
		{name: "route origin elsewhere", host: "localhost", origin: "http://localhost:6274", want: hostguard.ErrOrigin},
		{name: "foreign host wins over an allowed origin", host: "evil.example", origin: "https://app.example.com", want: hostguard.ErrHost},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/x", nil)
			r.Host = tt.host
			if tt.origin != "" {
				r.Header.Set("Origin", tt.origin)
			}
			guard := g
			if tt.guard != nil {
				guard = tt.guard
			}
			if err := guard.Check(r); !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("Check = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestLoopbackOrigins(t *testing.T) {
	g, _ := hostguard.New(hostguard.Config{PublicURL: "http://127.0.0.1:8080", LoopbackOrigins: true})
	for origin, want := range map[string]error{
		"http://localhost:6274": nil, "http://127.0.0.2:3000": nil, "https://[::1]": nil,
		"http://evil.example": hostguard.ErrOrigin, "http://localhost.evil.example": hostguard.ErrOrigin,
	} {
		r := httptest.NewRequest(http.MethodGet, "/mcp", nil)
		r.Host = "127.0.0.1:8080"
		r.Header.Set("Origin", origin)
		if err := g.Check(r); !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Errorf("Origin %s: %v, want %v", origin, err, want)
		}
	}
}

func TestWildcardListenAddsNoHost(t *testing.T) {
	g, err := hostguard.New(hostguard.Config{Listen: "0.0.0.0:80"})
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Host = "anything.example"
	if err := g.Check(r); !errors.Is(err, hostguard.ErrHost) {
		t.Fatalf("Check = %v", err)
	}
}

func TestWrapRefusesWithTheGivenWriter(t *testing.T) {
	g, _ := hostguard.New(hostguard.Config{PublicURL: "http://127.0.0.1:8080"})
	served := false
	h := g.Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { served = true }), nil)
	rec := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, "/a2a/x", nil)
	r.Host = "evil.example"
	h.ServeHTTP(rec, r)
	if served || rec.Code != http.StatusForbidden {
		t.Fatalf("served %v, status %d", served, rec.Code)
	}
	if _, err := hostguard.New(hostguard.Config{Origins: []string{"app.example.com"}}); err == nil {
		t.Fatal("an origin without a scheme was accepted")
	}
}
