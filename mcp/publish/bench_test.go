package publish_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector/connectortest"
	"github.com/a2a-mcp-bridge/bridge/mcp/publish"
)

// BenchmarkDirectMCPCall is the baseline: the echo tool called through an
// mcp-go in-process client.
func BenchmarkDirectMCPCall(b *testing.B) {
	srv := connectortest.NewServer(connectortest.Options{})
	c, err := client.NewInProcessClient(srv.MCP)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		b.Fatal(err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "echo"
	req.Params.Arguments = map[string]any{"text": "hi"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.CallTool(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSendMessageThroughAgent is the published path: a JSON-RPC
// SendMessage over loopback HTTP to an server.Server whose executor is the tool
// agent, calling the same echo tool in process.
func BenchmarkSendMessageThroughAgent(b *testing.B) {
	f := newFixture(b, publish.Config{})
	srv, err := server.New(server.Config{Manager: f.mgr, Card: f.agent.Card("http://127.0.0.1"), Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"data":{"tool":"echo","arguments":{"text":"hi"}}}]}}}`)
	hc := ts.Client()
	b.ReportAllocs()
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !bytes.Contains(out, []byte("TASK_STATE_COMPLETED")) {
			b.Fatalf("status %d: %s", resp.StatusCode, out)
		}
	}
}
