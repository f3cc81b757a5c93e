package endpoint_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
)

// changing is a tool source whose tools and handlers the test replaces.
type changing struct {
	mu    sync.Mutex
	names []string
	reply string
}

func (c *changing) Tools() []server.ServerTool {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []server.ServerTool
	reply := c.reply
	for _, n := range c.names {
		out = append(out, server.ServerTool{Tool: mcp.NewTool(n, mcp.WithDescription("test tool")),
			Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText(reply), nil
			}})
	}
	return out
}

func (c *changing) set(reply string, names ...string) {
	c.mu.Lock()
	c.reply, c.names = reply, names
	c.mu.Unlock()
}

// TestSyncTellsHostsOnlyWhenTheToolsDiffer: a Sync that finds the same
// tool definitions (a source reconnected, or changed its prompts) sends no
// notifications/tools/list_changed, yet serves the new handlers; a Sync
// with other tools sends one.
func TestSyncTellsHostsOnlyWhenTheToolsDiffer(t *testing.T) {
	src := &changing{names: []string{"alpha"}, reply: "first"}
	f, err := endpoint.New(endpoint.Config{Sources: []endpoint.ToolSource{src}})
	if err != nil {
		t.Fatal(err)
	}
	c := stdioClient(t, f)
	var changes atomic.Int32
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationToolsListChanged) {
			changes.Add(1)
		}
	})
	call := func() string {
		t.Helper()
		req := mcp.CallToolRequest{}
		req.Params.Name = "alpha"
		res, err := c.CallTool(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		return res.Content[0].(mcp.TextContent).Text
	}
	src.set("second", "alpha")
	f.Sync()
	if got := call(); got != "second" {
		t.Fatalf("after a Sync with the same tools the old handler answered: %q", got)
	}
	time.Sleep(100 * time.Millisecond) // an absence: nothing to wait for
	if n := changes.Load(); n != 0 {
		t.Fatalf("%d list_changed for the same tools", n)
	}
	src.set("third", "alpha", "beta")
	f.Sync()
	bridgetest.Eventually(t, 10*time.Second, "list_changed for a changed tool list", func() error {
		if changes.Load() == 0 {
			return errors.New("none yet")
		}
		return nil
	})
	if n := changes.Load(); n != 1 {
		t.Fatalf("%d list_changed for a changed tool list, want 1", n)
	}
}
