package observe

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// TracerName is the instrumentation scope of the bridge's spans.
const TracerName = "github.com/a2a-mcp-bridge/bridge/observe"

// propagator carries W3C trace context only. Baggage is deliberately not
// propagated: it would forward whatever a caller put in it to every agent.
var propagator = propagation.TraceContext{}

// tracer is the bridge's tracer from the global provider, read at each
// use so that [Tracing] (or a test) may install the provider later.
func tracer() trace.Tracer { return otel.GetTracerProvider().Tracer(TracerName) }

// defaultProvider is the global tracer provider before anyone sets one:
// while it is still in place, tracing is off and a span started from it
// records nothing and carries only its parent's context.
var defaultProvider = otel.GetTracerProvider()

// tracingOff reports whether no tracer provider has been installed
// ([Tracing] installs one when an endpoint is set).
func tracingOff() bool { return otel.GetTracerProvider() == defaultProvider }

// TracingConfig configures [Tracing].
type TracingConfig struct {
	// Endpoint is the OTLP/HTTP collector URL, e.g.
	// "https://otel-collector:4318": with no path, spans go to /v1/traces;
	// a URL with a path is used as it is. Empty
	// (the default) turns tracing off: no exporter, no spans recorded;
	// trace context received from callers is still passed on.
	Endpoint string
	// ServiceName is the service.name resource attribute (default
	// "a2a-mcp-bridge").
	ServiceName string
	// SampleRatio is the fraction of new traces sampled, in (0, 1]
	// (default 1). A caller's sampled flag is honoured (parent-based).
	SampleRatio float64
	// Headers are sent with every export (e.g. a collector API key; keep it
	// in ${ENV} or ${file:…}).
	Headers map[string]string
	// InsecurePlaintext permits an http:// endpoint on a host other than
	// loopback: spans (agent names, task ids, methods) then cross the
	// network unencrypted. Off by default.
	InsecurePlaintext bool
	// HTTPClient, if set, is the client the exporter uses.
	HTTPClient *http.Client
}

// Validate reports every problem of the configuration at once.
func (c TracingConfig) Validate() error {
	if c.Endpoint == "" {
		return nil
	}
	var errs []error
	u, err := url.Parse(c.Endpoint)
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https"):
		errs = append(errs, fmt.Errorf("observe: tracing endpoint %q must be an absolute http(s) URL", c.Endpoint))
	case u.User != nil:
		errs = append(errs, errors.New("observe: tracing endpoint must not carry credentials in the URL; use headers"))
	case u.Scheme == "http" && !netguard.IsLoopbackHost(u.Hostname()) && !c.InsecurePlaintext:
		errs = append(errs, fmt.Errorf("observe: tracing endpoint %q is plaintext http to a non-loopback host; use https or set InsecurePlaintext", c.Endpoint))
	}
	if c.SampleRatio < 0 || c.SampleRatio > 1 {
		errs = append(errs, fmt.Errorf("observe: tracing sample ratio %v must be in (0, 1]", c.SampleRatio))
	}
	return errors.Join(errs...)
}

// tracesURL is the export URL: the endpoint, with the OTLP traces path
// when it names none.
func tracesURL(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Path != "" && u.Path != "/") {
		return endpoint
	}
	u.Path = "/v1/traces"
	return u.String()
}

// Tracing installs the global tracer provider (OTLP/HTTP exporter, batched)
// and the W3C trace-context propagator. With no endpoint configured it
// installs nothing and returns a no-op shutdown. The returned shutdown
// flushes pending spans; call it on exit.
func Tracing(ctx context.Context, cfg TracingConfig) (shutdown func(context.Context) error, err error) {
	noop := func(context.Context) error { return nil }
	if cfg.Endpoint == "" {
		return noop, nil
	}
	if err := cfg.Validate(); err != nil {
		return noop, err
	}
	opts := []otlptracehttp.Option{otlptracehttp.WithEndpointURL(tracesURL(cfg.Endpoint))}
	if len(cfg.Headers) > 0 {
		opts = append(opts, otlptracehttp.WithHeaders(cfg.Headers))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, otlptracehttp.WithHTTPClient(cfg.HTTPClient))
	}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return noop, fmt.Errorf("observe: create trace exporter: %w", err)
	}
	name := cfg.ServiceName
	if name == "" {
		name = "a2a-mcp-bridge"
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(attribute.String("service.name", name)))
	if err != nil {
		res = resource.NewSchemaless(attribute.String("service.name", name))
	}
	ratio := cfg.SampleRatio
	if ratio == 0 {
		ratio = 1
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(res),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(ratio))),
	)
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagator)
	return tp.Shutdown, nil
}

