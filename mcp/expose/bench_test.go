package expose_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/client"
	"github.com/a2a-mcp-bridge/bridge/mcp/expose"
)

// BenchmarkDirectA2A is the baseline: the A2A client calls the in-process
// demo agent (blocking SendMessage, echo).
func BenchmarkDirectA2A(b *testing.B) {
	d := startDemo(b, func(c *a2a.AgentCard) { c.Capabilities.Streaming = a2a.Ptr(false) })
	cl, err := client.Dial(context.Background(), d.cardURL, client.WithHTTPClient(guardedClient(b)))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		resp, err := cl.SendMessage(ctx, &a2a.SendMessageRequest{Message: &a2a.Message{MessageID: "m", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hello")}}})
		if err != nil || resp.Task == nil || resp.Task.Status.State != a2a.TaskStateCompleted {
			b.Fatalf("%v %+v", err, resp)
		}
	}
}

// BenchmarkBridgeToolsCall is the same call as an MCP tools/call through
// the face (bearer check, Origin, body cap, policy filter) and expose
// over streamable HTTP. The difference to BenchmarkDirectA2A is the bridge's
// added cost per call. A streaming agent is sent SendStreamingMessage only
// when the call asks for progress (streaming-progress).
func BenchmarkBridgeToolsCall(b *testing.B) {
	for _, tc := range []struct {
		name      string
		streaming bool              // the agent's card says it streams
		token     mcp.ProgressToken // the call asks for progress
	}{{"blocking", false, nil}, {"streaming", true, nil}, {"streaming-progress", true, "p"}} {
		b.Run(tc.name, func(b *testing.B) {
			d := startDemo(b, func(c *a2a.AgentCard) { c.Capabilities.Streaming = a2a.Ptr(tc.streaming) })
			br := startBridge(b, []expose.AgentConfig{{Alias: "echo", CardURL: d.cardURL}}, nil)
			c := br.connect(b, br.token(b, "alice"))
			ctx := context.Background()
			req := mcp.CallToolRequest{}
			req.Params.Name = "echo"
			req.Params.Arguments = map[string]any{"message": "hello"}
			if tc.token != nil {
				req.Params.Meta = &mcp.Meta{ProgressToken: tc.token}
			}
			b.ReportAllocs()
			for b.Loop() {
				res, err := c.CallTool(ctx, req)
				if err != nil || res.IsError {
					b.Fatalf("%v %+v", err, res)
				}
			}
		})
	}
}

// BenchmarkFaceToolsCall is the bench's expose request (bench/run.sh
// TOOLS_AGENT: a 2025-era tools/call without a session, Accept naming JSON
// and event streams, with and without a progress token) served by the
// face's ServeHTTP on the calling goroutine: its allocations are the face's,
// mcp-go's and expose's plus the upstream call's (client and demo agent).
func BenchmarkFaceToolsCall(b *testing.B) {
	for _, tc := range []struct {
		name, body string
	}{
		{"blocking", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello from the benchmark"}}}`},
		{"progress", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello from the benchmark"},"_meta":{"progressToken":"p-1"}}}`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			d := startDemo(b, func(c *a2a.AgentCard) { c.Capabilities.Streaming = a2a.Ptr(false) })
			br := startBridge(b, []expose.AgentConfig{{Alias: "echo", CardURL: d.cardURL}}, nil)
			auth := "Bearer " + br.token(b, "alice")
			body := []byte(tc.body)
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest(http.MethodPost, br.url, bytes.NewReader(body))
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Accept", "application/json, text/event-stream")
				r.Header.Set("MCP-Protocol-Version", "2025-06-18")
				r.Header.Set("Authorization", auth)
				w := httptest.NewRecorder()
				br.face.ServeHTTP(w, r)
				if w.Code != http.StatusOK || !bytes.Contains(w.Body.Bytes(), []byte(`"result"`)) || bytes.Contains(w.Body.Bytes(), []byte(`"isError":true`)) {
					b.Fatalf("%d %s", w.Code, w.Body.Bytes())
				}
			}
		})
	}
}
