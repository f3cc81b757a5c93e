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
	"time"

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
	// FlushInterval, when positive, buffers the lines written to Output
	// for at most this long (a [LogBuffer]: one write for many lines);
	// records at warn level or above are flushed at once. The logger's
	// flush function must then be called before the process exits.
	// Default 0: every line is written as it is logged.
	FlushInterval time.Duration
}

// Logger builds the bridge's logger: JSON (or text) records at or above the
// configured level, each record logged with a context carrying the request
// id and, when a span is active, the trace and span ids (see
// [ContextHandler]).
func Logger(cfg LogConfig) *slog.Logger {
	l, _ := BufferedLogger(cfg)
	return l
}

// BufferedLogger is [Logger] with cfg.FlushInterval honoured: flush writes
// the lines still buffered and makes later ones go straight out (call it
// once, when the process is about to exit). Without a FlushInterval it
// does nothing.
func BufferedLogger(cfg LogConfig) (_ *slog.Logger, flush func() error) {
	w := cfg.Output
	if w == nil {
		w = os.Stderr
	}
	flush = func() error { return nil }
	var lb *LogBuffer
	if cfg.FlushInterval > 0 {
		lb = NewLogBuffer(w, cfg.FlushInterval)
		w, flush = lb, lb.Close
	}
	opts := &slog.HandlerOptions{Level: cfg.Level, AddSource: cfg.AddSource}
	var h slog.Handler
	if strings.EqualFold(cfg.Format, "text") {
		h = slog.NewTextHandler(w, opts)
	} else {
		h = slog.NewJSONHandler(w, opts)
	}
	ch := NewContextHandler(h)
	if lb != nil {
		ch.flush = lb.Flush
	}
	return slog.New(ch), flush
}

// ContextHandler wraps a slog.Handler and adds, to every record logged with
// a context (InfoContext, LogAttrs, …), the attributes "request_id" (from
// [RequestID]) and, when the context holds a valid span, "trace_id" and
// "span_id". Records logged without those values are passed through
// unchanged.
type ContextHandler struct {
	inner slog.Handler
	// flush, if set, runs after a record at warn level or above.
	flush func() error
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
		id, sc := RequestID(ctx), trace.SpanContextFromContext(ctx)
		if id != "" || sc.IsValid() {
			// What the caller added itself ([AppendContextAttrs]) is not
			// added twice.
			hasID, hasTrace := false, false
			if r.NumAttrs() > 0 {
				r.Attrs(func(a slog.Attr) bool {
					hasID = hasID || a.Key == "request_id"
					hasTrace = hasTrace || a.Key == "trace_id"
					return true
				})
			}
			if id != "" && !hasID {
				r.AddAttrs(slog.String("request_id", id))
			}
			if sc.IsValid() && !hasTrace {
				r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
			}
		}
	}
	err := h.inner.Handle(ctx, r)
	if h.flush != nil && r.Level >= slog.LevelWarn {
		if ferr := h.flush(); err == nil {
			err = ferr
		}
	}
	return err
}

// AppendContextAttrs appends to attrs what [ContextHandler] adds to a record
// logged with ctx ([ContextAttrs]). A record of more than five attributes
// that has them already is logged without a second allocation of its
// attribute list (the one AddAttrs makes to grow it): the access and audit
// lines call it.
func AppendContextAttrs(ctx context.Context, attrs []slog.Attr) []slog.Attr {
	add, n := ContextAttrs(ctx)
	return append(attrs, add[:n]...)
}

// ContextAttrs is what [ContextHandler] adds to a record logged with ctx,
// the first n of add: "request_id" and, when ctx holds a valid span,
// "trace_id" and "span_id". Returned by value, so that a caller that
// reaches it through a function value keeps its own list on its stack.
func ContextAttrs(ctx context.Context) (add [3]slog.Attr, n int) {
	if id := RequestID(ctx); id != "" {
		add[n] = slog.String("request_id", id)
		n++
	}
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		add[n], add[n+1] = slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String())
		n += 2
	}
	return add, n
}

// WithAttrs implements slog.Handler.
func (h *ContextHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &ContextHandler{inner: h.inner.WithAttrs(as), flush: h.flush}
}

// WithGroup implements slog.Handler. The correlation attributes are added
// inside the group, as slog does for every attribute added at Handle time.
func (h *ContextHandler) WithGroup(name string) slog.Handler {
	return &ContextHandler{inner: h.inner.WithGroup(name), flush: h.flush}
}
