package publish_test

import (
	"context"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/trace"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/publish"
)

// TestA2ATraceReachesThePublishedServer: the trace of the A2A request that
// runs a tool reaches the published MCP server as traceparent in the
// tools/call _meta.
func TestA2ATraceReachesThePublishedServer(t *testing.T) {
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
	conn, err := connector.InProcess(context.Background(), s, connector.Config{Name: "traced", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	st := store.NewMemory()
	agent, err := publish.New(publish.Config{Name: "traced", Store: st, Logger: quiet}, conn)
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := taskmanager.New(taskmanager.Config{Store: st, Executor: agent, PollInterval: 20 * time.Millisecond, CancelGrace: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mgr.Wait)
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	ctx := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}))
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := mgr.SendMessage(ctx, "alice", &a2a.SendMessageRequest{Message: dataMsg(t, call("meta", nil))}); err != nil {
		t.Fatal(err)
	}
	if tp := <-got; tp != "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" {
		t.Fatalf("the published server got traceparent %q", tp)
	}
}
