// Package observability owns what the bridge records about the requests
// it serves, in front of every face: the request id, panic recovery, the
// access log line (who, face, method, target), the request metrics and
// server spans per face (the observe series), the event streams open now
// (told when the server drains), the store's failures
// (bridge_store_errors_total), upstream restarts, the task gauge
// (bridge_tasks) and the skill calls of fronted agents (SkillCounting).
//
// The faces record into it (SetMethod, SetTarget, SetPrincipal); it does
// not reach back into them: it must not import gateway, config, mcp/...,
// or the guards (auth, policy, ratelimit, hostguard).
package observability

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/observe"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// GoingAwayComment is the SSE comment every open event stream receives when
// the server starts draining. Comments are ignored by A2A and MCP clients,
// so it breaks neither protocol; a client that reads it knows to reconnect
// elsewhere once the stream ends.
const GoingAwayComment = ": server shutting down\n\n"

// Faces of the metrics and span labels.
const (
	FaceA2A   = "a2a"
	FaceMCP   = "mcp"
	FaceCard  = "card"
	FaceOps   = "ops"
	FaceOther = "other"
)

type ctxKey int

const infoKey ctxKey = iota

// requestInfo is what the access log learns about a request while it is
// served: the protocol method is set by the face that parses it.
type requestInfo struct {
	mu     sync.Mutex
	method string
	who    string
	target Target
}

// Target is what a request called, beyond its method: the agent, skill,
// tool or resource, for the access log (never a metrics label as given:
// a caller chooses them).
type Target struct {
	Agent, Skill, Tool, Resource string
}

// SetTarget records what the request ctx belongs to called; empty fields
// keep what was recorded before.
func SetTarget(ctx context.Context, t Target) {
	ri, _ := ctx.Value(infoKey).(*requestInfo)
	if ri == nil {
		return
	}
	ri.mu.Lock()
	defer ri.mu.Unlock()
	for _, f := range []struct {
		dst *string
		v   string
	}{
		{&ri.target.Agent, t.Agent}, {&ri.target.Skill, t.Skill}, {&ri.target.Tool, t.Tool}, {&ri.target.Resource, t.Resource},
	} {
		if f.v != "" {
			*f.dst = clipLog(f.v)
		}
	}
}

func (ri *requestInfo) getTarget() Target {
	ri.mu.Lock()
	defer ri.mu.Unlock()
	return ri.target
}

// clipLog bounds a caller-chosen value in a log line.
func clipLog(s string) string {
	const max = 128
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}

// SetPrincipal records who the request was authenticated as, for the
// access log (the principal's safe String form: never a token).
func SetPrincipal(ctx context.Context, p *request.Principal) {
	if ri, _ := ctx.Value(infoKey).(*requestInfo); ri != nil && p != nil {
		ri.mu.Lock()
		ri.who = p.String()
		ri.mu.Unlock()
	}
}

func (ri *requestInfo) getWho() string {
	ri.mu.Lock()
	defer ri.mu.Unlock()
	return ri.who
}

// SetMethod records the protocol method of the request ctx belongs to, for
// metrics and the span name ([observe.SetMethod]) and the access log.
func SetMethod(ctx context.Context, m string) {
	observe.SetMethod(ctx, m)
	if ri, _ := ctx.Value(infoKey).(*requestInfo); ri != nil {
		ri.mu.Lock()
		ri.method = m
		ri.mu.Unlock()
	}
}

func (ri *requestInfo) getMethod() string {
	ri.mu.Lock()
	defer ri.mu.Unlock()
	return ri.method
}

// yieldingRegisterer registers collectors on reg, except one whose series
// name a domain package has already registered with other labels (policy's
// bridge_policy_decisions_total carries the deciding rule, push's
// bridge_push_deliveries_total its four outcomes): that registration is
// skipped, so the richer series is the one exported and the observe
// counter of the same name stays unexported.
type yieldingRegisterer struct {
	prometheus.Registerer
	log *slog.Logger
}

// Register implements prometheus.Registerer.
func (y yieldingRegisterer) Register(c prometheus.Collector) error {
	err := y.Registerer.Register(c)
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[prometheus.AlreadyRegisteredError](err); ok {
		return err
	}
	y.log.Debug("observability: metrics: a package's own series of the same name is exported instead", "err", err)
	return nil
}

// MustRegister implements prometheus.Registerer.
func (y yieldingRegisterer) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := y.Register(c); err != nil {
			panic(err)
		}
	}
}

// Metrics is what the bridge records about its requests: the observe
// series (requests, latency, streams, task transitions, upstream health,
// rate-limit hits), the panics it survived, and the event streams open now
// (to tell them when the server drains).
type Metrics struct {
	reg *prometheus.Registry
	// metrics is set by observe, before serving; atomic because the store
	// and upstream hooks may read it from goroutines started earlier.
	metrics atomic.Pointer[observe.Metrics]
	panics  prometheus.Counter

	mu       sync.Mutex
	streams  map[*streamWriter]struct{}
	draining bool
}

