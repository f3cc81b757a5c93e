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
