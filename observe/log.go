// Package observe is the bridge's observability: structured logs that carry
// a request id and trace id, Prometheus metrics for every face, and
// OpenTelemetry traces whose context crosses the protocol boundary (W3C
// traceparent in A2A HTTP headers, the same keys in MCP _meta).
//
// Nothing here decides anything: the package records what the faces,
// the task manager and the upstream supervisors report to it.
package observe

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"

	"go.opentelemetry.io/otel/trace"
)

// LogConfig configures [Logger].
type LogConfig struct {
	// Format is "json" (default) or "text". Any other value means json.
	Format string
	// Level is the minimum level logged (default slog.LevelInfo, the zero
	// value).
	Level slog.Level
	// Output receives the records (default os.Stderr).
	Output io.Writer
	// AddSource adds the file and line of the logging call.
	AddSource bool
}

// Logger builds the bridge's logger: JSON (or text) records at or above the
// configured level, each record logged with a context carrying the request
// id and, when a span is active, the trace and span ids (see
// [ContextHandler]).
func Logger(cfg LogConfig) *slog.Logger {
	w := cfg.Output
	if w == nil {
		w = os.Stderr
	}
	opts := &slog.HandlerOptions{Level: cfg.Level, AddSource: cfg.AddSource}
	var h slog.Handler
	if strings.EqualFold(cfg.Format, "text") {
		h = slog.NewTextHandler(w, opts)
	} else {
		h = slog.NewJSONHandler(w, opts)
	}
	return slog.New(NewContextHandler(h))
}

// ContextHandler wraps a slog.Handler and adds, to every record logged with
// a context (InfoContext, LogAttrs, …), the attributes "request_id" (from
// [RequestID]) and, when the context holds a valid span, "trace_id" and
// "span_id". Records logged without those values are passed through
// unchanged.
type ContextHandler struct {
	inner slog.Handler
}

var _ slog.Handler = (*ContextHandler)(nil)

// NewContextHandler wraps h.
func NewContextHandler(h slog.Handler) *ContextHandler {
	return &ContextHandler{inner: h}
}

// Enabled implements slog.Handler.
func (h *ContextHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

// Handle implements slog.Handler.
func (h *ContextHandler) Handle(ctx context.Context, r slog.Record) error {
	if ctx != nil {
		if id := RequestID(ctx); id != "" {
			r.AddAttrs(slog.String("request_id", id))
		}
		if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
			r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
		}
	}
	return h.inner.Handle(ctx, r)
}

// WithAttrs implements slog.Handler.
func (h *ContextHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &ContextHandler{inner: h.inner.WithAttrs(as)}
}

// WithGroup implements slog.Handler. The correlation attributes are added
// inside the group, as slog does for every attribute added at Handle time.
func (h *ContextHandler) WithGroup(name string) slog.Handler {
	return &ContextHandler{inner: h.inner.WithGroup(name)}
}
