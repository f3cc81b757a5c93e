package observe

import (
	"errors"
	"io"
	"net/http"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Transport wraps base (the netguard client's transport; required) so that every
// outbound request runs in a client span named "HTTP <method>" whose
// context is sent in traceparent/tracestate; the span ends when the
// response body is closed or read to the end (streams included) or when
// the round trip fails. Wrap the netguard client's transport with it to
// see the bridge → agent hop as its own span; without it, [HeaderHook]
// alone still carries the trace.
func Transport(base http.RoundTripper) http.RoundTripper {
	return &transport{base: base, wrapped: []http.RoundTripper{base}}
}

type transport struct {
	base    http.RoundTripper
	wrapped []http.RoundTripper // base, for Unwrap
}

// Unwrap returns the transport t wraps, so that netguard.Do calls t as it
// calls netguard's own, without http.Client's per-call copies
// (netguard.Wrapper).
func (t *transport) Unwrap() []http.RoundTripper { return t.wrapped }

// RoundTrip implements http.RoundTripper.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.base == nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, errors.New("observe: transport has no base round tripper")
	}
	if tracingOff() {
		// No span to record (as TraceMiddleware): the span started here
		// would only carry its parent's context, so the request goes out
		// as it came when it has none to send, without a copy of it, a
		// span and a wrapped body per call.
		if !trace.SpanContextFromContext(req.Context()).IsValid() {
			return t.base.RoundTrip(req)
		}
		out := req.Clone(req.Context())
		propagator.Inject(out.Context(), propagation.HeaderCarrier(out.Header))
		return t.base.RoundTrip(out)
	}
	m := httpMethod(req.Method)
	ctx, span := tracer().Start(req.Context(), "HTTP "+m,
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(
			attribute.String("http.request.method", m),
			attribute.String("server.address", req.URL.Hostname()),
		))
	out := req.Clone(ctx)
	propagator.Inject(ctx, propagation.HeaderCarrier(out.Header))
	resp, err := t.base.RoundTrip(out)
	if err != nil {
		span.SetStatus(codes.Error, "round trip failed")
		span.End()
		return nil, err
	}
	span.SetAttributes(attribute.Int("http.response.status_code", resp.StatusCode))
	if resp.StatusCode >= 500 {
		span.SetStatus(codes.Error, http.StatusText(resp.StatusCode))
	}
	if resp.Body == nil || resp.Body == http.NoBody {
		span.End()
		return resp, nil
	}
	resp.Body = &spanBody{ReadCloser: resp.Body, span: span}
	return resp, nil
}

// spanBody ends the client span at EOF or Close, whichever comes first.
type spanBody struct {
	io.ReadCloser
	span trace.Span
	once sync.Once
}

func (b *spanBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.once.Do(func() { b.span.End() })
	}
	return n, err
}

func (b *spanBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(func() { b.span.End() })
	return err
}
