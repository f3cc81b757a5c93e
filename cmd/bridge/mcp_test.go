package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
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

	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/examples/demoagent"
)

// demoAgent serves the demo A2A agent on loopback and returns its port.
func demoAgent(t *testing.T) string {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	mgr, err := taskmanager.New(taskmanager.Config{Store: store.NewMemory(), Executor: &demoagent.Agent{Tick: time.Millisecond}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	srv.Listener = ln
	as, err := server.New(server.Config{Manager: mgr, Card: demoagent.Card("http://" + ln.Addr().String()), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/agent-card.json", as.ServeCard)
	mux.Handle("/", as)
	srv.Config.Handler = mux
	srv.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(mgr.Wait)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

func TestMCPStdioListsAndCallsExposedAgent(t *testing.T) {
	port := demoAgent(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "expose.yaml")
	cfg := fmt.Sprintf(`listen: 127.0.0.1:0
store: "memory:"
auth: {anonymous: true}
policy: {default: allow}
expose:
  agents:
    - {alias: demo, url: "http://127.0.0.1:%s"}
  mcp: {stdio: true}
netguard:
  unsafe_allow: [127.0.0.1/32]
  unsafe_allow_http: true
  ports: [%s]
`, port, port)
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		var stderr strings.Builder
		err := serveMCP(ctx, []string{"--config", file}, inR, outW, &stderr)
		if err != nil {
			t.Errorf("mcp: %v\n%s", err, stderr.String())
			_ = inR.CloseWithError(err)
		}
		done <- err
		outW.Close()
	}()

	c := client.NewClient(transport.NewIO(outR, inW, io.NopCloser(&emptyReader{})))
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION, ClientInfo: mcp.Implementation{Name: "t", Version: "1"}}}); err != nil {
		t.Fatal(err)
	}
	lst, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(lst.Tools) != 1 || lst.Tools[0].Name != "demo" {
		t.Fatalf("tools: %+v", lst.Tools)
	}
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "demo", Arguments: map[string]any{"message": "ping"}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("call: %+v", res.Content)
	}
	inW.Close()
	cancel()
	if err := <-done; err != nil && ctx.Err() == nil {
		t.Fatalf("mcp: %v", err)
	}
}

func TestMCPStdioRefusedUnlessEnabled(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "x.yaml")
	if err := os.WriteFile(file, []byte("listen: 127.0.0.1:0\nstore: \"memory:\"\nauth: {anonymous: true}\npolicy: {default: deny}\nexpose:\n  agents:\n    - {alias: a, url: \"https://agent.example.com\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := serveMCP(context.Background(), []string{"--config", file}, nil, nil, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "expose.mcp.stdio") {
		t.Fatalf("stdio without expose.mcp.stdio: %v", err)
	}
}

// emptyReader blocks nothing and returns EOF: the transport's stderr.
type emptyReader struct{}

func (*emptyReader) Read([]byte) (int, error) { return 0, io.EOF }
