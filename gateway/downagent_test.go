package gateway_test

import (
	"context"
	"fmt"
	"net"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/gateway"
)

// TestDownAgentToolIsListedAndNamesTheCause: an exposed agent that is down
// when the bridge starts still has its tool (named from its alias, with a
// generic description); a call returns isError naming the agent and why it
// is unreachable, not "tool not found".
func TestDownAgentToolIsListedAndNamesTheCause(t *testing.T) {
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := dead.Addr().(*net.TCPAddr).Port
	dead.Close() // nothing listens there now
	yaml := fmt.Sprintf(`
listen: 127.0.0.1:8080
store: "memory:"
auth:
  api_keys:
    - {name: alice, sha256: %q}
policy: {default: allow}
expose:
  agents:
    - {alias: billing, url: "http://127.0.0.1:%d/.well-known/agent-card.json", per_skill_tools: true}
netguard:
  unsafe_allow: [127.0.0.1/32]
  unsafe_allow_http: true
  ports: [%d]
`, hash(aliceKey), port, port)
	cfg, err := config.Parse([]byte(yaml), "inline.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pub := "http://" + ln.Addr().String()
	ctx := context.Background()
	b, err := gateway.Build(ctx, cfg, gateway.Options{Logger: quiet, PublicURL: pub})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(b.Handler())
	srv.Listener = ln
	srv.Start()
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { b.Run(rctx); close(done) }()
	t.Cleanup(func() { srv.Close(); cancel(); <-done; _ = b.Close() })

	tr, err := transport.NewStreamableHTTP(pub+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + aliceKey}))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION, ClientInfo: mcp.Implementation{Name: "t", Version: "1"}}}); err != nil {
		t.Fatal(err)
	}
	lst, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(lst.Tools) != 1 || lst.Tools[0].Name != "billing" || !strings.Contains(lst.Tools[0].Description, "billing") {
		t.Fatalf("tools of a down agent: %+v", lst.Tools)
	}
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "billing", Arguments: map[string]any{"message": "hi"}}})
	if err != nil {
		t.Fatalf("call: %v (want an isError result, not a protocol error)", err)
	}
	text := ""
	if len(res.Content) > 0 {
		text = res.Content[0].(mcp.TextContent).Text
	}
	if !res.IsError || !strings.Contains(text, "agent billing unreachable: ") || !strings.Contains(text, "connection refused") {
		t.Fatalf("result isError=%v %q, want the agent and the cause", res.IsError, text)
	}
}
