package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/examples/demoagent"
	"github.com/a2a-mcp-bridge/bridge/gateway"
	"github.com/a2a-mcp-bridge/bridge/internal/syncbuf"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector/connectortest"
)

// steppedAgent reports WORKING "started", then one WORKING "step N" per
// value the test sends, and completes when the channel closes.
type steppedAgent struct{ steps chan int }

func (a *steppedAgent) Execute(ctx context.Context, _ *taskmanager.Request, u *taskmanager.Updater) error {
	if err := u.Working(ctx, "started"); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case n, ok := <-a.steps:
			if !ok {
				return u.Complete(ctx, "done")
			}
			if err := u.Working(ctx, fmt.Sprintf("step %d", n)); err != nil {
				return err
			}
		}
	}
}

func (a *steppedAgent) Cancel(context.Context, *taskmanager.Request, *taskmanager.Updater) error {
	return nil
}

// lockedBuffer is a log sink the server's goroutines share with the test.
type lockedBuffer struct{ syncbuf.Buffer }

// accessLines returns the access log lines of path.
func (l *lockedBuffer) accessLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.SplitSeq(l.String(), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if m["msg"] == "request" && m["path"] == path {
			out = append(out, m)
		}
	}
	return out
}

// releaseEnv is the bridge fronting a stepped A2A agent, streams released
// after 20ms of silence, its access log and metrics in reach, and a
// signal each time the handler of a streaming call returns.
type releaseEnv struct {
	agent    *steppedAgent
	bridge   *gateway.Bridge
	logs     *lockedBuffer
	reg      *prometheus.Registry
	handler  http.Handler  // the bridge's handler, with the return signal
	returned chan struct{} // a streaming call's handler returned (if anyone listens)
}

func newReleaseEnv(t testing.TB) *releaseEnv {
	t.Helper()
	return newReleaseEnvAfter(t, 20*time.Millisecond)
}

