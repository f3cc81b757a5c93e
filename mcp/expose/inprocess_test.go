package expose_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
	"github.com/a2a-mcp-bridge/bridge/mcp/expose"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// inProcess is the face served to an in-process client speaking the legacy
// era (the path stdio hosts such as Claude Desktop take): elicitation is a
// server-initiated elicitation/create request.
func inProcess(t *testing.T, h client.ElicitationHandler) (*client.Client, context.Context) {
	t.Helper()
	d := startDemo(t, nil)
	tools, err := expose.New(expose.Config{Agents: []expose.AgentConfig{{Alias: "echo", CardURL: d.cardURL}}, HTTPClient: guardedClient(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := tools.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	f, err := endpoint.New(endpoint.Config{UnsafeNoAuth: true, Sources: []endpoint.ToolSource{tools}})
	if err != nil {
		t.Fatal(err)
	}
	opts := []client.ClientOption{client.WithLegacyProtocolOnly()}
	if h != nil {
		opts = append(opts, client.WithElicitationHandler(h))
	}
	c, err := client.NewInProcessClientWithOptions(f.MCPServer(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	ctx := request.WithPrincipal(context.Background(), &request.Principal{Subject: "local", Issuer: "local", Method: "stdio"})
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	caps := mcp.ClientCapabilities{}
	if h != nil {
		caps.Elicitation = &mcp.ElicitationCapability{}
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.ProtocolVersion20251125, Capabilities: caps, ClientInfo: mcp.Implementation{Name: "t", Version: "1"}}}); err != nil {
		t.Fatal(err)
	}
	return c, ctx
}

func TestInterviewLegacyElicitationCreate(t *testing.T) {
	h := &answer{text: "Lin"}
	c, ctx := inProcess(t, h)
	res := call(t, c, ctx, "echo", map[string]any{"message": "/interview"}, nil)
	if res.IsError || !strings.Contains(texts(res), "Hello, Lin!") || h.calls.Load() != 1 {
		t.Fatalf("result %q after %d elicitations", texts(res), h.calls.Load())
	}
}

func TestInterviewLegacyWithoutElicitationCapability(t *testing.T) {
	c, ctx := inProcess(t, nil)
	res := call(t, c, ctx, "echo", map[string]any{"message": "/interview"}, nil)
	sc := structured(t, res)
	if sc["state"] != "input_required" {
		t.Fatalf("result %v %q", sc, texts(res))
	}
}

func TestInterviewLegacyElicitationOverHTTPSessions(t *testing.T) {
	d := startDemo(t, nil)
	b := startBridge(t, []expose.AgentConfig{{Alias: "echo", CardURL: d.cardURL}}, func(c *endpoint.Config) { c.LegacySessions = true })
	h := &answer{text: "Ada"}
	tr, err := transport.NewStreamableHTTP(b.url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + b.token(t, "alice")}))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithLegacyProtocolOnly(), client.WithElicitationHandler(h))
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.ProtocolVersion20251125, Capabilities: mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}, ClientInfo: mcp.Implementation{Name: "t", Version: "1"}}}); err != nil {
		t.Fatal(err)
	}
	res := call(t, c, ctx, "echo", map[string]any{"message": "/interview"}, nil)
	if res.IsError || !strings.Contains(texts(res), "Hello, Ada!") || h.calls.Load() != 1 {
		t.Fatalf("result %q after %d elicitations", texts(res), h.calls.Load())
	}
}
