package endpoint_test

import (
	"context"
	"io"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
	"github.com/a2a-mcp-bridge/bridge/request"
)

func TestServeStdioRunsAsTheLocalPrincipal(t *testing.T) {
	f, err := endpoint.New(endpoint.Config{Sources: []endpoint.ToolSource{tools{"alpha"}}, StdioPrincipal: &request.Principal{Subject: "desktop-user", Issuer: "local"}})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.ServeStdio(ctx, inR, outW) }()
	c := client.NewClient(transport.NewIO(outR, inW, nil))
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION, ClientInfo: mcp.Implementation{Name: "t", Version: "1"}}}); err != nil {
		t.Fatal(err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "alpha"
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if tc, _ := mcp.AsTextContent(res.Content[0]); tc.Text != "caller=desktop-user" {
		t.Fatalf("stdio principal: %+v", res.Content)
	}
	cancel()
	_ = inW.Close()
	_ = c.Close()
	if err := <-done; err != nil {
		t.Fatalf("ServeStdio: %v", err)
	}
}
