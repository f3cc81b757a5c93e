package observe

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// Caps on the distinct values of caller-influenced labels; values past a
// cap are exported as "other".
const (
	maxMethods   = 64
	maxFaces     = 16
	maxUpstreams = 256
	maxOps       = 32
	maxRules     = 64
	maxTools     = 256
	maxSkills    = 256
)

// Metrics holds the bridge's Prometheus series. Every method is safe for
// concurrent use; a nil *Metrics records nothing, so components can take
// one optionally.
type Metrics struct {
	gatherer prometheus.Gatherer

	requests  *prometheus.CounterVec
	duration  *prometheus.HistogramVec
	streams   *prometheus.GaugeVec
	tasks     *prometheus.CounterVec
	upstream  *prometheus.GaugeVec
	upState   *prometheus.GaugeVec
	restarts  *prometheus.CounterVec
	storeErrs *prometheus.CounterVec
	decisions *prometheus.CounterVec
	limited   *prometheus.CounterVec
	pushes    *prometheus.CounterVec
	toolCalls *prometheus.CounterVec
	toolDur   *prometheus.HistogramVec
	skillCall *prometheus.CounterVec
	skillDur  *prometheus.HistogramVec

	faces, methods, upstreams, ops, rules, tools, skills *boundedLabel
}

// NewMetrics creates the bridge's series and registers them, with the Go
// runtime and process collectors, on reg. Registering on a registry that
// already holds the same series reuses them, so two components may each
// call NewMetrics on one registry. It panics on any other registration
// error (a programming error, as with prometheus.MustRegister). Handler
// serves reg when reg is also a prometheus.Gatherer (a
// *prometheus.Registry is), else prometheus.DefaultGatherer.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		faces:     newBoundedLabel(maxFaces),
		methods:   newBoundedLabel(maxMethods),
		upstreams: newBoundedLabel(maxUpstreams),
		ops:       newBoundedLabel(maxOps),
		rules:     newBoundedLabel(maxRules),
		tools:     newBoundedLabel(maxTools),
		skills:    newBoundedLabel(maxSkills),
	}
	m.gatherer = prometheus.DefaultGatherer
	if g, ok := reg.(prometheus.Gatherer); ok {
		m.gatherer = g
	}
	m.requests = register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bridge_requests_total",
		Help: "Inbound HTTP requests by face, protocol method and outcome (status class).",
	}, []string{"face", "method", "outcome"}))
	m.duration = register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "bridge_request_duration_seconds",
		Help:    "Inbound request latency by face and protocol method; for event streams, the time until the stream opened.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
	}, []string{"face", "method"}))
	m.streams = register(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "bridge_active_streams",
		Help: "Server-sent event streams open now, by face.",
	}, []string{"face"}))
	m.tasks = register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bridge_task_transitions_total",
		Help: "Task states entered (persisted task and status events), by state.",
	}, []string{"state"}))
	m.upstream = register(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "bridge_upstream_up",
		Help: "1 when the upstream (MCP server or A2A agent) is up, 0 when it is not; kind is its configuration section (publish, front.mcp, front.a2a, expose).",
	}, []string{"upstream", "kind"}))
	m.upState = register(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "bridge_upstream_state",
		Help: "1 for the upstream's state now, 0 for the others: starting, up, down (unreachable or lost) or refused (its card failed verification; taken out).",
	}, []string{"upstream", "kind", "state"}))
	m.restarts = register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bridge_upstream_restarts_total",
		Help: "Upstream restarts or reconnections, by upstream.",
	}, []string{"upstream"}))
	m.storeErrs = register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bridge_store_errors_total",
		Help: "Task store operations that failed, by operation.",
	}, []string{"op"}))
	m.decisions = register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bridge_policy_decisions_total",
		Help: "Policy decisions by face and decision (allow or deny).",
	}, []string{"face", "decision"}))
	m.limited = register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bridge_rate_limited_total",
		Help: "Requests refused by a rate limit, by face and rule.",
	}, []string{"face", "rule"}))
	m.pushes = register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bridge_push_deliveries_total",
		Help: "Push notification deliveries by outcome (ok or failed).",
	}, []string{"outcome"}))
	callBuckets := []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300}
	m.toolCalls = register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bridge_tool_calls_total",
		Help: "MCP tools/call served by the MCP face, by tool (its served name; past 256 names, other) and outcome (ok, tool_error: an isError result, error, canceled: the host went away or cancelled).",
	}, []string{"tool", "outcome"}))
	m.toolDur = register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "bridge_tool_call_duration_seconds",
		Help:    "Latency of MCP tools/call served by the MCP face, by tool.",
		Buckets: callBuckets,
	}, []string{"tool"}))
	m.skillCall = register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bridge_skill_calls_total",
		Help: "Skill calls of the agents the bridge publishes (one per tool of the MCP server behind), by agent, skill (past 256 names, other) and outcome (ok, tool_error, error, canceled).",
	}, []string{"agent", "skill", "outcome"}))
	m.skillDur = register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "bridge_skill_call_duration_seconds",
		Help:    "Latency of the skill calls of the agents the bridge publishes (the MCP tool call behind), by agent and skill.",
		Buckets: callBuckets,
	}, []string{"agent", "skill"}))
	register(reg, collectors.NewGoCollector())
	register(reg, collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, o := range []string{"ok", "failed"} {
		m.pushes.WithLabelValues(o)
	}
	return m
}