// NewMetrics registers the gateway's own series on reg. The observe series
// are registered when the handler is built, after every package that
// registers series of the same names (see yieldingRegisterer).
func NewMetrics(reg *prometheus.Registry) (*Metrics, error) {
	m := &Metrics{
		reg: reg,
		panics: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "bridge_handler_panics_total",
			Help: "Requests whose handler panicked (the process kept serving).",
		}),
		streams: map[*streamWriter]struct{}{},
	}
	if err := reg.Register(m.panics); err != nil {
		are, ok := errors.AsType[prometheus.AlreadyRegisteredError](err)
		if !ok {
			return nil, err
		}
		if m.panics, ok = are.ExistingCollector.(prometheus.Counter); !ok {
			return nil, errors.New("observability: bridge_handler_panics_total has another type")
		}
	}
	return m, nil
}

// Series is the observe metrics, nil (records nothing) before Observe.
func (m *Metrics) Series() *observe.Metrics {
	if m == nil {
		return nil
	}
	return m.metrics.Load()
}

// Observe registers the observe series and puts the observing middlewares
// in front of mux: request id (outermost, so every log line has it), panic
// recovery and the access log, then per face (faceOf names a path's: one
// of the Face constants) the server span (A2A and MCP only) and the
// request metrics.
func (m *Metrics) Observe(log *slog.Logger, faceOf func(path string) string, mux http.Handler) http.Handler {
	series := observe.NewMetrics(yieldingRegisterer{Registerer: m.reg, log: log})
	m.metrics.Store(series)
	o := m
	byFace := map[string]http.Handler{}
	for _, f := range []string{FaceA2A, FaceMCP} {
		byFace[f] = observe.TraceMiddleware(f, series.Middleware(f, nil, mux))
	}
	for _, f := range []string{FaceCard, FaceOps, FaceOther} {
		byFace[f] = series.Middleware(f, nil, mux)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		face := faceOf(r.URL.Path)
		// The request id (observe.RequestIDMiddleware's), the method slot
		// of the metrics and span middlewares, the request's info and the
		// response writer in one allocation and one copy of the request.
		rc := &requestCtx{Context: r.Context()}
		rc.vals.Init(w, r)
		ctx := context.Context(rc)
		ri := &rc.ri
		sw := &rc.sw
		*sw = streamWriter{ResponseWriter: w, o: o, access: accessEntry{log: log, ctx: ctx, ri: ri, face: face, start: start, r: r}}
		defer func() {
			if rec := recover(); rec != nil {
				if rec == http.ErrAbortHandler {
					panic(rec)
				}
				o.panics.Inc()
				log.ErrorContext(ctx, "handler panicked", "panic", rec, "stack", string(debug.Stack()))
				if sw.headerSent() {
					// Too late for a status: end the response.
					panic(http.ErrAbortHandler)
				}
				http.Error(sw, "internal error", http.StatusInternalServerError)
			}
			if sw.isReleased() {
				return // logged and forgotten when the released stream ends
			}
			o.forget(sw)
			// The client went away before the handler was done: the line
			// says so (it is not an error of the bridge's).
			sw.access.gone = ctx.Err() != nil
			sw.access.write(sw.code())
		}()
		byFace[face].ServeHTTP(sw, r.WithContext(ctx))
	})
}

// requestCtx is a request's context with everything Observe keeps per
// request: the values of observe's middlewares, the request's info and the
// response writer. One allocation instead of seven (three context.WithValue,
// the boxed request id, the method slot, the info and the writer), which the
// allocation profile of bridge serve under load showed on every request.
type requestCtx struct {
	context.Context
	vals observe.RequestValues
	ri   requestInfo
	sw   streamWriter
}

// Value implements [context.Context].
func (c *requestCtx) Value(key any) any {
	if key == any(infoKey) {
		return &c.ri
	}
	if v, ok := c.vals.Lookup(key); ok {
		return v
	}
	return c.Context.Value(key)
}

// accessEntry is what a request's access log line needs.
type accessEntry struct {
	log   *slog.Logger
	ctx   context.Context
	ri    *requestInfo
	face  string
	start time.Time
	// r is the request, until detach copies what the line needs of it.
	r                        *http.Request
	httpMethod, path, remote string
	bytesIn                  int64
	// gone: the client disconnected before the handler returned.
	gone bool
}

// detach copies what the line needs of the request and lets go of it (a
// released stream must not keep the request, its body reader and the
// connection's buffers behind it, alive).
func (e *accessEntry) detach() {
	if e.r == nil {
		return
	}
	e.httpMethod, e.path, e.remote, e.bytesIn = e.r.Method, e.r.URL.Path, ClientIP(e.r), e.r.ContentLength
	e.r = nil
}

