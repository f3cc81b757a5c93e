package front_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
	"github.com/a2a-mcp-bridge/bridge/mcp/front"
	"github.com/a2a-mcp-bridge/bridge/observe"
)

// TestHostTraceReachesTheFrontedServer: a host's traceparent (in the
// tools/call _meta) reaches the fronted server in its request's _meta, in
// the same trace, as the face of bridge serve is set up (observe's tool
// middleware).
func TestHostTraceReachesTheFrontedServer(t *testing.T) {
	got := make(chan string, 1)
	s := server.NewMCPServer("traced", "1", server.WithToolCapabilities(true))
	s.AddTool(mcp.NewTool("meta"), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		tp := ""
		if req.Params.Meta != nil {
			tp, _ = req.Params.Meta.AdditionalFields["traceparent"].(string)
		}
		got <- tp
		return mcp.NewToolResultText("ok"), nil
	})
	ctx := context.Background()
	up, err := connector.InProcess(ctx, s, connector.Config{Name: "traced", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = up.Close() })
	src, err := front.New(ctx, front.Config{Servers: []front.Server{{Name: "traced", NoPrefix: true, Upstream: up}}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	f, err := endpoint.New(endpoint.Config{PublicURL: url, UnsafeNoAuth: true, Sources: []endpoint.ToolSource{src}, Logger: quiet,
		ServerOptions: []server.ServerOption{server.WithToolHandlerMiddleware(observe.ToolMiddleware())}})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	f.Mount(mux)
	hs := &httptest.Server{Listener: ln, Config: &http.Server{Handler: mux}}
	hs.Start()
	t.Cleanup(hs.Close)
	tr, err := transport.NewStreamableHTTP(url + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	c := start(t, tr)
	const host = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	req := mcp.CallToolRequest{}
	req.Params.Name = "meta"
	req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{"traceparent": host}}
	if _, err := c.CallTool(ctx, req); err != nil {
		t.Fatal(err)
	}
	tp := <-got
	parts := strings.Split(tp, "-")
	if len(parts) != 4 || parts[1] != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Fatalf("the fronted server got traceparent %q, want one in trace 4bf92f3577b34da6a3ce929d0e0e4736", tp)
	}
}