// newReleaseEnvAfter is newReleaseEnv with streams released after the
// given silence (0: never).
func newReleaseEnvAfter(t testing.TB, after time.Duration) *releaseEnv {
	t.Helper()
	old := server.SetStreamReleaseDelayForTests(after)
	t.Cleanup(func() { server.SetStreamReleaseDelayForTests(old) })
	e := &releaseEnv{agent: &steppedAgent{steps: make(chan int)}, logs: &lockedBuffer{}, reg: prometheus.NewRegistry(), returned: make(chan struct{}, 1)}

	mgr, err := taskmanager.New(taskmanager.Config{Store: store.NewMemory(), Executor: e.agent, Logger: quiet, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewUnstartedServer(nil)
	up.Listener = ln
	as, err := server.New(server.Config{Manager: mgr, Card: demoagent.Card("http://" + ln.Addr().String()), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	up.Config.Handler = as
	up.Start()
	t.Cleanup(func() { up.Close(); mgr.Wait() })

	// No limit on key checks per IP: the benchmark opens hundreds of
	// streams from one address.
	yaml := strings.Replace(frontYAML(up.URL, ""), "auth:\n", "auth:\n  ip_limit: {disable: true}\n", 1)
	cfg, err := config.Parse([]byte(yaml), "release.yaml")
	if err != nil {
		t.Fatal(err)
	}
	mcpSrv := connectortest.NewServer(connectortest.Options{})
	e.bridge, err = gateway.Build(context.Background(), cfg, gateway.Options{
		Logger: slog.New(slog.NewJSONHandler(e.logs, nil)), Registry: e.reg, PublicURL: "http://127.0.0.1:1", Store: store.NewMemory(),
		DialUpstream: func(ctx context.Context, c connector.Config) (*connector.Conn, error) {
			return connector.InProcess(ctx, mcpSrv.MCP, c)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.bridge.Close() })
	// Ends the upstream task before the bridge waits for its own.
	t.Cleanup(func() { e.finish() })
	h := e.bridge.Handler()
	// The writer goes through untouched: this only sees the handler return.
	e.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		if r.URL.Path == "/a2a/agent" {
			select {
			case e.returned <- struct{}{}:
			default:
			}
		}
	})
	return e
}

var finishOnce sync.Map // *steppedAgent -> struct{}

// finish completes the upstream task (once).
func (e *releaseEnv) finish() {
	if _, done := finishOnce.LoadOrStore(e.agent, struct{}{}); !done {
		close(e.agent.steps)
	}
}

// step has the upstream agent report "step n".
func (e *releaseEnv) step(t *testing.T, n int) {
	t.Helper()
	select {
	case e.agent.steps <- n:
	case <-time.After(10 * time.Second):
		t.Fatal("the agent did not take the step")
	}
}

// series reads one series from the bridge's registry (0 when absent).
func (e *releaseEnv) series(t *testing.T, name string, labels map[string]string) float64 {
	t.Helper()
	mfs, err := e.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if want, ok := labels[lp.GetName()]; ok && want != lp.GetValue() {
					continue next
				}
			}
			switch {
			case m.GetGauge() != nil:
				return m.GetGauge().GetValue()
			case m.GetCounter() != nil:
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

func (e *releaseEnv) activeStreams(t *testing.T) float64 {
	return e.series(t, "bridge_active_streams", map[string]string{"face": "a2a"})
}

func (e *releaseEnv) streamsCounted(t *testing.T) float64 {
	return e.series(t, "bridge_requests_total", map[string]string{"face": "a2a", "method": "SendStreamingMessage", "outcome": "2xx"})
}

// sseStream is a SendStreamingMessage stream read event by event.
type sseStream struct {
	t    *testing.T
	resp *http.Response
	sc   *bufio.Scanner
}

func openStream(t *testing.T, baseURL string) *sseStream {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"go"}]}}}`
	req, _ := http.NewRequest(http.MethodPost, baseURL+"/a2a/agent", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("A2A-Version", "1.0")
	req.Header.Set("Authorization", "Bearer "+aliceKey)
	resp, err := (&http.Transport{}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return &sseStream{t: t, resp: resp, sc: bufio.NewScanner(resp.Body)}
}

// next returns the next line that is not blank: an event's "data: ..." or
// a comment; "" at the end of the stream.
func (s *sseStream) next() string {
	s.t.Helper()
	for s.sc.Scan() {
		if line := s.sc.Text(); line != "" && line != ": keep-alive" {
			return line
		}
	}
	if err := s.sc.Err(); err != nil {
		s.t.Fatalf("the stream broke: %v", err)
	}
	return ""
}

// until reads events until one contains want.
func (s *sseStream) until(want string) {
	s.t.Helper()
	for {
		line := s.next()
		if line == "" {
			s.t.Fatalf("the stream ended before %q", want)
		}
		if strings.Contains(line, want) {
			return
		}
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (e *releaseEnv) waitReturned(t *testing.T) {
	t.Helper()
	select {
	case <-e.returned:
	case <-time.After(10 * time.Second):
		t.Fatal("the stream's handler did not return: the stream was not released")
	}
}

// TestIdleStreamIsReleasedThroughTheGatewayMiddleware: an idle A2A stream
// served through the whole gateway handler (access log, panic recovery,
// drain tracking, span, metrics) is released from net/http: its connection
// is taken over and its handler returns while the stream stays open. The
// events go on arriving, in order; the stream is still an active stream
// and is logged and counted, once, only when it ends, with its whole
// duration.
func TestIdleStreamIsReleasedThroughTheGatewayMiddleware(t *testing.T) {
	e := newReleaseEnv(t)
	hijacked := make(chan struct{}, 1)
	srv := httptest.NewUnstartedServer(e.handler)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateHijacked {
			hijacked <- struct{}{}
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)

	s := openStream(t, srv.URL)
	s.until("started")
	seenOpen := time.Now()
	select {
	case <-hijacked:
	case <-time.After(10 * time.Second):
		t.Fatal("the stream's connection was not taken over")
	}
	e.waitReturned(t)
	if n := len(e.logs.accessLines(t, "/a2a/agent")); n != 0 {
		t.Fatalf("%d access log lines while the stream is open", n)
	}
	if a, c := e.activeStreams(t), e.streamsCounted(t); a != 1 || c != 0 {
		t.Fatalf("while released: %v active streams, %v counted; want 1, 0", a, c)
	}

	for n := 1; n <= 3; n++ {
		e.step(t, n)
		if line := s.next(); !strings.Contains(line, fmt.Sprintf(`"step %d"`, n)) {
			t.Fatalf("event %d after the release: %.300s", n, line)
		}
	}
	lasted := time.Since(seenOpen) // the request lasts at least as long
	e.finish()
	s.until("TASK_STATE_COMPLETED")
	if line := s.next(); line != "" {
		t.Fatalf("after the last event: %.300s", line)
	}

	waitFor(t, "the access log line", func() bool { return len(e.logs.accessLines(t, "/a2a/agent")) > 0 })
	waitFor(t, "the stream counted", func() bool { return e.streamsCounted(t) > 0 })
	time.Sleep(20 * time.Millisecond) // time for a second line or count to show
	lines := e.logs.accessLines(t, "/a2a/agent")
	if len(lines) != 1 {
		t.Fatalf("%d access log lines, want 1: %v", len(lines), lines)
	}
	l := lines[0]
	d, err := time.ParseDuration(fmt.Sprint(l["duration"]))
	if l["method"] != "SendStreamingMessage" || l["status"] != float64(http.StatusOK) || l["who"] == "" || err != nil || d < lasted {
		t.Fatalf("access log line %v: want SendStreamingMessage, 200, alice, and a duration of at least %v", l, lasted)
	}
	if a, c := e.activeStreams(t), e.streamsCounted(t); a != 0 || c != 1 {
		t.Fatalf("after the end: %v active streams, %v counted; want 0, 1", a, c)
	}
}

// TestDrainTellsReleasedStreamServerIsGoingAway: SIGTERM with a released
// stream open: the stream gets the going-away comment through its own
// writer, stays open through the grace (its task may still end), then
// ends cleanly when the grace expires; it is logged and no longer counted
// as active.
func TestDrainTellsReleasedStreamServerIsGoingAway(t *testing.T) {
	e := newReleaseEnv(t)
	l := &gateway.Listener{Addr: "127.0.0.1:0", Grace: 500 * time.Millisecond, Log: quiet, Handler: e.handler, OnDrain: e.bridge.GoingAway}
	if err := l.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	served := make(chan error, 1)
	go func() { served <- l.Serve(ctx) }()

	s := openStream(t, "http://"+l.BoundAddr())
	s.until("started")
	e.waitReturned(t)
	if a := e.activeStreams(t); a != 1 {
		t.Fatalf("%v active streams, want the released one", a)
	}

	stop() // what SIGTERM does in bridge serve
	if line := s.next(); line != strings.TrimSpace(gateway.GoingAwayComment) {
		t.Fatalf("first line after the drain began: %.300q, want the going-away comment", line)
	}
	if line := s.next(); line != "" {
		t.Fatalf("after the going-away comment: %.300q, want the end of the stream", line)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the drain did not end")
	}
	// Serve returned only once the released stream had finished: its log
	// line and metrics are already there (a process exiting now loses
	// nothing).
	lines := e.logs.accessLines(t, "/a2a/agent")
	if len(lines) != 1 || lines[0]["status"] != float64(http.StatusOK) {
		t.Fatalf("access log lines when the drain ended: %v, want one with status 200", lines)
	}
	if e.activeStreams(t) != 0 || e.streamsCounted(t) != 1 {
		t.Fatalf("when the drain ended: %v active streams, %v counted; want 0 and 1", e.activeStreams(t), e.streamsCounted(t))
	}
}
