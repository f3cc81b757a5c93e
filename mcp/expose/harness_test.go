package expose_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/auth/authtest"
	"github.com/a2a-mcp-bridge/bridge/examples/demoagent"
	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
	"github.com/a2a-mcp-bridge/bridge/mcp/expose"
	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// demo is an in-process A2A agent (the demo executor behind server.New)
// on a loopback httptest server, serving its card from bytes the test
// controls (signed, tampered, ...).
type demo struct {
	srv       *httptest.Server
	a2a       *server.Server
	cardURL   string
	cardBytes atomic.Pointer[[]byte]
	cardGets  atomic.Int64
	condGets  atomic.Int64
	observe   atomic.Pointer[func(*http.Request)]
}

func startDemo(t testing.TB, mutate func(*a2a.AgentCard)) *demo {
	t.Helper()
	d := &demo{}
	mgr, err := taskmanager.New(taskmanager.Config{Store: store.NewMemory(), Executor: &demoagent.Agent{Tick: 5 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	d.srv = httptest.NewServer(mux)
	t.Cleanup(d.srv.Close)
	c := demoagent.Card(d.srv.URL)
	if mutate != nil {
		mutate(c)
	}
	d.a2a, err = server.New(server.Config{Manager: mgr, Card: c})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(c)
	d.setCard(b)
	mux.HandleFunc("/.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
		d.cardGets.Add(1)
		body := *d.cardBytes.Load()
		sum := sha256.Sum256(body)
		etag := `"` + hex.EncodeToString(sum[:8]) + `"`
		w.Header().Set("ETag", etag)
		w.Header().Set("Cache-Control", "max-age=60")
		if r.Header.Get("If-None-Match") == etag {
			d.condGets.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f := d.observe.Load(); f != nil {
			(*f)(r)
		}
		d.a2a.ServeHTTP(w, r)
	}))
	d.cardURL = d.srv.URL + "/.well-known/agent-card.json"
	return d
}

func (d *demo) setCard(b []byte) { d.cardBytes.Store(&b) }

// guardedClient is netguard's client with loopback allowed (tests only).
func guardedClient(t testing.TB) *http.Client {
	t.Helper()
	g, err := netguard.New(netguard.Config{
		UnsafeAllow:  []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
		AllowHTTP:    true,
		Timeout:      10 * time.Minute,
		MaxBodyBytes: 64 << 20,
	})
	if err != nil {
		t.Fatal(err)
	}
	return g.Client()
}

// bridge is the face + agent tools on a loopback listener, with an IdP
// whose tokens carry the face's resource URL as audience.
type bridge struct {
	url   string // the /mcp endpoint
	face  *endpoint.Face
	tools *expose.AgentTools
	idp   *authtest.IdP
}

func startBridge(t testing.TB, agents []expose.AgentConfig, mut func(*endpoint.Config)) *bridge {
	t.Helper()
	ctx := context.Background()
	tools, err := expose.New(expose.Config{Agents: agents, HTTPClient: guardedClient(t)})
	if err != nil {
		t.Fatal(err)
	}
	_ = tools.Refresh(ctx)
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
	chain, err := auth.New(ctx, auth.Config{JWKS: []auth.JWKSConfig{{
		Issuer: idp.Issuer, File: jwks, Audience: []string{public + endpoint.DefaultPath}, Scopes: []string{"agents"},
	}}}, auth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	md, err := chain.ResourceMetadata(public + endpoint.DefaultPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg := endpoint.Config{PublicURL: public, Authenticator: chain, Metadata: md, Sources: []endpoint.ToolSource{tools}}
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
	return &bridge{url: public + endpoint.DefaultPath, face: f, tools: tools, idp: idp}
}

// token returns a valid token for sub with the required scope.
func (b *bridge) token(t testing.TB, sub string) string {
	t.Helper()
	c := b.idp.Claims(sub, b.face.Resource(), time.Now())
	c["scope"] = "agents"
	return b.idp.Sign(t, c)
}

// connect returns an initialized mcp-go client over streamable HTTP.
func (b *bridge) connect(t testing.TB, tok string, opts ...client.ClientOption) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(b.url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + tok}))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, opts...)
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION,
		ClientInfo:      mcp.Implementation{Name: "test", Version: "1"},
	}}); err != nil {
		t.Fatal(err)
	}
	return c
}

func call(t testing.TB, c *client.Client, ctx context.Context, tool string, args map[string]any, meta *mcp.Meta) *mcp.CallToolResult {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	req.Params.Meta = meta
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	return res
}

func texts(res *mcp.CallToolResult) string {
	var s string
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			s += tc.Text + "\n"
		}
	}
	return s
}

func structured(t testing.TB, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	var m map[string]any
	switch v := res.StructuredContent.(type) {
	case map[string]any:
		return v
	default:
		b, _ := json.Marshal(v)
		if len(res.RawStructuredContent) > 0 {
			b = res.RawStructuredContent
		}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("structuredContent: %v", err)
		}
	}
	return m
}
