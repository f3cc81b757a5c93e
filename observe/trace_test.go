package observe

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/client"
)

// recordSpans installs a tracer provider that records ended spans in
// memory, for the duration of the test (tests using it are not parallel:
// the provider is global).
func recordSpans(t *testing.T) *tracetest.SpanRecorder {
	t.Helper()
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() {
		otel.SetTracerProvider(prev)
		_ = tp.Shutdown(context.Background())
	})
	return sr
}

func spanNamed(t *testing.T, spans []sdktrace.ReadOnlySpan, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	for _, s := range spans {
		if s.Name() == name {
			return s
		}
	}
	var names []string
	for _, s := range spans {
		names = append(names, s.Name())
	}
	t.Fatalf("no span %q among %q", name, names)
	return nil
}

// TestOneTraceSpansMCPAndA2A: a host's tools/call carrying
// _meta.traceparent, the bridge's tool span, and the A2A call the tool
// makes (headers injected through client.WithHeader, extracted by the agent's
// server middleware) all share one trace id, each span the child of the
// one before.
func TestOneTraceSpansMCPAndA2A(t *testing.T) {
	sr := recordSpans(t)

	// The A2A agent: its handler is behind the tracing middleware.
	var agentMu sync.Mutex
	var agentReqID string
	agent := httptest.NewServer(TraceMiddleware("a2a", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		SetMethod(r.Context(), "GetTask")
		agentMu.Lock()
		agentReqID = r.Header.Get(RequestIDHeader)
		agentMu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}`)
	})))
	defer agent.Close()
	card := &a2a.AgentCard{
		Name: "fake", Description: "test agent", Version: "1",
		SupportedInterfaces: []a2a.AgentInterface{{URL: agent.URL + "/rest/", ProtocolBinding: a2a.BindingHTTPJSON, ProtocolVersion: "1.0"}},
	}
	client, err := client.New(card, client.WithHTTPClient(agent.Client()),
		client.WithBinding(a2a.BindingHTTPJSON), client.WithHeader(HeaderHook(nil)))
	if err != nil {
		t.Fatal(err)
	}

	// The bridge's MCP face: a tool whose handler calls the agent.
	mcpSrv := server.NewMCPServer("bridge", "test", server.WithToolCapabilities(true),
		server.WithToolHandlerMiddleware(ToolMiddleware()))
	mcpSrv.AddTool(mcp.NewTool("ask_weather"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if _, err := client.GetTask(ctx, &a2a.GetTaskRequest{ID: "t1"}); err != nil {
			return nil, err
		}
		return mcp.NewToolResultText("ok"), nil
	})

	// The host: its own span, carried in _meta.
	hostCtx, host := otel.Tracer("host").Start(context.Background(), "host")
	meta := map[string]any{"progressToken": "p1"}
	InjectMeta(hostCtx, meta)
	host.End()
	if meta[MetaKeyTraceparent] == nil {
		t.Fatal("InjectMeta wrote no traceparent")
	}
	msg, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "ask_weather", "arguments": map[string]any{}, "_meta": meta},
	})
	ctx := WithRequestID(context.Background(), "req-42") // as the bridge's request-id middleware does
	out, _ := json.Marshal(mcpSrv.HandleMessage(ctx, msg))
	if strings.Contains(string(out), `"error"`) || strings.Contains(string(out), `"isError":true`) {
		t.Fatalf("tools/call failed: %s", out)
	}

	spans := sr.Ended()
	hostSpan := spanNamed(t, spans, "host")
	tool := spanNamed(t, spans, "tools/call ask_weather")
	agentSpan := spanNamed(t, spans, "a2a GetTask")

	trace := hostSpan.SpanContext().TraceID()
	for _, s := range []sdktrace.ReadOnlySpan{tool, agentSpan} {
		if got := s.SpanContext().TraceID(); got != trace {
			t.Errorf("span %q trace %s, want %s", s.Name(), got, trace)
		}
	}
	if p := tool.Parent(); p.SpanID() != hostSpan.SpanContext().SpanID() || !p.IsRemote() {
		t.Errorf("tool span parent = %v (remote %v), want the host span %v", p.SpanID(), p.IsRemote(), hostSpan.SpanContext().SpanID())
	}
	if p := agentSpan.Parent(); p.SpanID() != tool.SpanContext().SpanID() || !p.IsRemote() {
		t.Errorf("agent span parent = %v, want the tool span %v", p.SpanID(), tool.SpanContext().SpanID())
	}
	if k := agentSpan.SpanKind(); k.String() != "server" {
		t.Errorf("agent span kind %v", k)
	}
	agentMu.Lock()
	defer agentMu.Unlock()
	if agentReqID != "req-42" {
		t.Errorf("agent saw request id %q, want req-42", agentReqID)
	}
}

func TestMetaRoundTrip(t *testing.T) {
	sr := recordSpans(t)
	_ = sr
	ctx, span := otel.Tracer("t").Start(context.Background(), "s")
	defer span.End()
	meta := map[string]any{}
	InjectMeta(ctx, meta)
	got := trace.SpanContextFromContext(ExtractMeta(context.Background(), meta))
	if !got.IsValid() || got.TraceID() != span.SpanContext().TraceID() || got.SpanID() != span.SpanContext().SpanID() || !got.IsRemote() {
		t.Errorf("extracted %v, want %v", got, span.SpanContext())
	}
	InjectMeta(context.Background(), nil) // no panic on nil meta
}

// TestExtractMetaRefusesMalformed: a traceparent that is not a string, is
// malformed, or carries the all-zero ids gives no parent.
func TestExtractMetaRefusesMalformed(t *testing.T) {
	for _, tt := range []struct {
		name string
		meta map[string]any
	}{
		{"empty", map[string]any{}},
		{"not a string", map[string]any{"traceparent": 42}},
		{"object", map[string]any{"traceparent": map[string]any{"a": 1}}},
		{"garbage", map[string]any{"traceparent": "hello"}},
		{"zero trace id", map[string]any{"traceparent": "00-00000000000000000000000000000000-00f067aa0ba902b7-01"}},
		{"zero span id", map[string]any{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"}},
		{"version ff", map[string]any{"traceparent": "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}},
		{"too long", map[string]any{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" + strings.Repeat("x", 10000)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if sc := trace.SpanContextFromContext(ExtractMeta(context.Background(), tt.meta)); sc.IsValid() {
				t.Errorf("extracted %v", sc)
			}
		})
	}
}

// TestTraceMiddlewareLinksHTTPParent: the server span is the child of the
// traceparent header, and a 5xx marks it as an error.
func TestTraceMiddleware(t *testing.T) {
	sr := recordSpans(t)
	h := TraceMiddleware("mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !trace.SpanContextFromContext(r.Context()).IsValid() {
			t.Error("no span in the handler's context")
		}
		w.WriteHeader(http.StatusBadGateway)
	}))
	r := httptest.NewRequest("POST", "/mcp", nil)
	r.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	h.ServeHTTP(httptest.NewRecorder(), r)
	s := spanNamed(t, sr.Ended(), "mcp POST")
	if s.SpanContext().TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" || s.Parent().SpanID().String() != "00f067aa0ba902b7" {
		t.Errorf("span %v parent %v", s.SpanContext(), s.Parent())
	}
	if s.Status().Code.String() != "Error" {
		t.Errorf("status %v, want Error", s.Status())
	}
	want := map[string]string{"bridge.face": "mcp", "http.request.method": "POST", "url.path": "/mcp", "http.response.status_code": "502"}
	got := map[string]string{}
	for _, a := range s.Attributes() {
		got[string(a.Key)] = a.Value.Emit()
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("span attribute %s = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	if s.SpanKind() != trace.SpanKindServer {
		t.Errorf("span kind %v, want server", s.SpanKind())
	}
}

func TestTraceMiddlewareWithTracingOffPassesTheCallersTraceOn(t *testing.T) {
	if !tracingOff() {
		t.Skip("a tracer provider is installed")
	}
	var got trace.SpanContext
	var out http.Header
	h := TraceMiddleware("a2a", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = trace.SpanContextFromContext(r.Context())
		out = http.Header{}
		InjectHTTP(r.Context(), out)
	}))
	r := httptest.NewRequest("POST", "/a2a/x", nil)
	r.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	h.ServeHTTP(httptest.NewRecorder(), r)
	if got.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" || got.SpanID().String() != "00f067aa0ba902b7" {
		t.Errorf("handler's span context = %v, want the caller's", got)
	}
	if tp := out.Get("traceparent"); tp != "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" {
		t.Errorf("passed on traceparent = %q, want the caller's", tp)
	}
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/a2a/x", nil))
	if got.IsValid() || out.Get("traceparent") != "" {
		t.Errorf("without a caller's trace: span context %v, traceparent %q", got, out.Get("traceparent"))
	}
}

func TestInjectHTTPWithoutSpanWritesNothing(t *testing.T) {
	h := http.Header{}
	InjectHTTP(context.Background(), h)
	if len(h) != 0 {
		t.Errorf("headers %v", h)
	}
}

func TestHeaderHookRunsNext(t *testing.T) {
	called := false
	hook := HeaderHook(func(ctx context.Context, r *http.Request) error {
		called = true
		return nil
	})
	r := httptest.NewRequest("GET", "/", nil)
	if err := hook(WithRequestID(context.Background(), "r1"), r); err != nil || !called {
		t.Fatalf("err %v called %v", err, called)
	}
	if r.Header.Get(RequestIDHeader) != "r1" {
		t.Errorf("request id header %q", r.Header.Get(RequestIDHeader))
	}
}

func TestTracingOffWithoutEndpoint(t *testing.T) {
	prev := otel.GetTracerProvider()
	shutdown, err := Tracing(context.Background(), TracingConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if otel.GetTracerProvider() != prev {
		t.Error("tracer provider replaced with tracing off")
	}
	if err := shutdown(context.Background()); err != nil {
		t.Error(err)
	}
}

func TestTracingConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		cfg     TracingConfig
		wantErr string
	}{
		{name: "off", cfg: TracingConfig{}},
		{name: "https", cfg: TracingConfig{Endpoint: "https://collector.example:4318"}},
		{name: "loopback http", cfg: TracingConfig{Endpoint: "http://127.0.0.1:4318"}},
		{name: "plaintext confirmed", cfg: TracingConfig{Endpoint: "http://collector:4318", InsecurePlaintext: true}},
		{name: "plaintext to remote", cfg: TracingConfig{Endpoint: "http://collector:4318"},
			wantErr: `observe: tracing endpoint "http://collector:4318" is plaintext http to a non-loopback host; use https or set InsecurePlaintext`},
		{name: "not a URL", cfg: TracingConfig{Endpoint: "collector:4318"},
			wantErr: `observe: tracing endpoint "collector:4318" must be an absolute http(s) URL`},
		{name: "credentials in URL", cfg: TracingConfig{Endpoint: "https://u:p@collector"},
			wantErr: "observe: tracing endpoint must not carry credentials in the URL; use headers"},
		{name: "bad ratio and URL", cfg: TracingConfig{Endpoint: "ftp://x", SampleRatio: 2},
			wantErr: "observe: tracing endpoint \"ftp://x\" must be an absolute http(s) URL\nobserve: tracing sample ratio 2 must be in (0, 1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.wantErr {
				t.Errorf("error %q, want %q", got, tt.wantErr)
			}
		})
	}
}

// TestTracingExportsToCollector: with an endpoint, spans reach an OTLP/HTTP
// collector (a loopback fake) on shutdown.
func TestTracingExportsToCollector(t *testing.T) {
	got := make(chan string, 4)
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.URL.Path
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	defer collector.Close()
	prevTP, prevProp := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	t.Cleanup(func() { otel.SetTracerProvider(prevTP); otel.SetTextMapPropagator(prevProp) })

	shutdown, err := Tracing(context.Background(), TracingConfig{Endpoint: collector.URL, ServiceName: "bridge-test"})
	if err != nil {
		t.Fatal(err)
	}
	_, span := tracer().Start(context.Background(), "work")
	span.End()
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case p := <-got:
		if p != "/v1/traces" {
			t.Errorf("export path %q", p)
		}
	default:
		t.Fatal("no export reached the collector")
	}
	if _, ok := otel.GetTextMapPropagator().(propagation.TraceContext); !ok {
		t.Errorf("propagator %T", otel.GetTextMapPropagator())
	}
}

func FuzzExtractMeta(f *testing.F) {
	f.Add("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "vendor=x")
	f.Add("hello", "")
	f.Add("00-00000000000000000000000000000000-00f067aa0ba902b7-01", "a=1,b=2")
	f.Fuzz(func(t *testing.T, tp, ts string) {
		ctx := ExtractMeta(context.Background(), map[string]any{MetaKeyTraceparent: tp, MetaKeyTracestate: ts})
		sc := trace.SpanContextFromContext(ctx)
		if !sc.IsValid() {
			return
		}
		// Whatever is accepted re-injects to a well-formed traceparent.
		out := map[string]any{}
		InjectMeta(ctx, out)
		again := trace.SpanContextFromContext(ExtractMeta(context.Background(), out))
		if again.TraceID() != sc.TraceID() || again.SpanID() != sc.SpanID() {
			t.Fatalf("round trip %v != %v", again, sc)
		}
	})
}
