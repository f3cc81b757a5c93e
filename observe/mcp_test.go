package observe

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

func TestToolMiddleware(t *testing.T) {
	tp := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	tests := []struct {
		name       string
		meta       *mcp.Meta
		httpParent bool
		result     *mcp.CallToolResult
		err        error
		wantStatus codes.Code
		wantTrace  string // "" : any
		wantLink   bool
	}{
		{name: "meta parent", meta: &mcp.Meta{AdditionalFields: map[string]any{"traceparent": tp}},
			result: mcp.NewToolResultText("ok"), wantStatus: codes.Unset, wantTrace: "4bf92f3577b34da6a3ce929d0e0e4736"},
		{name: "meta wins over http, which is linked", meta: &mcp.Meta{AdditionalFields: map[string]any{"traceparent": tp}}, httpParent: true,
			result: mcp.NewToolResultText("ok"), wantStatus: codes.Unset, wantTrace: "4bf92f3577b34da6a3ce929d0e0e4736", wantLink: true},
		{name: "no meta keeps http parent", httpParent: true, result: mcp.NewToolResultText("ok"), wantStatus: codes.Unset},
		{name: "isError result", result: mcp.NewToolResultError("nope"), wantStatus: codes.Error},
		{name: "handler error", err: errors.New("boom"), wantStatus: codes.Error},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sr := recordSpans(t)
			ctx := context.Background()
			var httpSpanID string
			var httpTrace string
			if tt.httpParent {
				c, s := otel.Tracer("t").Start(ctx, "http")
				defer s.End()
				ctx = c
				httpSpanID = s.SpanContext().SpanID().String()
				httpTrace = s.SpanContext().TraceID().String()
			}
			h := ToolMiddleware()(func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return tt.result, tt.err
			})
			req := mcp.CallToolRequest{}
			req.Params.Name = "ask"
			req.Params.Meta = tt.meta
			_, _ = h(ctx, req)
			s := spanNamed(t, sr.Ended(), "tools/call ask")
			if s.Status().Code != tt.wantStatus {
				t.Errorf("status %v, want %v", s.Status().Code, tt.wantStatus)
			}
			want := tt.wantTrace
			if want == "" && tt.httpParent {
				want = httpTrace
			}
			if want != "" && s.SpanContext().TraceID().String() != want {
				t.Errorf("trace %v, want %v", s.SpanContext().TraceID(), want)
			}
			linked := len(s.Links()) == 1 && s.Links()[0].SpanContext.SpanID().String() == httpSpanID
			if linked != tt.wantLink {
				t.Errorf("links %v, want link to the http span: %v", s.Links(), tt.wantLink)
			}
		})
	}
}

// With tracing off the tool runs under the trace context the span would
// have carried: _meta's, else the caller's; the method is still recorded.
func TestToolMiddlewareWithTracingOffPassesTheCallersTraceOn(t *testing.T) {
	if !tracingOff() {
		t.Skip("a tracer provider is installed")
	}
	const metaTP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	const httpTP = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	var got trace.SpanContext
	h := ToolMiddleware()(func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		got = trace.SpanContextFromContext(ctx)
		return mcp.NewToolResultText("ok"), nil
	})
	caller := propagator.Extract(context.Background(), propagation.HeaderCarrier(http.Header{"Traceparent": {httpTP}}))
	for _, tt := range []struct {
		name      string
		meta      *mcp.Meta
		wantTrace string
	}{
		{"meta wins", &mcp.Meta{AdditionalFields: map[string]any{"traceparent": metaTP}}, "4bf92f3577b34da6a3ce929d0e0e4736"},
		{"caller's without meta", nil, "0af7651916cd43dd8448eb211c80319c"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, slot := slotFor(caller)
			req := mcp.CallToolRequest{}
			req.Params.Name = "ask"
			req.Params.Meta = tt.meta
			if _, err := h(ctx, req); err != nil {
				t.Fatal(err)
			}
			if got.TraceID().String() != tt.wantTrace {
				t.Errorf("tool's trace %v, want %v", got.TraceID(), tt.wantTrace)
			}
			if m := slot.get(); m != "tools/call" {
				t.Errorf("method %q, want tools/call", m)
			}
		})
	}
}