// TraceMiddleware extracts the caller's trace context from the
// traceparent/tracestate headers and serves the request inside a server
// span named "<face> <HTTP method>", renamed "<face> <protocol method>"
// when the face calls [SetMethod]. A 5xx status marks the span as an error.
// The span ends when the handler returns or, for an event stream released
// from net/http ([server.StreamReleaseObserver]), when the stream ends.
func TraceMiddleware(face string, next http.Handler) http.Handler {
	if !safeLabel(face) {
		face = labelOther
	}
	// The span's name and start options depend only on the face and the
	// HTTP method: built once, not per request (with tracing off, the span
	// is not recorded and they would be built for nothing).
	starts := map[string]spanStart{}
	for _, m := range []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE", labelOther} {
		starts[m] = spanStart{name: face + " " + m, opts: []trace.SpanStartOption{
			trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(attribute.String("bridge.face", face), attribute.String("http.request.method", m)),
		}}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := propagator.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		if tracingOff() {
			// No span to record: the caller's trace context (if any) is
			// passed on as the span started here would pass it, without
			// the span, its recorder and a copy of the request.
			if ctx != r.Context() {
				r = r.WithContext(ctx)
			}
			next.ServeHTTP(w, r)
			return
		}
		ctx, slot := slotFor(ctx)
		st := starts[httpMethod(r.Method)]
		ctx, span := tracer().Start(ctx, st.name, st.opts...)
		if span.IsRecording() {
			span.SetAttributes(attribute.String("url.path", r.URL.Path))
			slot.watch(func(m string) {
				if !safeLabel(m) {
					m = labelOther
				}
				span.SetName(face + " " + m)
				span.SetAttributes(attribute.String("rpc.method", m))
			})
		}
		tr := &tracedRequest{span: span}
		tr.rec = recorder{ResponseWriter: w, hooks: tr}
		completed := false
		defer func() {
			if tr.rec.released {
				return // the span ends with the released stream
			}
			status := tr.rec.code()
			if !completed && tr.rec.status == 0 {
				status = http.StatusInternalServerError
			}
			endServerSpan(span, status)
		}()
		next.ServeHTTP(&tr.rec, r.WithContext(ctx))
		completed = true
	})
}

// spanStart is the name and start options of a server span.
type spanStart struct {
	name string
	opts []trace.SpanStartOption
}

// tracedRequest is one request TraceMiddleware serves in a span.
type tracedRequest struct {
	rec  recorder
	span trace.Span
}

func (tr *tracedRequest) header(int, bool) {}

// release implements recorderHooks: the span lasts as long as the
// released stream.
func (tr *tracedRequest) release(status int) func() {
	return func() { endServerSpan(tr.span, status) }
}

// endServerSpan ends a request's span with the status it was answered.
func endServerSpan(span trace.Span, status int) {
	span.SetAttributes(attribute.Int("http.response.status_code", status))
	if status >= 500 {
		span.SetStatus(codes.Error, http.StatusText(status))
	}
	span.End()
}

// InjectHTTP writes the trace context of ctx into h (traceparent and,
// when present, tracestate). It writes nothing when ctx holds no valid
// span context.
func InjectHTTP(ctx context.Context, h http.Header) {
	propagator.Inject(ctx, propagation.HeaderCarrier(h))
}

// HeaderHook returns a hook with the signature of client.WithHeader that sets
// the trace context and the request id ([RequestIDHeader]) of ctx on every
// outbound request, then runs next (the hook that adds credentials), if
// any.
func HeaderHook(next func(ctx context.Context, req *http.Request) error) func(ctx context.Context, req *http.Request) error {
	return func(ctx context.Context, req *http.Request) error {
		InjectHTTP(ctx, req.Header)
		if id := RequestID(ctx); id != "" {
			req.Header.Set(RequestIDHeader, id)
		}
		if next != nil {
			return next(ctx, req)
		}
		return nil
	}
}

// metaCarrier reads and writes trace context in an MCP _meta object.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

func (m metaCarrier) Set(key, value string) { m[key] = value }

func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// MetaKeyTraceparent and MetaKeyTracestate are the MCP _meta keys that
// carry W3C trace context (the same names as the HTTP headers).
const (
	MetaKeyTraceparent = "traceparent"
	MetaKeyTracestate  = "tracestate"
)

// InjectMeta writes the trace context of ctx into an MCP request's _meta
// (keys "traceparent" and "tracestate"). meta must be non-nil; nothing is
// written when ctx holds no valid span context.
func InjectMeta(ctx context.Context, meta map[string]any) {
	if meta == nil {
		return
	}
	propagator.Inject(ctx, metaCarrier(meta))
}

// ExtractMeta returns ctx with the remote span context found in an MCP
// request's _meta as its parent. Malformed or missing values, and values
// that are not strings, leave ctx unchanged.
func ExtractMeta(ctx context.Context, meta map[string]any) context.Context {
	if len(meta) == 0 {
		return ctx
	}
	return propagator.Extract(ctx, metaCarrier(meta))
}

// Wrap puts the three server middlewares in front of next in the order the
// bridge needs: [RequestIDMiddleware] (outermost, so every log line and
// span has the id), [TraceMiddleware], then m's [Metrics.Middleware]. A
// nil m skips the metrics.
func Wrap(face string, m *Metrics, method func(*http.Request) string, next http.Handler) http.Handler {
	return RequestIDMiddleware(TraceMiddleware(face, m.Middleware(face, method, next)))
}