// register registers c on reg, or returns the collector already registered
// under the same descriptors.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
		panic("observe: register metrics: " + err.Error())
	}
	return c
}

// Handler serves the registry in the Prometheus exposition format (mount it
// at /metrics).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.gatherer, promhttp.HandlerOpts{})
}

// Middleware counts the requests next serves under face (a constant such
// as "a2a" or "mcp"): bridge_requests_total by method and outcome (status
// class), bridge_request_duration_seconds, and bridge_active_streams for a
// response whose Content-Type is text/event-stream, from the moment its
// header is written until the stream ends: when the handler returns or,
// for a stream released from net/http ([server.StreamReleaseObserver]), when
// the released stream ends. A request is counted once it is over.
//
// The method label is, in order: the value a face recorded with
// [SetMethod] while serving; method(r) when method is non-nil and returns
// a non-empty value; the HTTP method. Method values are bounded (at most
// 64 distinct safe values; the rest count as "other").
func (m *Metrics) Middleware(face string, method func(*http.Request) string, next http.Handler) http.Handler {
	if m == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, slot := slotFor(r.Context())
		mr := newMetered(r.Context())
		*mr = meteredRequest{m: m, face: m.faces.value(face), start: time.Now(), slot: slot, method: method, r: r}
		mr.rec = recorder{ResponseWriter: w, hooks: mr}
		completed := false
		defer func() {
			if mr.rec.released {
				return // counted when the released stream ends
			}
			status := mr.rec.code()
			if !completed && mr.rec.status == 0 {
				status = http.StatusInternalServerError // panicked before writing
			}
			mr.done(status)
		}()
		if ctx != r.Context() { // the server span's middleware made the slot already
			r = r.WithContext(ctx)
			mr.r = r
		}
		next.ServeHTTP(&mr.rec, r)
		completed = true
	})
}

// newMetered returns the place for a request's meteredRequest: the one of
// the RequestValues ctx carries, the first time (one allocation fewer per
// request), else a new one.
func newMetered(ctx context.Context) *meteredRequest {
	if v, _ := ctx.Value(valuesKey).(*RequestValues); v != nil && !v.meteredUsed {
		v.meteredUsed = true
		return &v.metered
	}
	return &meteredRequest{}
}

// meteredRequest is one request Middleware counts.
type meteredRequest struct {
	rec    recorder
	m      *Metrics
	face   string
	start  time.Time
	opened time.Duration // until the stream's header, for a stream
	stream bool
	slot   *methodSlot
	method func(*http.Request) string
	r      *http.Request // nil once the label is known
	label  string
}

// header implements recorderHooks: an event stream is open.
func (mr *meteredRequest) header(_ int, stream bool) {
	if stream {
		mr.stream = true
		mr.opened = time.Since(mr.start)
		mr.m.streams.WithLabelValues(mr.face).Inc()
	}
}

// release implements recorderHooks: the stream is counted when it ends.
// The label is settled now, while the request may still be read; the
// request is not kept.
func (mr *meteredRequest) release(status int) func() {
	mr.label, mr.r = mr.methodLabel(), nil
	return func() { mr.done(status) }
}

// methodLabel is the method label (see Middleware).
func (mr *meteredRequest) methodLabel() string {
	if mr.r == nil {
		return mr.label
	}
	meth := mr.slot.get()
	if meth == "" && mr.method != nil {
		meth = mr.method(mr.r)
	}
	if meth == "" {
		return httpMethod(mr.r.Method)
	}
	return mr.m.methods.value(meth)
}

// done counts the request, over with status.
func (mr *meteredRequest) done(status int) {
	if mr.stream {
		mr.m.streams.WithLabelValues(mr.face).Dec()
	}
	label := mr.methodLabel()
	d := time.Since(mr.start)
	if mr.stream {
		d = mr.opened
	}
	mr.m.requests.WithLabelValues(mr.face, label, statusClass(status)).Inc()
	mr.m.duration.WithLabelValues(mr.face, label).Observe(d.Seconds())
}

