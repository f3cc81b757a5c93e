package observe

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// scrape fetches the metrics handler over HTTP and returns the exposition.
func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape status %d", resp.StatusCode)
	}
	return string(b)
}

// sample returns the value of one series (name with its labels in
// exposition order) in body, and whether it is present.
func sample(body, series string) (float64, bool) {
	for line := range strings.SplitSeq(body, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return f, err == nil
		}
	}
	return 0, false
}

func wantSample(t *testing.T, body, series string, want float64) {
	t.Helper()
	got, ok := sample(body, series)
	if !ok {
		t.Errorf("series %s missing", series)
		return
	}
	if got != want {
		t.Errorf("%s = %v, want %v", series, got, want)
	}
}

// TestMetricsAfterTraffic sends real requests through the middleware,
// scrapes /metrics and finds each series with its labels, including an
// event stream counted while it is open and released after.
func TestMetricsAfterTraffic(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := NewMetrics(reg)

	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/rpc", func(w http.ResponseWriter, r *http.Request) {
		SetMethod(r.Context(), "SendMessage") // as the a2a Guard hook does
		w.WriteHeader(http.StatusOK)
	})
	mux.HandleFunc("/denied", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "forbidden", http.StatusForbidden)
	})
	mux.HandleFunc("/boom", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "internal", http.StatusInternalServerError)
	})
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
		SetMethod(r.Context(), "SendStreamingMessage")
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, "data: {}\n\n")
		http.NewResponseController(w).Flush()
		<-release
	})
	byPath := func(r *http.Request) string {
		if r.URL.Path == "/denied" {
			return "GetTask"
		}
		return ""
	}
	srv := httptest.NewServer(m.Middleware("a2a", byPath, mux))
	defer srv.Close()
	c := srv.Client()

	get := func(path string) {
		t.Helper()
		resp, err := c.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	get("/rpc")
	get("/rpc")
	get("/denied")
	get("/boom")

	resp, err := c.Get(srv.URL + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || line != "data: {}\n" {
		t.Fatalf("first event line %q, %v", line, err)
	}
	open := scrape(t, m)
	wantSample(t, open, `bridge_active_streams{face="a2a"}`, 1)

	close(release)
	io.Copy(io.Discard, resp.Body) // EOF: the handler and the middleware returned
	resp.Body.Close()

	body := scrape(t, m)
	wantSample(t, body, `bridge_active_streams{face="a2a"}`, 0)
	wantSample(t, body, `bridge_requests_total{face="a2a",method="SendMessage",outcome="2xx"}`, 2)
	wantSample(t, body, `bridge_requests_total{face="a2a",method="GetTask",outcome="4xx"}`, 1)
	wantSample(t, body, `bridge_requests_total{face="a2a",method="GET",outcome="5xx"}`, 1)
	wantSample(t, body, `bridge_requests_total{face="a2a",method="SendStreamingMessage",outcome="2xx"}`, 1)
	wantSample(t, body, `bridge_request_duration_seconds_count{face="a2a",method="SendMessage"}`, 2)
	wantSample(t, body, `bridge_request_duration_seconds_count{face="a2a",method="SendStreamingMessage"}`, 1)
	if !strings.Contains(body, "go_goroutines") {
		t.Error("Go runtime collector missing")
	}
}

// TestMetricsEventHooks feeds the task, upstream, store, policy, rate-limit
// and push hooks and finds their series.
func TestMetricsEventHooks(t *testing.T) {
	m := NewMetrics(prometheus.NewRegistry())
	var onEvent func(ctx context.Context, owner string, task *a2a.Task, ev a2a.StreamResponse) = m.OnTaskEvent
	task := &a2a.Task{ID: "t1", Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted}}
	ctx := context.Background()
	onEvent(ctx, "alice", task, a2a.StreamResponse{Task: task})
	for _, s := range []a2a.TaskState{a2a.TaskStateWorking, a2a.TaskStateWorking, a2a.TaskStateCompleted, "TASK_STATE_FROM_THE_FUTURE"} {
		onEvent(ctx, "alice", task, a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: "t1", Status: a2a.TaskStatus{State: s}}})
	}
	onEvent(ctx, "alice", task, a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{TaskID: "t1"}})
	m.UpstreamUp("weather", "front.a2a", true)
	m.UpstreamUp("files", "front.mcp", true)
	m.UpstreamUp("files", "front.mcp", false)
	m.UpstreamRestarted("files")
	m.StoreError("append")
	m.PolicyDecision("mcp", false)
	m.PolicyDecision("a2a", true)
	m.RateLimited("a2a", "per-user")
	m.PushDelivery(true)
	m.PushDelivery(false)
	m.PushDelivery(false)

	body := scrape(t, m)
	for _, tt := range []struct {
		series string
		want   float64
	}{
		{`bridge_task_transitions_total{state="submitted"}`, 1},
		{`bridge_task_transitions_total{state="working"}`, 2},
		{`bridge_task_transitions_total{state="completed"}`, 1},
		{`bridge_task_transitions_total{state="unknown"}`, 1},
		{`bridge_upstream_up{kind="front.a2a",upstream="weather"}`, 1},
		{`bridge_upstream_up{kind="front.mcp",upstream="files"}`, 0},
		{`bridge_upstream_restarts_total{upstream="files"}`, 1},
		{`bridge_store_errors_total{op="append"}`, 1},
		{`bridge_policy_decisions_total{decision="deny",face="mcp"}`, 1},
		{`bridge_policy_decisions_total{decision="allow",face="a2a"}`, 1},
		{`bridge_rate_limited_total{face="a2a",rule="per-user"}`, 1},
		{`bridge_push_deliveries_total{outcome="ok"}`, 1},
		{`bridge_push_deliveries_total{outcome="failed"}`, 2},
	} {
		wantSample(t, body, tt.series, tt.want)
	}
}