// write logs the request, over with status: the access log line.
func (e *accessEntry) write(status int) {
	e.detach()
	method := e.ri.getMethod()
	if method == "" {
		method = e.httpMethod
	}
	attrs := make([]slog.Attr, 0, 17)
	attrs = append(attrs, slog.String("who", e.ri.getWho()),
		slog.String("face", e.face), slog.String("method", method))
	t := e.ri.getTarget()
	for _, f := range [...]struct{ k, v string }{{"agent", t.Agent}, {"skill", t.Skill}, {"tool", t.Tool}, {"resource", t.Resource}} {
		if f.v != "" {
			attrs = append(attrs, slog.String(f.k, f.v))
		}
	}
	attrs = append(attrs, slog.String("http_method", e.httpMethod), slog.String("path", e.path),
		slog.Int("status", status), slog.String("duration", time.Since(e.start).String()),
		slog.String("remote", e.remote), slog.Int64("bytes_in", e.bytesIn))
	if e.gone {
		attrs = append(attrs, slog.String("outcome", "client_disconnected"))
	}
	attrs = observe.AppendContextAttrs(e.ctx, attrs) // in the one list: one allocation
	e.log.LogAttrs(e.ctx, slog.LevelInfo, "request", attrs...)
}

// GoingAway tells every open event stream that the server is draining
// ([GoingAwayComment]); streams opened afterwards get it as they open.
// Streams released from net/http are told through their own writer.
func (o *Metrics) GoingAway() {
	o.mu.Lock()
	o.draining = true
	ws := make([]*streamWriter, 0, len(o.streams))
	for w := range o.streams {
		ws = append(ws, w)
	}
	o.mu.Unlock()
	for _, w := range ws {
		w.comment(GoingAwayComment)
	}
}

func (o *Metrics) track(w *streamWriter) (draining bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.streams[w] = struct{}{}
	return o.draining
}

func (o *Metrics) forget(w *streamWriter) {
	w.mu.Lock()
	w.done = true
	w.mu.Unlock()
	o.mu.Lock()
	delete(o.streams, w)
	o.mu.Unlock()
}

// streamWriter records the status and, for an event stream, lets the
// drain write a comment between two of the handler's writes (the a2a and
// MCP servers write each event in one Write). It keeps Flush and Unwrap so
// SSE and http.ResponseController still work, and lets an a2a stream be
// released from net/http ([server.StreamReleaseObserver]): the stream is then
// logged and forgotten when it ends, and the drain's comment goes through
// the stream's own writer.
type streamWriter struct {
	http.ResponseWriter
	o *Metrics
	// access is the access log line's; detached from the request at the
	// release (under mu), written by whoever ends the request.
	access accessEntry

	mu     sync.Mutex
	status int
	stream bool
	done   bool
	// write is set once the stream has been released: the drain's
	// comment goes through it.
	write func([]byte) error
}

var _ server.StreamReleaseObserver = (*streamWriter)(nil)

func (w *streamWriter) WriteHeader(code int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writeHeaderLocked(code)
}

func (w *streamWriter) writeHeaderLocked(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
		if code < 300 && strings.HasPrefix(strings.ToLower(w.Header().Get("Content-Type")), "text/event-stream") {
			w.stream = true
			if w.o.track(w) {
				defer func() { _, _ = w.ResponseWriter.Write([]byte(GoingAwayComment)) }()
			}
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *streamWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.status == 0 {
		w.writeHeaderLocked(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Flush implements http.Flusher.
func (w *streamWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.status == 0 {
		w.writeHeaderLocked(http.StatusOK)
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *streamWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// StreamReleased implements [server.StreamReleaseObserver]: the writer lets go
// of net/http's writer and of the request, keeps write for the drain's
// comment, and logs and forgets the stream when it ends, with its whole
// duration.
func (w *streamWriter) StreamReleased(write func([]byte) error) (end func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.write = write
	w.ResponseWriter = releasedWriter{}
	w.access.detach()
	return w.releasedEnd
}

// releasedEnd is the end of a released stream.
func (w *streamWriter) releasedEnd() {
	w.o.forget(w)
	w.access.write(w.code())
}

func (w *streamWriter) isReleased() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.write != nil
}

// comment writes an SSE comment and flushes it, unless the stream is over.
func (w *streamWriter) comment(c string) {
	w.mu.Lock()
	if w.done || !w.stream {
		w.mu.Unlock()
		return
	}
	if write := w.write; write != nil {
		// Released: not under mu, which StreamReleased takes while the
		// stream holds the lock write waits for.
		w.mu.Unlock()
		_ = write([]byte(c))
		return
	}
	defer w.mu.Unlock()
	if _, err := w.ResponseWriter.Write([]byte(c)); err == nil {
		_ = http.NewResponseController(w.ResponseWriter).Flush()
	}
}

func (w *streamWriter) headerSent() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.status != 0
}

func (w *streamWriter) code() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

// releasedWriter stands in for net/http's writer in a streamWriter whose
// stream has been released: nothing may be written through it any more.
type releasedWriter struct{}

func (releasedWriter) Header() http.Header { return http.Header{} }

func (releasedWriter) Write([]byte) (int, error) { return 0, http.ErrHijacked }

func (releasedWriter) WriteHeader(int) {}

// ClientIP is the address of the peer (proxies are not trusted).
func ClientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
