package endpoint_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/auth/authtest"
	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
	"github.com/a2a-mcp-bridge/bridge/policy"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// tools is a hand-written ToolSource: tools that answer with the caller.
type tools []string

func (ts tools) Tools() []server.ServerTool {
	var out []server.ServerTool
	for _, n := range ts {
		out = append(out, server.ServerTool{
			Tool: mcp.NewTool(n, mcp.WithDescription("test tool")),
			Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("caller=" + request.PrincipalFrom(ctx).Subject), nil
			},
		})
	}
	return out
}

// denyTool is a Decider that denies one tool.
type denyTool string

func (d denyTool) Decide(_ context.Context, h request.Hop) policy.Decision {
	return policy.Decision{Allow: h.Tool != string(d) && h.Face == request.FaceMCP && h.Principal != nil}
}

type env struct {
	public string
	face   *endpoint.Face
	idp    *authtest.IdP
}

func start(t *testing.T, mut func(*endpoint.Config)) *env {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	public := "http://" + ln.Addr().String()
	idp := authtest.NewIdP(t)
	jwks := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(jwks, idp.JWKS(), 0o600); err != nil {
		t.Fatal(err)
	}
	chain, err := auth.New(context.Background(), auth.Config{JWKS: []auth.JWKSConfig{{
		Issuer: idp.Issuer, File: jwks, Audience: []string{public + "/mcp"}, Scopes: []string{"agents"},
	}}, IPLimit: auth.IPLimitConfig{Disable: true}}, auth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	md, _ := chain.ResourceMetadata(public + "/mcp")
	cfg := endpoint.Config{PublicURL: public, Authenticator: chain, Metadata: md, Sources: []endpoint.ToolSource{tools{"alpha", "beta"}}}
	if mut != nil {
		mut(&cfg)
	}
	f, err := endpoint.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	f.Mount(mux)
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: mux}}
	srv.Start()
	t.Cleanup(srv.Close)
	return &env{public: public, face: f, idp: idp}
}

