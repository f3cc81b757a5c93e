//go:build interop

// Package mcpexpose runs the official MCP TypeScript client
// (@modelcontextprotocol/sdk, pinned in package-lock.json) against the
// bridge's MCP face exposing an A2A agent written on @a2a-js/sdk
// (../a2ajs/server.mjs), over streamable HTTP with a bearer token and over
// stdio. Run with `go test -tags interop ./interop/...`; needs node 20+.
package mcpexpose

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a/a2agrpc"
	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
	"github.com/a2a-mcp-bridge/bridge/mcp/expose"
	"github.com/a2a-mcp-bridge/bridge/netguard"
	"github.com/a2a-mcp-bridge/bridge/request"
)

func TestMain(m *testing.M) { os.Exit(bridgetest.Main(m)) }

// requireNode skips without node and installs the pinned npm packages of
// dirs where node_modules is missing.
func requireNode(t *testing.T, dirs ...string) string {
	t.Helper()
	var node string
	for _, dir := range dirs {
		node = bridgetest.Node(t, dir, "")
	}
	return node
}

// startJSAgent runs ../a2ajs/server.mjs on a free loopback port (env adds
// variables: A2A_JS_GRPC=only serves it over gRPC only) and returns its
// base URL.
func startJSAgent(t *testing.T, node string, env ...string) string {
	t.Helper()
	return bridgetest.StartNodeServer(t, node, "../a2ajs", "", "server.mjs", env...).URL
}

// cancelRecorder counts CancelTask calls that the agent answered with a
// CANCELED task.
type cancelRecorder struct {
	base     http.RoundTripper
	canceled atomic.Int64
}

func (c *cancelRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := c.base.RoundTrip(req)
	if err != nil || !(bytes.Contains(body, []byte(`"CancelTask"`)) || strings.HasSuffix(req.URL.Path, ":cancel")) {
		return resp, err
	}
	rb, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(bytes.NewReader(rb))
	if bytes.Contains(rb, []byte("TASK_STATE_CANCELED")) {
		c.canceled.Add(1)
	}
	return resp, nil
}

// tokenAuth accepts one bearer token.
type tokenAuth string

func (a tokenAuth) Authenticate(r *http.Request) (*request.Principal, error) {
	if r.Header.Get("Authorization") != "Bearer "+string(a) {
		return nil, errors.New("mcpexpose: wrong or missing token")
	}
	return &request.Principal{Subject: "interop", Issuer: "test", Method: "bearer"}, nil
}

func runNode(t *testing.T, node string, env ...string) {
	t.Helper()
	runNodeScript(t, node, "client-test.mjs", env...)
}

// runNodeScript runs one node:test script with env added.
func runNodeScript(t *testing.T, node, script string, env ...string) {
	t.Helper()
	bridgetest.RunNodeTest(t, node, "", script, env...)
}

func guarded(t *testing.T) *http.Client {
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

func TestTSClientOverStreamableHTTP(t *testing.T) {
	t.Run("stateless", func(t *testing.T) { tsOverHTTP(t, false) })
	t.Run("legacy-sessions", func(t *testing.T) { tsOverHTTP(t, true) })
}

func tsOverHTTP(t *testing.T, sessions bool) {
	node := requireNode(t, ".", "../a2ajs")
	agent := startJSAgent(t, node)
	hc := guarded(t)
	rec := &cancelRecorder{base: hc.Transport}
	hc.Transport = rec
	tools, err := expose.New(expose.Config{Agents: []expose.AgentConfig{{Alias: "echo", CardURL: agent}}, HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	if err := tools.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	public := "http://" + ln.Addr().String()
	f, err := endpoint.New(endpoint.Config{PublicURL: public, Authenticator: tokenAuth("interop-token"),
		Metadata: auth.ResourceMetadata{AuthorizationServers: []string{"https://idp.example"}}, Sources: []endpoint.ToolSource{tools},
		LegacySessions: sessions})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	f.Mount(mux)
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: mux}}
	srv.Start()
	defer srv.Close()
	expect := "0"
	if sessions {
		expect = "1"
	}
	runNode(t, node, "MCP_MODE=http", "MCP_URL="+public+"/mcp", "MCP_TOKEN=interop-token", "MCP_EXPECT_ELICIT="+expect)
	if rec.canceled.Load() == 0 {
		t.Fatal("the cancelled call did not cancel the A2A task")
	}
}

func TestTSClientOverStdio(t *testing.T) {
	node := requireNode(t, ".", "../a2ajs")
	agent := startJSAgent(t, node)
	bin := bridgetest.Binary(t, "./interop/mcpexpose/testdata/stdiobridge")
	logFile := filepath.Join(t.TempDir(), "bridge.log")
	runNode(t, node, "MCP_MODE=stdio", "MCP_EXPECT_ELICIT=1", "MCP_STDIO="+bin, "AGENT_CARD_URL="+agent, "BRIDGE_LOG="+logFile)
	b, _ := os.ReadFile(logFile)
	if !strings.Contains(string(b), "cancelled the upstream task") {
		t.Fatalf("the cancelled call did not cancel the A2A task; bridge log:\n%s", b)
	}
}

// TestTSClientOverStreamableHTTPToGRPCAgent: the MCP TypeScript SDK calls,
// through expose, an agent written on @a2a-js/sdk's gRPC server whose card
// offers only gRPC: the bridge calls it over gRPC, dialing through
// netguard.
func TestTSClientOverStreamableHTTPToGRPCAgent(t *testing.T) {
	node := requireNode(t, ".", "../a2ajs")
	agent := startJSAgent(t, node, "A2A_JS_GRPC=only")
	g, err := netguard.New(netguard.Config{UnsafeAllow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, AllowHTTP: true})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := a2agrpc.NewConnector(a2agrpc.ConnectorConfig{Dial: g.DialContext})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tools, err := expose.New(expose.Config{Agents: []expose.AgentConfig{{Alias: "echo", CardURL: agent, GRPC: conn.Factory(true)}}, HTTPClient: guarded(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := tools.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	public := "http://" + ln.Addr().String()
	f, err := endpoint.New(endpoint.Config{PublicURL: public, Authenticator: tokenAuth("interop-token"),
		Metadata: auth.ResourceMetadata{AuthorizationServers: []string{"https://idp.example"}}, Sources: []endpoint.ToolSource{tools}})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	f.Mount(mux)
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: mux}}
	srv.Start()
	defer srv.Close()
	runNode(t, node, "MCP_MODE=http", "MCP_URL="+public+"/mcp", "MCP_TOKEN=interop-token", "MCP_EXPECT_ELICIT=0")
}
