package auth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/auth/authtest"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// upstream records the Authorization headers it receives.
type upstream struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen []string
}

func newUpstream(t *testing.T) *upstream {
	u := &upstream{}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		u.seen = append(u.seen, strings.Join(r.Header.Values("Authorization"), "|")+"#"+r.Header.Get("Proxy-Authorization"))
		u.mu.Unlock()
	}))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *upstream) last() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.seen[len(u.seen)-1]
}

func TestUpstreamNeverSeesCallerToken(t *testing.T) {
	const callerToken = "eyJhbGciOiJFUzI1NiJ9.caller-token.sig"
	caller := &request.Principal{Subject: "alice", Issuer: "https://idp", Token: callerToken, Expiry: time.Now().Add(time.Hour)}
	te := authtest.NewTokenEndpoint(t)
	t.Setenv("BRIDGE_TEST_UPSTREAM_SECRET", "s3cr3t")

	sources := []struct {
		name string
		cfg  auth.CredentialsConfig
		want string
	}{
		{"none", auth.CredentialsConfig{}, "#"},
		{"static", auth.CredentialsConfig{Static: &auth.StaticSecretConfig{Env: "BRIDGE_TEST_UPSTREAM_SECRET"}}, "Bearer s3cr3t#"},
		{"client credentials", auth.CredentialsConfig{ClientCredentials: &auth.ClientCredentialsConfig{TokenURL: te.URL(), ClientID: "bridge", ClientSecret: "cs"}}, "Bearer issued-1#"},
		{"token exchange", auth.CredentialsConfig{TokenExchange: &auth.TokenExchangeConfig{TokenURL: te.URL(), ClientID: "bridge", ClientSecret: "cs", Audience: "billing"}}, "Bearer issued-2#"},
	}
	up := newUpstream(t)
	for _, s := range sources {
		t.Run(s.name, func(t *testing.T) {
			creds, err := auth.NewCredentials(s.cfg, te.Server.Client())
			if err != nil {
				t.Fatal(err)
			}
			// A careless forwarder copies every inbound header.
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, up.srv.URL, nil)
			req.Header.Set("Authorization", "Bearer "+callerToken)
			req.Header.Set("Proxy-Authorization", "Bearer "+callerToken)
			if err := creds.Apply(t.Context(), req, caller); err != nil {
				t.Fatalf("Apply: %v", err)
			}
			resp, err := up.srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			got := up.last()
			if strings.Contains(got, callerToken) {
				t.Fatalf("upstream received the caller's token: %q", got)
			}
			if got != s.want {
				t.Errorf("upstream Authorization#Proxy-Authorization = %q; want %q", got, s.want)
			}
		})
	}
}

func TestTokenExchangeSendsRFC8693RequestAndCachesPerCaller(t *testing.T) {
	te := authtest.NewTokenEndpoint(t)
	x := auth.NewTokenExchange(auth.TokenExchangeConfig{
		TokenURL: te.URL(), ClientID: "bridge", ClientSecret: "cs",
		Audience: "billing", Resource: "https://billing.example.com/a2a", Scopes: []string{"invoices.read"},
	}, te.Server.Client())
	alice := &request.Principal{Subject: "alice", Token: "alice-token", Expiry: time.Now().Add(time.Hour)}
	bob := &request.Principal{Subject: "bob", Token: "bob-token", Expiry: time.Now().Add(time.Hour)}

	apply := func(p *request.Principal) string {
		req := httptest.NewRequest(http.MethodGet, "http://up/", nil)
		if err := x.Apply(context.Background(), req, p); err != nil {
			t.Fatalf("Apply: %v", err)
		}
		return req.Header.Get("Authorization")
	}
	a1, a2, b1 := apply(alice), apply(alice), apply(bob)
	if a1 != a2 || a1 == b1 {
		t.Errorf("alice %q %q bob %q: want alice's token reused and bob's distinct", a1, a2, b1)
	}
	reqs := te.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d token requests; want 2 (one per caller)", len(reqs))
	}
	f := reqs[0].Form
	for k, want := range map[string]string{
		"grant_type":         "urn:ietf:params:oauth:grant-type:token-exchange",
		"subject_token":      "alice-token",
		"subject_token_type": "urn:ietf:params:oauth:token-type:access_token",
		"audience":           "billing",
		"resource":           "https://billing.example.com/a2a",
		"scope":              "invoices.read",
	} {
		if got := f.Get(k); got != want {
			t.Errorf("form %s = %q; want %q", k, got, want)
		}
	}
	if reqs[0].ClientID != "bridge" || reqs[0].ClientSecret != "cs" {
		t.Errorf("client auth %q/%q", reqs[0].ClientID, reqs[0].ClientSecret)
	}
}

