package gateway_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/gateway"
	"github.com/a2a-mcp-bridge/bridge/gateway/listener"
	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector/connectortest"
)

// mcpClient connects to the bridge's MCP face with key.
func (e *env) mcpClient(t *testing.T, key string) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(e.url+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + key}))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if _, err := c.Initialize(context.Background(), mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION, ClientInfo: mcp.Implementation{Name: "t", Version: "1"}}}); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestOneTraceSpansMCPCallAndA2ACall: a host's tools/call carrying
// _meta.traceparent reaches the exposed agent as an A2A request whose
// traceparent header carries the same trace id, and the bridge's spans
// belong to that trace.
func TestOneTraceSpansMCPCallAndA2ACall(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev); _ = tp.Shutdown(context.Background()) })

	var mu sync.Mutex
	var seen []string // traceparent of every A2A call (not card fetches)
	agent := startDemoAgentWith(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				mu.Lock()
				seen = append(seen, r.Header.Get("traceparent"))
				mu.Unlock()
			}
			next.ServeHTTP(w, r)
		})
	})
	e := startWith(t, agent)
	c := e.mcpClient(t, aliceKey)
	lst, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil || len(lst.Tools) == 0 {
		t.Fatalf("tools: %v %v", lst, err)
	}
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: lst.Tools[0].Name, Arguments: map[string]any{"message": "ping"}}}
	req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{"traceparent": "00-" + traceID + "-00f067aa0ba902b7-01"}}
	res, err := c.CallTool(context.Background(), req)
	if err != nil || res.IsError {
		t.Fatalf("call: %+v %v", res, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 {
		t.Fatal("the agent received no A2A call")
	}
	for _, tp := range seen {
		if parts := strings.Split(tp, "-"); len(parts) != 4 || parts[1] != traceID {
			t.Fatalf("agent saw traceparent %q, want trace %s", tp, traceID)
		}
	}
	var names []string
	for _, s := range rec.Ended() {
		if s.SpanContext().TraceID().String() == traceID {
			names = append(names, s.Name())
		}
	}
	if !contains(names, "tools/call "+lst.Tools[0].Name) || !contains(names, "HTTP POST") {
		t.Fatalf("spans of the trace: %v", names)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// TestMetricsSeriesAfterMixedTraffic scrapes /metrics after A2A calls, a
// stream, a rate-limit refusal and an MCP tool call.
func TestMetricsSeriesAfterMixedTraffic(t *testing.T) {
	e := start(t)
	ctx := context.Background()
	a := e.client(t, aliceKey)
	for range 2 { // the second add is over its limit
		_, _ = a.SendMessage(ctx, toolMessage(t, "add", map[string]any{"a": 1, "b": 2}))
	}
	s, err := a.SendStreamingMessage(ctx, toolMessage(t, "slow", map[string]any{"steps": 2}))
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range s.All() {
		if err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	c := e.mcpClient(t, aliceKey)
	lst, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil || len(lst.Tools) == 0 {
		t.Fatalf("tools: %v", err)
	}
	if _, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: lst.Tools[0].Name, Arguments: map[string]any{"message": "m"}}}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`bridge_requests_total{face="a2a",method="SendMessage",outcome="2xx"} 1`,
		`bridge_requests_total{face="a2a",method="SendMessage",outcome="4xx"} 1`,
		`bridge_requests_total{face="mcp",method="tools/call",outcome="2xx"}`,
		`bridge_request_duration_seconds_bucket{face="mcp",method="tools/call",le=`,
		`bridge_active_streams{face="a2a"} 0`,
		`bridge_task_transitions_total{state="working"}`,
		`bridge_task_transitions_total{state="completed"}`,
		`bridge_rate_limited_total{face="a2a",rule=`,
		`bridge_ratelimit_hits_total{rule=`,
		`bridge_policy_decisions_total{decision="allow",face="a2a",rule="_default"}`,
		`bridge_upstream_up{kind="publish",upstream="tools"} 1`,
		`bridge_upstream_up{kind="expose",upstream="echo"} 1`,
		`bridge_upstream_state{kind="publish",state="up",upstream="tools"} 1`,
		`bridge_upstream_state{kind="publish",state="down",upstream="tools"} 0`,
		`bridge_handler_panics_total 0`,
	}
	var body string
	// The stream's handler may return after the client saw the last event,
	// and the upstream watch runs in the background: wait for both.
	bridgetest.Eventually(t, 10*time.Second, "the metrics the test expects", func() error {
		_, b := get(t, e.url+"/metrics")
		if body = string(b); missing(body, want) != nil {
			return fmt.Errorf("metrics lack %q:\n%s", missing(body, want), grepLines(body, "bridge_"))
		}
		return nil
	})
}

func missing(body string, want []string) []string {
	var out []string
	for _, w := range want {
		if !strings.Contains(body, w) {
			out = append(out, w)
		}
	}
	return out
}

// TestDrainTellsOpenStreamsServerIsGoingAway: when the drain starts, an
// open SSE stream receives the going-away comment, then ends.
func TestDrainTellsOpenStreamsServerIsGoingAway(t *testing.T) {
	cfg := aliceToolsConfig(t, "goaway.yaml")
	srv := connectortest.NewServer(connectortest.Options{})
	l := &listener.Listener{Addr: "127.0.0.1:0", Grace: 5 * time.Second, Log: quiet}
	if err := l.Listen(); err != nil {
		t.Fatal(err)
	}
	pub := "http://" + l.BoundAddr()
	b, err := gateway.Build(context.Background(), cfg, gateway.Options{Logger: quiet, PublicURL: pub, Store: store.NewMemory(),
		DialUpstream: func(ctx context.Context, c connector.Config) (*connector.Conn, error) {
			return connector.InProcess(ctx, srv.MCP, c)
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	l.Handler, l.OnDrain = b.Handler(), b.GoingAway
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- l.Serve(ctx) }()

	body := `{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"data":{"tool":"block","arguments":{}}}]}}}`
	req, _ := http.NewRequest(http.MethodPost, pub+"/a2a/tools", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("A2A-Version", "1.0")
	req.Header.Set("Authorization", "Bearer "+aliceKey)
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	<-srv.Started()
	stop() // what SIGTERM does in bridge serve
	sc := bufio.NewScanner(resp.Body)
	told := false
	for sc.Scan() {
		if sc.Text() == strings.TrimSpace(strings.TrimSuffix(gateway.GoingAwayComment, "\n\n")) {
			told = true
		}
	}
	if !told {
		t.Fatal("the open stream was not told the server is going away")
	}
	if err := <-served; err != nil {
		t.Fatalf("serve: %v", err)
	}
}