func (e *env) token(t *testing.T, sub, aud, scope string) string {
	c := e.idp.Claims(sub, aud, time.Now())
	if scope != "" {
		c["scope"] = scope
	}
	return e.idp.Sign(t, c)
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func (e *env) post(t *testing.T, tok, origin, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.public+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestRejectsMissingTokenWithResourceMetadata(t *testing.T) {
	e := start(t, nil)
	resp := e.post(t, "", "", initBody)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status %d", resp.StatusCode)
	}
	want := `resource_metadata="` + e.public + `/.well-known/oauth-protected-resource/mcp"`
	if h := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(h, "Bearer") || !strings.Contains(h, want) {
		t.Fatalf("WWW-Authenticate %q lacks %s", h, want)
	}
}

func TestServesProtectedResourceMetadata(t *testing.T) {
	e := start(t, nil)
	resp, err := (&http.Client{}).Get(e.public + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var md auth.ResourceMetadata
	if err := json.NewDecoder(resp.Body).Decode(&md); err != nil {
		t.Fatal(err)
	}
	if md.Resource != e.public+"/mcp" || len(md.AuthorizationServers) != 1 || md.AuthorizationServers[0] != e.idp.Issuer || md.ScopesSupported[0] != "agents" {
		t.Fatalf("metadata: %+v", md)
	}
}

func TestRejectsTokenIssuedForAnotherResource(t *testing.T) {
	e := start(t, nil)
	resp := e.post(t, e.token(t, "alice", "https://other.example/mcp", "agents"), "", initBody)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "invalid_token") {
		t.Fatalf("status %d, %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
}

func TestRejectsTokenWithoutRequiredScope(t *testing.T) {
	e := start(t, func(c *endpoint.Config) { c.RequiredScopes = []string{"agents", "mcp"} })
	resp := e.post(t, e.token(t, "alice", e.public+"/mcp", "agents"), "", initBody)
	h := resp.Header.Get("WWW-Authenticate")
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(h, `error="insufficient_scope"`) || !strings.Contains(h, "resource_metadata=") {
		t.Fatalf("status %d, %q", resp.StatusCode, h)
	}
}

func TestRejectsForeignOrigin(t *testing.T) {
	e := start(t, func(c *endpoint.Config) {
		c.AllowedOrigins = []string{"https://app.example"}
		c.AllowLoopbackOrigins = true
	})
	tok := e.token(t, "alice", e.public+"/mcp", "agents")
	tests := []struct {
		origin string
		want   int
	}{
		{"http://evil.example", http.StatusForbidden},
		{"https://app.example.evil.example", http.StatusForbidden},
		{"null", http.StatusForbidden},
		{"https://app.example", http.StatusOK},
		{e.public, http.StatusOK},
		{"http://localhost:6274", http.StatusOK},
		{"http://127.0.0.1:9999", http.StatusOK},
		{"", http.StatusOK},
	}
	for _, tt := range tests {
		if got := e.post(t, tok, tt.origin, initBody).StatusCode; got != tt.want {
			t.Errorf("Origin %q: status %d, want %d", tt.origin, got, tt.want)
		}
	}
}

func TestRejectsForeignOriginEvenWithoutToken(t *testing.T) {
	e := start(t, nil)
	if got := e.post(t, "", "http://evil.example", initBody).StatusCode; got != http.StatusForbidden {
		t.Fatalf("status %d", got)
	}
}

func TestRejectsOversizedBody(t *testing.T) {
	e := start(t, func(c *endpoint.Config) { c.MaxBodyBytes = 1024 })
	tok := e.token(t, "alice", e.public+"/mcp", "agents")
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 4096) + `"}}`
	if got := e.post(t, tok, "", big).StatusCode; got != http.StatusRequestEntityTooLarge {
		t.Fatalf("with Content-Length: status %d", got)
	}
	// Chunked: no Content-Length, the cap applies while reading.
	req, _ := http.NewRequest(http.MethodPost, e.public+"/mcp", io.MultiReader(strings.NewReader(big)))
	req.ContentLength = -1
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("chunked: status %d", resp.StatusCode)
	}
}

func connect(t *testing.T, url, tok string) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + tok}))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if _, err := c.Initialize(context.Background(), mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION, ClientInfo: mcp.Implementation{Name: "t", Version: "1"}}}); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestPolicyHidesAndBlocksTools(t *testing.T) {
	e := start(t, func(c *endpoint.Config) { c.Policy = denyTool("beta") })
	c := connect(t, e.public+"/mcp", e.token(t, "alice", e.public+"/mcp", "agents"))
	lst, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(lst.Tools) != 1 || lst.Tools[0].Name != "alpha" {
		t.Fatalf("tools: %+v", lst.Tools)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "beta"
	if res, err := c.CallTool(context.Background(), req); err == nil && !res.IsError {
		t.Fatal("a tool hidden by policy was callable")
	}
	req.Params.Name = "alpha"
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if tc, _ := mcp.AsTextContent(res.Content[0]); tc.Text != "caller=alice" {
		t.Fatalf("principal not in the handler context: %+v", res.Content)
	}
}

func TestLegacyEraOnSameEndpoint(t *testing.T) {
	e := start(t, nil)
	tok := e.token(t, "alice", e.public+"/mcp", "agents")
	resp := e.post(t, tok, "", initBody)
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"protocolVersion":"2025-06-18"`) {
		t.Fatalf("legacy initialize: %d %s", resp.StatusCode, b)
	}
}

func TestHTTPRefusedWithoutAuthenticator(t *testing.T) {
	f, err := endpoint.New(endpoint.Config{Sources: []endpoint.ToolSource{tools{"alpha"}}})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	f.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(initBody)))
	if rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("a stdio-only face served HTTP: %d", rec.Code)
	}
	if _, err := endpoint.New(endpoint.Config{Authenticator: auth.NewChain(auth.ChainOptions{})}); err == nil {
		t.Fatal("built an HTTP face without a public URL (token audience)")
	}
}

func TestSessionOfAnotherPrincipalIsRefused(t *testing.T) {
	e := start(t, func(c *endpoint.Config) { c.LegacySessions = true })
	alice := e.token(t, "alice", e.public+"/mcp", "agents")
	mallory := e.token(t, "mallory", e.public+"/mcp", "agents")
	resp := e.post(t, alice, "", initBody)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || len(sid) < 32 {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, sid)
	}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	do := func(tok, sid string) int {
		req, _ := http.NewRequest(http.MethodPost, e.public+"/mcp", strings.NewReader(list))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		resp, err := (&http.Client{}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := do(alice, sid); got != http.StatusOK {
		t.Fatalf("owner: status %d", got)
	}
	if got := do(mallory, sid); got != http.StatusNotFound {
		t.Fatalf("another principal used the session: status %d", got)
	}
	if got := do(alice, "0123456789abcdef0123456789abcdef0123456789abcdef"); got != http.StatusNotFound {
		t.Fatalf("made-up session id: status %d", got)
	}
}

func TestStandaloneStreamRefusedWithSessions(t *testing.T) {
	e := start(t, func(c *endpoint.Config) { c.LegacySessions = true })
	req, _ := http.NewRequest(http.MethodGet, e.public+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+e.token(t, "alice", e.public+"/mcp", "agents"))
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET: %d", resp.StatusCode)
	}
}
