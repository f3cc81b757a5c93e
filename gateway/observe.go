package gateway

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// RequestIDHeader carries the request id in and out.
const RequestIDHeader = "X-Request-Id"

// maxRequestID caps an inbound request id; longer or oddly shaped ids are
// replaced so that logs cannot be forged or flooded through the header.
const maxRequestID = 128

type ctxKey int

const infoKey ctxKey = iota

// requestInfo is what the middleware learns about a request while it is
// served: the protocol method is set by the face that parses it.
type requestInfo struct {
	id     string
	face   string
	mu     sync.Mutex
	method string
}

func (ri *requestInfo) setMethod(m string) {
	ri.mu.Lock()
	ri.method = m
	ri.mu.Unlock()
}

func (ri *requestInfo) getMethod() string {
	ri.mu.Lock()
	defer ri.mu.Unlock()
	return ri.method
}

// RequestID returns the id of the request ctx belongs to ("" outside one).
func RequestID(ctx context.Context) string {
	if ri, _ := ctx.Value(infoKey).(*requestInfo); ri != nil {
		return ri.id
	}
	return ""
}

// setMethod records the protocol method of the request ctx belongs to, for
// metrics and the access log.
func setMethod(ctx context.Context, m string) {
	if ri, _ := ctx.Value(infoKey).(*requestInfo); ri != nil {
		ri.setMethod(m)
	}
}

// validRequestID accepts ids of letters, digits and ".-_:" only.
func validRequestID(s string) bool {
	if s == "" || len(s) > maxRequestID {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.', c == ':':
		default:
			return false
		}
	}
	return true
}

// ContextHandler is a slog.Handler that adds the request id of the logging
// context to every record logged with a context (InfoContext and friends).
type ContextHandler struct{ slog.Handler }

// Handle implements slog.Handler.
func (h ContextHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestID(ctx); id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	return h.Handler.Handle(ctx, r)
}

// WithAttrs implements slog.Handler.
func (h ContextHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return ContextHandler{h.Handler.WithAttrs(as)}
}

// WithGroup implements slog.Handler.
func (h ContextHandler) WithGroup(name string) slog.Handler {
	return ContextHandler{h.Handler.WithGroup(name)}
}

// Metrics are the gateway's own Prometheus series; the packages it wires
// register theirs on the same registry.
type Metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	streams  *prometheus.GaugeVec
	tasks    *prometheus.CounterVec
	panics   prometheus.Counter
}

// NewMetrics registers the gateway's series (and the Go and process
// collectors) on reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "bridge_requests_total",
			Help: "Inbound HTTP requests by face, protocol method and outcome.",
		}, []string{"face", "method", "outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "bridge_request_duration_seconds",
			Help:    "Inbound request latency by face and protocol method (streams: until the stream ends).",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"face", "method"}),
		streams: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "bridge_active_streams",
			Help: "Server-sent event streams open now, by face.",
		}, []string{"face"}),
		tasks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "bridge_task_events_total",
			Help: "Task status changes persisted, by agent and state.",
		}, []string{"agent", "state"}),
		panics: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "bridge_handler_panics_total",
			Help: "Requests whose handler panicked (the process kept serving).",
		}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.latency, m.streams, m.tasks, m.panics,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if errors.As(err, &are) {
				continue
			}
			return nil, err
		}
	}
	for _, f := range []string{"a2a", "mcp"} {
		m.streams.WithLabelValues(f) // present at zero before the first stream
	}
	return m, nil
}

// faceOf names the face a path belongs to, for metrics labels.
func faceOf(path, mcpPath string) string {
	switch {
	case strings.HasSuffix(path, "/.well-known/agent-card.json") || path == "/.well-known/jwks.json":
		return "card"
	case strings.HasPrefix(path, "/a2a/"):
		return "a2a"
	case mcpPath != "" && (path == mcpPath || strings.HasPrefix(path, "/.well-known/oauth-protected-resource")):
		return "mcp"
	case path == "/healthz" || path == "/readyz" || path == "/metrics":
		return "ops"
	}
	return "other"
}

// outcomeOf maps a status code to a small label set.
func outcomeOf(status int) string {
	switch {
	case status < 400:
		return "ok"
	case status == http.StatusUnauthorized:
		return "unauthenticated"
	case status == http.StatusForbidden:
		return "forbidden"
	case status == http.StatusNotFound:
		return "not_found"
	case status == http.StatusTooManyRequests:
		return "rate_limited"
	case status < 500:
		return "client_error"
	}
	return "server_error"
}

// statusWriter records the status and notices event streams. It keeps
// Flush and Unwrap so SSE and http.ResponseController still work.
type statusWriter struct {
	http.ResponseWriter
	status   int
	onStream func()
	stream   bool
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
		if code == http.StatusOK && strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
			w.stream = true
			w.onStream()
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// observe is the outermost middleware: request id in and out, panic
// recovery, metrics and one access log line per request.
func (m *Metrics) observe(log *slog.Logger, mcpPath string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get(RequestIDHeader)
		if !validRequestID(id) {
			id = uuid.NewString()
		}
		w.Header().Set(RequestIDHeader, id)
		ri := &requestInfo{id: id, face: faceOf(r.URL.Path, mcpPath)}
		ctx := context.WithValue(r.Context(), infoKey, ri)
		sw := &statusWriter{ResponseWriter: w}
		sw.onStream = func() { m.streams.WithLabelValues(ri.face).Inc() }
		defer func() {
			rec := recover()
			if rec != nil {
				if rec == http.ErrAbortHandler {
					panic(rec)
				}
				m.panics.Inc()
				log.ErrorContext(ctx, "handler panicked", "panic", rec, "stack", string(debug.Stack()))
				if sw.status == 0 {
					http.Error(sw, "internal error", http.StatusInternalServerError)
				}
			}
			if sw.stream {
				m.streams.WithLabelValues(ri.face).Dec()
			}
			status := sw.status
			if status == 0 {
				status = http.StatusOK
			}
			method := ri.getMethod()
			if method == "" {
				method = "http_" + strings.ToLower(r.Method)
			}
			elapsed := time.Since(start)
			m.requests.WithLabelValues(ri.face, method, outcomeOf(status)).Inc()
			m.latency.WithLabelValues(ri.face, method).Observe(elapsed.Seconds())
			log.LogAttrs(ctx, slog.LevelInfo, "request",
				slog.String("face", ri.face), slog.String("method", method),
				slog.String("http_method", r.Method), slog.String("path", r.URL.Path),
				slog.Int("status", status), slog.String("duration", elapsed.String()),
				slog.String("remote", clientIP(r)), slog.String("bytes_in", strconv.FormatInt(r.ContentLength, 10)))
		}()
		next.ServeHTTP(sw, r.WithContext(ctx))
	})
}
