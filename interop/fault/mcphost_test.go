//go:build interop

package fault

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// MCPHost is an MCP host (mcp-go's client, streamable HTTP, the suite's API
// key) connected to a bridge's /mcp; it counts the
// notifications/tools/list_changed it receives.
type MCPHost struct {
	c *client.Client

	mu          sync.Mutex
	listChanged int
}

// dialMCP connects a host to url (the bridge's MCP endpoint) and, on the
// 2026-07-28 protocol, opens the subscription stream for tool list changes.
func dialMCP(t *testing.T, url string) *MCPHost {
	t.Helper()
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + APIKey}))
	if err != nil {
		t.Fatal(err)
	}
	h := &MCPHost{c: c}
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationToolsListChanged) {
			h.mu.Lock()
			h.listChanged++
			h.mu.Unlock()
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(context.Background()); err != nil {
		t.Fatalf("fault: MCP host start: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	res, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ClientInfo: mcp.Implementation{Name: "fault-host", Version: "1"}}})
	if err != nil {
		t.Fatalf("fault: MCP host initialize: %v", err)
	}
	if mcp.IsModernProtocol(res.ProtocolVersion) {
		stop, err := c.ListenAsync(context.Background(), mcp.SubscriptionFilter{ToolsListChanged: true}, func(error) {})
		if err != nil {
			t.Fatalf("fault: MCP host listen: %v", err)
		}
		t.Cleanup(stop)
	}
	return h
}

// ListChanged is how many notifications/tools/list_changed arrived.
func (h *MCPHost) ListChanged() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.listChanged
}

// Tools lists the tool names, sorted.
func (h *MCPHost) Tools(t *testing.T) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := h.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("fault: tools/list: %v", err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	sort.Strings(names)
	return names
}

// HasTool reports whether the host sees tool.
func (h *MCPHost) HasTool(t *testing.T, tool string) bool {
	for _, n := range h.Tools(t) {
		if n == tool {
			return true
		}
	}
	return false
}

// Call calls a tool; a protocol error is returned as err, a tool error as
// the result (IsError) with its text.
func (h *MCPHost) Call(t *testing.T, tool string, args map[string]any) (res *mcp.CallToolResult, text string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, args
	res, err = h.c.CallTool(ctx, req)
	if err != nil {
		return nil, "", err
	}
	return res, resultText(res), nil
}

// resultText joins the text blocks of a result.
func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// callOK calls tool and returns nil when it succeeded with want in its text.
func (h *MCPHost) callOK(t *testing.T, tool string, args map[string]any, want string) error {
	t.Helper()
	res, text, err := h.Call(t, tool, args)
	switch {
	case err != nil:
		return err
	case res.IsError:
		return fmt.Errorf("isError: %s", text)
	case !strings.Contains(text, want):
		b, _ := json.Marshal(res)
		return fmt.Errorf("result %s does not contain %q", b, want)
	}
	return nil
}
