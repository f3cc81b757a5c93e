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
