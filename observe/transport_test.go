package observe

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// TestTransportClientSpan: the outbound hop gets its own client span,
// child of the caller's span and parent of the agent's server span; it
// ends when the body is closed.
func TestTransportClientSpan(t *testing.T) {
	sr := recordSpans(t)
	agent := httptest.NewServer(TraceMiddleware("a2a", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	})))
	defer agent.Close()
	hc := &http.Client{Transport: Transport(agent.Client().Transport)}

	ctx, outer := otel.Tracer("t").Start(context.Background(), "outer")
	req, _ := http.NewRequestWithContext(ctx, "POST", agent.URL+"/rpc", strings.NewReader("{}"))
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if req.Header.Get("traceparent") != "" {
		t.Error("caller's request was modified")
	}
	for _, s := range sr.Ended() {
		if s.Name() == "HTTP POST" {
			t.Fatal("client span ended before the body was closed")
		}
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	outer.End()

	spans := sr.Ended()
	client := spanNamed(t, spans, "HTTP POST")
	server := spanNamed(t, spans, "a2a POST")
	if client.Parent().SpanID() != outer.SpanContext().SpanID() {
		t.Errorf("client span parent %v, want outer %v", client.Parent().SpanID(), outer.SpanContext().SpanID())
	}
	if server.Parent().SpanID() != client.SpanContext().SpanID() || server.SpanContext().TraceID() != outer.SpanContext().TraceID() {
		t.Errorf("server span parent %v, want client %v", server.Parent().SpanID(), client.SpanContext().SpanID())
	}
	if client.SpanKind() != trace.SpanKindClient {
		t.Errorf("kind %v", client.SpanKind())
	}
}

func TestTransportWithoutBaseFails(t *testing.T) {
	req := httptest.NewRequest("GET", "http://127.0.0.1/", nil)
	if _, err := Transport(nil).RoundTrip(req); err == nil || !strings.HasPrefix(err.Error(), "observe: ") {
		t.Fatalf("err = %v", err)
	}
}

// TestWrapCorrelatesLogsTracesAndMetrics: behind Wrap, a log record
// written by the handler carries the request id and the trace id of the
// server span, the id is echoed, and the request is counted.
func TestWrapCorrelatesLogsTracesAndMetrics(t *testing.T) {
	sr := recordSpans(t)
	var buf bytes.Buffer
	log := Logger(LogConfig{Output: &buf})
	m := NewMetrics(prometheus.NewRegistry())
	srv := httptest.NewServer(Wrap("mcp", m, nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		SetMethod(r.Context(), "tools/call")
		log.InfoContext(r.Context(), "handled")
	})))
	defer srv.Close()
	req, _ := http.NewRequest("POST", srv.URL+"/mcp", nil)
	req.Header.Set(RequestIDHeader, "req-7")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get(RequestIDHeader); got != "req-7" {
		t.Errorf("echoed %q", got)
	}
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatalf("log %q: %v", buf.String(), err)
	}
	span := spanNamed(t, sr.Ended(), "mcp tools/call")
	if rec["request_id"] != "req-7" || rec["trace_id"] != span.SpanContext().TraceID().String() || rec["span_id"] != span.SpanContext().SpanID().String() {
		t.Errorf("log record %v, span %v", rec, span.SpanContext())
	}
	wantSample(t, scrape(t, m), `bridge_requests_total{face="mcp",method="tools/call",outcome="2xx"}`, 1)
}

func BenchmarkWrap(b *testing.B) {
	m := NewMetrics(prometheus.NewRegistry())
	h := Wrap("a2a", m, nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		SetMethod(r.Context(), "SendMessage")
	}))
	r := httptest.NewRequest("POST", "/a2a/x", nil)
	r.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
}

// rtFunc is a RoundTripper of a function.
type rtFunc func(*http.Request) (*http.Response, error)

func (f rtFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// With tracing off the client span would carry only its parent's context:
// the caller's trace context goes out as the span would send it, a request
// without one goes out unchanged, and the caller's request is never
// modified.
func TestTransportWithTracingOffPassesTheCallersTraceOn(t *testing.T) {
	if !tracingOff() {
		t.Skip("a tracer provider is installed")
	}
	var sent *http.Request
	tr := Transport(rtFunc(func(r *http.Request) (*http.Response, error) {
		sent = r
		return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("ok"))}, nil
	}))
	const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	in := http.Header{"Traceparent": {parent}}
	ctx := propagator.Extract(context.Background(), propagation.HeaderCarrier(in))
	req, _ := http.NewRequestWithContext(ctx, "POST", "http://agent.test/rpc", strings.NewReader("{}"))
	if _, err := tr.RoundTrip(req); err != nil {
		t.Fatal(err)
	}
	if req.Header.Get("traceparent") != "" {
		t.Error("caller's request was modified")
	}
	if got := sent.Header.Get("traceparent"); got != parent {
		t.Errorf("sent traceparent %q, want the caller's %q", got, parent)
	}
	plain, _ := http.NewRequest("POST", "http://agent.test/rpc", strings.NewReader("{}"))
	if _, err := tr.RoundTrip(plain); err != nil {
		t.Fatal(err)
	}
	if sent != plain || len(plain.Header) != 0 {
		t.Errorf("without a caller's trace the request went out as %p with %v, want %p unchanged", sent, sent.Header, plain)
	}
}

func TestTransportUnwrapsToItsBase(t *testing.T) {
	base := rtFunc(func(*http.Request) (*http.Response, error) { return nil, nil })
	u, ok := Transport(base).(interface{ Unwrap() []http.RoundTripper })
	if !ok {
		t.Fatal("observe.Transport has no Unwrap: netguard.Do would send its calls through http.Client")
	}
	if in := u.Unwrap(); len(in) != 1 {
		t.Errorf("Unwrap = %v, want the base alone", in)
	} else if _, same := in[0].(rtFunc); !same {
		t.Errorf("Unwrap = %T, want the base", in[0])
	}
}
