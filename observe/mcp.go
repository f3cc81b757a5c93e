package observe

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// ToolMiddleware traces MCP tool calls: it takes the caller's trace context
// from the request's _meta ([ExtractMeta]; it takes precedence over the
// HTTP headers, which are linked instead), runs the tool inside a server
// span named "tools/call <tool>", records "tools/call" with [SetMethod],
// and marks the span as an error when the tool fails or returns isError.
// Pass it to the face with server.WithToolHandlerMiddleware.
func ToolMiddleware() server.ToolHandlerMiddleware {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if tracingOff() {
				// No span to record (as TraceMiddleware): the caller's
				// trace context (from _meta, else the headers') is passed
				// on as the span would pass it, without the span, its
				// options and its name per call.
				if req.Params.Meta != nil {
					ctx = ExtractMeta(ctx, req.Params.Meta.AdditionalFields)
				}
				SetMethod(ctx, "tools/call")
				return next(ctx, req)
			}
			outer := trace.SpanContextFromContext(ctx)
			if req.Params.Meta != nil {
				ctx = ExtractMeta(ctx, req.Params.Meta.AdditionalFields)
			}
			tool := req.Params.Name
			if !safeLabel(tool) {
				tool = labelOther
			}
			opts := []trace.SpanStartOption{
				trace.WithSpanKind(trace.SpanKindServer),
				trace.WithAttributes(
					attribute.String("mcp.method.name", "tools/call"),
					attribute.String("gen_ai.tool.name", tool),
				),
			}
			if parent := trace.SpanContextFromContext(ctx); outer.IsValid() && !outer.Equal(parent) {
				opts = append(opts, trace.WithLinks(trace.Link{SpanContext: outer}))
			}
			ctx, span := tracer().Start(ctx, "tools/call "+tool, opts...)
			defer span.End()
			SetMethod(ctx, "tools/call")
			res, err := next(ctx, req)
			switch {
			case err != nil:
				span.SetStatus(codes.Error, "tool call failed")
			case res != nil && res.IsError:
				span.SetStatus(codes.Error, "tool returned an error result")
			}
			return res, err
		}
	}
}
