package front_test

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector/connectortest"
	"github.com/a2a-mcp-bridge/bridge/mcp/front"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// BenchmarkCall measures one routed call through the source's handler
// (check, routing, result decode): against a fake upstream (the source's
// own cost) and an in-process mcp-go upstream.
func BenchmarkCall(b *testing.B) {
	ctx := request.WithPrincipal(context.Background(), &request.Principal{Subject: "bench", Issuer: "local"})
	req := mcp.CallToolRequest{}
	req.Params.Arguments = map[string]any{"text": "hello"}
	req.Params.RawArguments = []byte(`{"text":"hello"}`)

	f := &fake{}
	f.set("echo")
	inproc := connectortest.NewServer(connectortest.Options{})
	conn, err := connector.InProcess(context.Background(), inproc.MCP, connector.Config{Name: "inproc", Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	for _, bc := range []struct {
		name string
		up   front.Upstream
	}{{"fake", f}, {"inprocess", conn}} {
		src, err := front.New(context.Background(), front.Config{Logger: quiet, Check: allowAll{}, Servers: []front.Server{{Name: "s", Upstream: bc.up}}})
		if err != nil {
			b.Fatal(err)
		}
		var h func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error)
		for _, t := range src.Tools() {
			if t.Tool.Name == "s_echo" {
				h = t.Handler
			}
		}
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := h(ctx, req)
				if err != nil || res.IsError {
					b.Fatalf("%+v %v", res, err)
				}
			}
		})
	}
}

// allowAll is a Checker that allows every hop.
type allowAll struct{}

func (allowAll) Check(context.Context, request.Hop) error { return nil }
