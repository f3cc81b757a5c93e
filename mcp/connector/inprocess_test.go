package connector_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
)

// TestInProcessProgressPrecedesResult: an in-process server's tool sends
// its progress and returns at once; every notification it sent reaches the
// call's progress relay, in order, before CallTool returns. mcp-go's
// in-process transport forwards them on a goroutine, and the last ones used
// to arrive after the result (and were dropped as late).
func TestInProcessProgressPrecedesResult(t *testing.T) {
	const steps, runs = 5, 200
	s := server.NewMCPServer("progress", "1", server.WithToolCapabilities(true))
	s.AddTool(mcp.NewTool("count"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var tok mcp.ProgressToken
		if req.Params.Meta != nil {
			tok = req.Params.Meta.ProgressToken
		}
		for i := 1; i <= steps; i++ {
			if err := server.ServerFromContext(ctx).SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress),
				map[string]any{"progressToken": tok, "progress": float64(i), "total": float64(steps)}); err != nil {
				return nil, err
			}
		}
		return mcp.NewToolResultText("done"), nil
	})
	ctx := context.Background()
	c, err := connector.InProcess(ctx, s, connector.Config{Name: "progress", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for run := 0; run < runs; run++ {
		var got []float64
		res, err := c.CallTool(ctx, "count", json.RawMessage(`{}`), func(p, _ float64, _ string) { got = append(got, p) }, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) == 0 {
			t.Fatal("empty result")
		}
		if len(got) != steps {
			t.Fatalf("run %d: %d of %d progress notifications before the result: %v", run, len(got), steps, got)
		}
		for i, p := range got {
			if p != float64(i+1) {
				t.Fatalf("run %d: progress out of order: %v", run, got)
			}
		}
	}
}
