package connector_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/trace"

	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
)

// metaServer has one tool, "meta", that answers with the traceparent and
// tracestate of its request's _meta.
func metaServer() *server.MCPServer {
	s := server.NewMCPServer("meta", "1", server.WithToolCapabilities(true))
	s.AddTool(mcp.NewTool("meta"), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		out := map[string]any{}
		if req.Params.Meta != nil {
			for _, k := range []string{"traceparent", "tracestate"} {
				if v, ok := req.Params.Meta.AdditionalFields[k]; ok {
					out[k] = v
				}
			}
		}
		return mcp.NewToolResultStructured(out, "meta"), nil
	})
	return s
}

func spanContext(t *testing.T) (context.Context, string) {
	t.Helper()
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled})
	return trace.ContextWithSpanContext(context.Background(), sc), "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
}

func TestCallCarriesTheTraceContextInMeta(t *testing.T) {
	ctx, want := spanContext(t)
	for _, era := range []string{connector.Era20251125, connector.Era20260728} {
		t.Run(era, func(t *testing.T) {
			c, err := connector.InProcess(context.Background(), metaServer(), connector.Config{Name: "meta", ProtocolVersion: era, Logger: quiet})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			raw, err := c.CallToolWith(ctx, "meta", nil, connector.CallHandlers{Log: func(connector.LogMessage) {}})
			if err != nil {
				t.Fatal(err)
			}
			var res struct {
				Structured map[string]string `json:"structuredContent"`
			}
			if err := json.Unmarshal(raw, &res); err != nil {
				t.Fatal(err)
			}
			if got := res.Structured["traceparent"]; got != want {
				t.Fatalf("traceparent in _meta = %q, want %q (result %s)", got, want, raw)
			}
			// Without a trace, nothing is invented.
			raw, err = c.CallTool(context.Background(), "meta", nil, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			res.Structured = nil
			_ = json.Unmarshal(raw, &res)
			if _, ok := res.Structured["traceparent"]; ok {
				t.Fatalf("a call without a trace sent traceparent: %s", raw)
			}
		})
	}
}
