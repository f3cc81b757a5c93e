package endpoint_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
)

// progressSteps is how many notifications the counting tool sends.
const progressSteps = 5

// counter is a ToolSource whose tool sends progressSteps progress
// notifications and a log message through endpoint.Notify and answers at once
// after the last one: the shape that lost the last notification to
// mcp-go's asynchronous relay.
type counter struct{}

func (counter) Tools() []server.ServerTool {
	return []server.ServerTool{{
		Tool: mcp.NewTool("count"),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var tok mcp.ProgressToken
			if req.Params.Meta != nil {
				tok = req.Params.Meta.ProgressToken
			}
			for i := 1; i <= progressSteps; i++ {
				if tok == nil {
					break
				}
				if err := endpoint.Notify(ctx, string(mcp.MethodNotificationProgress), map[string]any{
					"progressToken": tok, "progress": float64(i), "total": float64(progressSteps),
				}); err != nil {
					return nil, err
				}
			}
			_ = endpoint.NotifyLog(ctx, mcp.NewLoggingMessageNotification(mcp.LoggingLevelInfo, "count", "done"))
			return mcp.NewToolResultText("counted"), nil
		},
	}}
}

// progressRecorder counts the notifications of each progress token.
type progressRecorder struct {
	mu   sync.Mutex
	seen map[string][]float64
	logs int
}

func (r *progressRecorder) on(n mcp.JSONRPCNotification) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch n.Method {
	case string(mcp.MethodNotificationProgress):
		tok := fmt.Sprint(n.Params.AdditionalFields["progressToken"])
		p, _ := n.Params.AdditionalFields["progress"].(float64)
		r.seen[tok] = append(r.seen[tok], p)
	case string(mcp.MethodNotificationMessage):
		r.logs++
	}
}

func (r *progressRecorder) got(tok string) []float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]float64(nil), r.seen[tok]...)
}

// callCounting calls count runs times; after each result, every progress
// notification of that call must already have arrived, in order.
func callCounting(t *testing.T, c *client.Client, rec *progressRecorder, runs int) {
	t.Helper()
	for i := range runs {
		tok := fmt.Sprintf("run-%d", i)
		req := mcp.CallToolRequest{}
		req.Params.Name = "count"
		req.Params.Meta = &mcp.Meta{ProgressToken: tok}
		res, err := c.CallTool(context.Background(), req)
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if res.IsError {
			t.Fatalf("run %d: error result %v", i, res.Content)
		}
		got := rec.got(tok)
		if len(got) != progressSteps {
			t.Fatalf("run %d: %d of %d progress notifications arrived before the result: %v", i, len(got), progressSteps, got)
		}
		for j, p := range got {
			if p != float64(j+1) {
				t.Fatalf("run %d: progress out of order: %v", i, got)
			}
		}
	}
}

func httpFace(t *testing.T, sessions bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	public := "http://" + ln.Addr().String()
	f, err := endpoint.New(endpoint.Config{PublicURL: public, UnsafeNoAuth: true, LegacySessions: sessions, Sources: []endpoint.ToolSource{counter{}}})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	f.Mount(mux)
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: mux}}
	srv.Start()
	t.Cleanup(srv.Close)
	return public + "/mcp"
}

func TestProgressPrecedesTheResultOnEveryTransport(t *testing.T) {
	const runs = 50
	cases := []struct {
		name     string
		sessions bool
		stdio    bool
		version  string
	}{
		{name: "http stateless 2026-07-28", version: mcp.ProtocolVersion20260728},
		{name: "http stateless 2025-11-25", version: mcp.ProtocolVersion20251125},
		{name: "http sessions 2025-11-25", sessions: true, version: mcp.ProtocolVersion20251125},
		{name: "http sessions 2025-06-18", sessions: true, version: mcp.ProtocolVersion20250618},
		{name: "stdio 2025-11-25", stdio: true, version: mcp.ProtocolVersion20251125},
		{name: "stdio 2026-07-28", stdio: true, version: mcp.ProtocolVersion20260728},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := &progressRecorder{seen: map[string][]float64{}}
			var tr transport.Interface
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.stdio {
				f, err := endpoint.New(endpoint.Config{Sources: []endpoint.ToolSource{counter{}}})
				if err != nil {
					t.Fatal(err)
				}
				inR, inW := io.Pipe()
				outR, outW := io.Pipe()
				done := make(chan error, 1)
				go func() { done <- f.ServeStdio(ctx, inR, outW) }()
				t.Cleanup(func() { cancel(); _ = inW.Close(); <-done })
				tr = transport.NewIO(outR, inW, nil)
			} else {
				h, err := transport.NewStreamableHTTP(httpFace(t, tc.sessions))
				if err != nil {
					t.Fatal(err)
				}
				tr = h
			}
			c := client.NewClient(tr, client.WithProtocolVersion(tc.version))
			c.OnNotification(rec.on)
			if err := c.Start(ctx); err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			res, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: tc.version, ClientInfo: mcp.Implementation{Name: "t", Version: "1"}}})
			if err != nil {
				t.Fatal(err)
			}
			if res.ProtocolVersion != tc.version {
				t.Fatalf("negotiated %s, want %s", res.ProtocolVersion, tc.version)
			}
			callCounting(t, c, rec, runs)
		})
	}
}
