package publish_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
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

// BenchmarkSendMessageThroughAgentHTTP is the published path as `bridge
// serve` runs it: SendMessage over loopback HTTP to the tool agent, whose
// MCP server is reached over streamable HTTP (loopback, mcp-go's
// stateless server) in the 2026-07-28 era and in the last handshake era.
func BenchmarkSendMessageThroughAgentHTTP(b *testing.B) {
	for _, era := range []string{connector.Era20260728, connector.Era20251125} {
		b.Run(era, func(b *testing.B) {
			mcpSrv := connectortest.NewServer(connectortest.Options{})
			mts := httptest.NewServer(mcpserver.NewStreamableHTTPServer(mcpSrv.MCP, mcpserver.WithStateLess(true)))
			defer mts.Close()
			conn, err := connector.Dial(context.Background(), connector.Config{
				Name: "bench", ProtocolVersion: era, Logger: quiet,
				HTTP: &connector.HTTPConfig{URL: mts.URL + "/mcp", Client: mts.Client()},
			})
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close()
			st := store.NewMemory()
			agent, err := publish.New(publish.Config{Store: st, Logger: quiet, ProgressInterval: -1}, conn)
			if err != nil {
				b.Fatal(err)
			}
			mgr, err := taskmanager.New(taskmanager.Config{Store: st, Executor: agent, PollInterval: 20 * time.Millisecond, CancelGrace: 5 * time.Second})
			if err != nil {
				b.Fatal(err)
			}
			defer mgr.Wait()
			srv, err := server.New(server.Config{Manager: mgr, Card: agent.Card("http://127.0.0.1"), Logger: quiet})
			if err != nil {
				b.Fatal(err)
			}
			ts := httptest.NewServer(srv)
			defer ts.Close()
			sendLoop(b, ts)
		})
	}
}

// sendLoop posts the echo SendMessage to ts until the benchmark ends.
func sendLoop(b *testing.B, ts *httptest.Server) {
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