func TestTokenExchangeRefusesCallerWithoutToken(t *testing.T) {
	te := authtest.NewTokenEndpoint(t)
	x := auth.NewTokenExchange(auth.TokenExchangeConfig{TokenURL: te.URL(), ClientID: "bridge", Audience: "a"}, te.Server.Client())
	req := httptest.NewRequest(http.MethodGet, "http://up/", nil)
	req.Header.Set("Authorization", "Bearer key-one")
	err := x.Apply(context.Background(), req, &request.Principal{Subject: "ci-bot", Method: "apikey"})
	if err != auth.ErrNoSubjectToken || req.Header.Get("Authorization") != "" || len(te.Requests()) != 0 {
		t.Fatalf("err %v, header %q, %d requests", err, req.Header.Get("Authorization"), len(te.Requests()))
	}
}

func TestTokenExchangeErrorDoesNotLeakSubjectToken(t *testing.T) {
	te := authtest.NewTokenEndpoint(t)
	te.Fail = "invalid_grant" // the fake echoes subject_token in error_description
	x := auth.NewTokenExchange(auth.TokenExchangeConfig{TokenURL: te.URL(), ClientID: "bridge", Audience: "a"}, te.Server.Client())
	req := httptest.NewRequest(http.MethodGet, "http://up/", nil)
	err := x.Apply(context.Background(), req, &request.Principal{Token: "super-secret-subject"})
	if err == nil || strings.Contains(err.Error(), "super-secret-subject") || !strings.Contains(err.Error(), "invalid_grant") {
		t.Fatalf("error = %v", err)
	}
}

func TestClientCredentialsTokenIsCached(t *testing.T) {
	te := authtest.NewTokenEndpoint(t)
	cc := auth.NewClientCredentials(auth.ClientCredentialsConfig{TokenURL: te.URL(), ClientID: "bridge", ClientSecret: "cs", Resource: "https://up.example.com"}, te.Server.Client())
	for range 3 {
		req := httptest.NewRequest(http.MethodGet, "http://up/", nil)
		if err := cc.Apply(context.Background(), req, nil); err != nil {
			t.Fatal(err)
		}
		if got := req.Header.Get("Authorization"); got != "Bearer issued-1" {
			t.Fatalf("Authorization = %q", got)
		}
	}
	reqs := te.Requests()
	if len(reqs) != 1 || reqs[0].Form.Get("grant_type") != "client_credentials" || reqs[0].Form.Get("resource") != "https://up.example.com" {
		t.Fatalf("token requests: %+v", reqs)
	}
}

func TestStaticSecretFromFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(path, []byte("abc123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := auth.NewStaticSecret(auth.StaticSecretConfig{Header: "x-upstream-key", Value: "Key {secret}", File: path})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, "http://up/", nil)
	req.Header.Set("Authorization", "Bearer caller")
	if err := s.Apply(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	if req.Header.Get("X-Upstream-Key") != "Key abc123" || req.Header.Get("Authorization") != "" {
		t.Errorf("headers %v", req.Header)
	}
	if _, err := auth.NewStaticSecret(auth.StaticSecretConfig{Env: "BRIDGE_TEST_UNSET_SECRET_VAR"}); err == nil {
		t.Error("unset env var accepted")
	}
}

func TestCredentialsConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  auth.CredentialsConfig
		want []string
	}{
		{"none", auth.CredentialsConfig{}, nil},
		{"two sources", auth.CredentialsConfig{Static: &auth.StaticSecretConfig{Env: "X"}, ClientCredentials: &auth.ClientCredentialsConfig{TokenURL: "https://t/", ClientID: "c"}},
			[]string{"up.credentials: set at most one of static, client_credentials, token_exchange"}},
		{"static both env and file", auth.CredentialsConfig{Static: &auth.StaticSecretConfig{Env: "X", File: "f"}},
			[]string{"up.credentials.static: set exactly one of env or file"}},
		{"static template without placeholder", auth.CredentialsConfig{Static: &auth.StaticSecretConfig{Env: "X", Value: "Bearer ${X}"}},
			[]string{"up.credentials.static.value: must contain {secret}"}},
		{"exchange without target", auth.CredentialsConfig{TokenExchange: &auth.TokenExchangeConfig{TokenURL: "ftp://t", ClientID: ""}},
			[]string{
				"up.credentials.token_exchange.token_url: required: the token endpoint's http(s) URL",
				"up.credentials.token_exchange.client_id: required",
				"up.credentials.token_exchange: set audience or resource (the upstream the token is for)",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := tt.cfg.Validate("up.credentials")
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