// TestMetricsLabelCardinalityFlood: a caller choosing method names (or
// sending unsafe ones) cannot grow the registry without bound.
func TestMetricsLabelCardinalityFlood(t *testing.T) {
	m := NewMetrics(prometheus.NewRegistry())
	h := m.Middleware("mcp", nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		SetMethod(r.Context(), r.URL.Query().Get("m"))
	}))
	for i := range 500 {
		r := httptest.NewRequest("POST", "/mcp?m=method-"+strconv.Itoa(i), nil)
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
	for _, bad := range []string{`x"} 1`, "a\nb", strings.Repeat("a", maxLabelLen+1), "méthode"} {
		r := httptest.NewRequest("POST", "/mcp", nil)
		q := r.URL.Query()
		q.Set("m", bad)
		r.URL.RawQuery = q.Encode()
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
	r := httptest.NewRequest("BREW", "/mcp", nil) // HTTP method fallback is bounded too
	h.ServeHTTP(httptest.NewRecorder(), r)

	body := scrape(t, m)
	n := strings.Count(body, "bridge_requests_total{face=\"mcp\"")
	if n != maxMethods+1 {
		t.Errorf("%d method series, want %d (the cap plus \"other\")", n, maxMethods+1)
	}
	wantSample(t, body, `bridge_requests_total{face="mcp",method="other",outcome="2xx"}`, 500-maxMethods+4+1)
}

// TestMetricsPanicCountsAsServerError: a handler that panics before
// writing counts as a 5xx, and the panic goes on to the server.
func TestMetricsPanicCountsAsServerError(t *testing.T) {
	m := NewMetrics(prometheus.NewRegistry())
	h := m.Middleware("a2a", nil, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	func() {
		defer func() {
			if recover() == nil {
				t.Error("panic swallowed")
			}
		}()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/x", nil))
	}()
	wantSample(t, scrape(t, m), `bridge_requests_total{face="a2a",method="POST",outcome="5xx"}`, 1)
}

// TestNewMetricsTwiceOnOneRegistry: a second NewMetrics on the same
// registry shares the series instead of panicking.
func TestNewMetricsTwiceOnOneRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	a := NewMetrics(reg)
	b := NewMetrics(reg)
	a.StoreError("get")
	b.StoreError("get")
	wantSample(t, scrape(t, a), `bridge_store_errors_total{op="get"}`, 2)
}

// TestNilMetricsRecordsNothing: optional metrics need no nil checks.
func TestNilMetricsRecordsNothing(t *testing.T) {
	var m *Metrics
	m.StoreError("get")
	m.UpstreamUp("x", "publish", true)
	m.OnTaskEvent(context.Background(), "", nil, a2a.StreamResponse{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	if got := m.Middleware("a2a", nil, h); got == nil {
		t.Fatal("nil handler")
	}
}

func BenchmarkMetricsMiddleware(b *testing.B) {
	m := NewMetrics(prometheus.NewRegistry())
	h := m.Middleware("a2a", nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		SetMethod(r.Context(), "SendMessage")
	}))
	r := httptest.NewRequest("POST", "/a2a/x", nil)
	w := httptest.NewRecorder()
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(w, r)
	}
}

// TestToolAndSkillLabelsAreCapped: tool and skill labels stop growing at
// their caps (the rest count as "other"), and unsafe names are "other".
func TestToolAndSkillLabelsAreCapped(t *testing.T) {
	m := NewMetrics(prometheus.NewRegistry())
	for i := range maxTools + 50 {
		m.ToolCall("tool-"+strconv.Itoa(i), OutcomeOK, time.Millisecond)
		m.SkillCall("agent", "skill-"+strconv.Itoa(i), OutcomeError, time.Millisecond)
	}
	m.ToolCall("bad\"name", OutcomeToolError, time.Millisecond)
	body := scrape(t, m)
	if n := strings.Count(body, "bridge_tool_calls_total{"); n != maxTools+2 {
		t.Errorf("%d tool series, want %d (the cap, other/ok and other/tool_error)", n, maxTools+2)
	}
	if n := strings.Count(body, "bridge_skill_calls_total{"); n != maxSkills+1 {
		t.Errorf("%d skill series, want %d (the cap plus other)", n, maxSkills+1)
	}
	wantSample(t, body, `bridge_tool_calls_total{outcome="ok",tool="other"}`, 50)
	wantSample(t, body, `bridge_tool_calls_total{outcome="tool_error",tool="other"}`, 1)
	wantSample(t, body, `bridge_skill_calls_total{agent="agent",outcome="error",skill="other"}`, 50)
	wantSample(t, body, `bridge_tool_call_duration_seconds_count{tool="tool-0"}`, 1)
}