// OnTaskEvent counts the task state an event enters. Its signature is that
// of taskmanager.Config.OnEvent; compose it with the push sender's hook
// when both are needed.
func (m *Metrics) OnTaskEvent(_ context.Context, _ string, _ *a2a.Task, ev a2a.StreamResponse) {
	if m == nil {
		return
	}
	var st a2a.TaskState
	switch {
	case ev.StatusUpdate != nil:
		st = ev.StatusUpdate.Status.State
	case ev.Task != nil:
		st = ev.Task.Status.State
	default:
		return // artifacts and messages change no state
	}
	m.tasks.WithLabelValues(stateLabel(st)).Inc()
}

// stateLabel is a task state as a short label ("working", "completed").
func stateLabel(s a2a.TaskState) string {
	if !s.Known() {
		return labelUnknown
	}
	return strings.ToLower(strings.TrimPrefix(string(s), "TASK_STATE_"))
}

// UpstreamUp records whether the named upstream of kind (its configuration
// section: one of the bridge's own few names, exported as given) is up.
func (m *Metrics) UpstreamUp(name, kind string, up bool) {
	if m == nil {
		return
	}
	v := 0.0
	if up {
		v = 1
	}
	m.upstream.WithLabelValues(m.upstreams.value(name), kind).Set(v)
}

// UpstreamState records the upstream's state: 1 for state, 0 for every
// other of states.
func (m *Metrics) UpstreamState(name, kind, state string, states []string) {
	if m == nil {
		return
	}
	n, k := m.upstreams.value(name), kind
	for _, s := range states {
		v := 0.0
		if s == state {
			v = 1
		}
		m.upState.WithLabelValues(n, k, s).Set(v)
	}
}

// UpstreamRemoved drops the series of an upstream removed from the
// configuration.
func (m *Metrics) UpstreamRemoved(name, kind string) {
	if m == nil {
		return
	}
	labels := prometheus.Labels{"upstream": m.upstreams.value(name), "kind": kind}
	m.upstream.Delete(labels)
	m.upState.DeletePartialMatch(labels)
}

// UpstreamRestarted counts one restart or reconnection of the named
// upstream.
func (m *Metrics) UpstreamRestarted(name string) {
	if m == nil {
		return
	}
	m.restarts.WithLabelValues(m.upstreams.value(name)).Inc()
}

// StoreError counts one failed task store operation (op such as "create",
// "append", "get", "list").
func (m *Metrics) StoreError(op string) {
	if m == nil {
		return
	}
	m.storeErrs.WithLabelValues(m.ops.value(op)).Inc()
}

// PolicyDecision counts one policy decision on face.
func (m *Metrics) PolicyDecision(face string, allow bool) {
	if m == nil {
		return
	}
	d := "deny"
	if allow {
		d = "allow"
	}
	m.decisions.WithLabelValues(m.faces.value(face), d).Inc()
}

// RateLimited counts one request refused on face by the named rule.
func (m *Metrics) RateLimited(face, rule string) {
	if m == nil {
		return
	}
	m.limited.WithLabelValues(m.faces.value(face), m.rules.value(rule)).Inc()
}

// PushDelivery counts one push notification delivery attempt.
func (m *Metrics) PushDelivery(ok bool) {
	if m == nil {
		return
	}
	o := "failed"
	if ok {
		o = "ok"
	}
	m.pushes.WithLabelValues(o).Inc()
}

// Outcomes of tool and skill calls.
const (
	OutcomeOK        = "ok"
	OutcomeToolError = "tool_error" // the tool answered with an error result
	OutcomeError     = "error"      // the call failed
	OutcomeCanceled  = "canceled"   // the caller went away or cancelled
)

// ToolCall counts one tools/call the MCP face served, of the named tool
// (a name the face serves: mcp-go runs only those), with its outcome
// (OutcomeOK, OutcomeToolError, OutcomeError) and latency.
func (m *Metrics) ToolCall(tool, outcome string, d time.Duration) {
	if m == nil {
		return
	}
	t := m.tools.value(tool)
	m.toolCalls.WithLabelValues(t, outcome).Inc()
	m.toolDur.WithLabelValues(t).Observe(d.Seconds())
}

// SkillCall counts one skill call of a published agent (its configured
// name), of the named skill (a tool the MCP server behind lists), with its
// outcome and latency.
func (m *Metrics) SkillCall(agent, skill, outcome string, d time.Duration) {
	if m == nil {
		return
	}
	a, sk := m.upstreams.value(agent), m.skills.value(skill)
	m.skillCall.WithLabelValues(a, sk, outcome).Inc()
	m.skillDur.WithLabelValues(a, sk).Observe(d.Seconds())
}
