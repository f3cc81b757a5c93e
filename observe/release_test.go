package observe

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
)

// releasingHandler stands for the a2a server releasing an event stream:
// it opens the stream, tells every writer of the chain it was given (as
// a2a does, in Unwrap order) and returns; ends collects what the wrappers
// want run when the stream ends.
type releasingHandler struct {
	mu   sync.Mutex
	ends []func()
	// before, if set, runs the ends before the handler returns, as a
	// stream that ends at once does from its own goroutine.
	before bool
}

func (h *releasingHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	SetMethod(r.Context(), "SubscribeToTask")
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, "data: {}\n\n")
	// The chain is walked before anyone is told: a wrapper told lets go
	// of the writer it wraps.
	var observers []server.StreamReleaseObserver
	for cur := w; ; {
		o, ok := cur.(server.StreamReleaseObserver)
		if !ok {
			break
		}
		observers = append(observers, o)
		cur = cur.(interface{ Unwrap() http.ResponseWriter }).Unwrap()
	}
	var ends []func()
	for _, o := range observers {
		if end := o.StreamReleased(func([]byte) error { return nil }); end != nil {
			ends = append(ends, end)
		}
	}
	if h.before {
		var wg sync.WaitGroup
		wg.Go(func() { runAll(ends) })
		wg.Wait()
		ends = nil
	}
	h.mu.Lock()
	h.ends = ends
	h.mu.Unlock()
}

func runAll(ends []func()) {
	for _, end := range ends {
		end()
	}
}

// streamSeries are the series a stream moves, read from one scrape.
type streamSeries struct{ active, requests, durations float64 }

func streamSeriesOf(t *testing.T, m *Metrics, method string) streamSeries {
	t.Helper()
	body := scrape(t, m)
	var s streamSeries
	s.active, _ = sample(body, `bridge_active_streams{face="a2a"}`)
	s.requests, _ = sample(body, fmt.Sprintf(`bridge_requests_total{face="a2a",method=%q,outcome="2xx"}`, method))
	s.durations, _ = sample(body, fmt.Sprintf(`bridge_request_duration_seconds_count{face="a2a",method=%q}`, method))
	return s
}

// spanEnded returns the ended span named name, if any, and how many there
// are.
func spanEnded(spans []sdktrace.ReadOnlySpan, name string) (sdktrace.ReadOnlySpan, int) {
	var found sdktrace.ReadOnlySpan
	n := 0
	for _, s := range spans {
		if s.Name() == name {
			found = s
			n++
		}
	}
	return found, n
}

func statusOf(s sdktrace.ReadOnlySpan) int64 {
	for _, kv := range s.Attributes() {
		if kv.Key == attribute.Key("http.response.status_code") {
			return kv.Value.AsInt64()
		}
	}
	return 0
}

// TestReleasedStreamIsCountedAndTracedWhenItEnds: a released stream stays
// an active stream, uncounted, with its span open, after its handler has
// returned; its end counts it and ends its span, once, whether it ends
// after the handler returned or before.
func TestReleasedStreamIsCountedAndTracedWhenItEnds(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before bool
	}{
		{"the stream ends after the handler returned", false},
		{"the stream ends before the handler returned", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sr := recordSpans(t)
			m := NewMetrics(prometheus.NewRegistry())
			rh := &releasingHandler{before: tc.before}
			h := Wrap("a2a", m, nil, rh)
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/a2a/x", nil))
			if !tc.before {
				if got := streamSeriesOf(t, m, "SubscribeToTask"); got != (streamSeries{active: 1}) {
					t.Fatalf("released, not ended: %+v, want one active stream and nothing counted", got)
				}
				if _, n := spanEnded(sr.Ended(), "a2a SubscribeToTask"); n != 0 {
					t.Fatal("the span ended with the handler")
				}
				rh.mu.Lock()
				ends := rh.ends
				rh.mu.Unlock()
				if len(ends) != 2 {
					t.Fatalf("%d ends, want the metrics' and the trace's", len(ends))
				}
				var wg sync.WaitGroup
				wg.Go(func() { runAll(ends) }) // from the stream's goroutine
				wg.Wait()
			}
			if got := streamSeriesOf(t, m, "SubscribeToTask"); got != (streamSeries{active: 0, requests: 1, durations: 1}) {
				t.Fatalf("after the end: %+v, want no active stream and the request counted once", got)
			}
			s, n := spanEnded(sr.Ended(), "a2a SubscribeToTask")
			if n != 1 || statusOf(s) != http.StatusOK {
				t.Fatalf("%d spans ended, status %d; want one, 200", n, statusOf(s))
			}
		})
	}
}

// heldTask reports WORKING, then completes when its channel closes.
type heldTask struct{ done chan struct{} }

func (e *heldTask) Execute(ctx context.Context, _ *taskmanager.Request, u *taskmanager.Updater) error {
	if err := u.Working(ctx, "held"); err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return nil
	case <-e.done:
		return u.Complete(ctx, "done")
	}
}

func (e *heldTask) Cancel(context.Context, *taskmanager.Request, *taskmanager.Updater) error {
	return nil
}

// TestA2AStreamThroughTheMiddlewares: an a2a stream behind Wrap, idle
// past the release delay, is released from net/http (its connection taken
// over, its handler returned) or, under bridge_nosserelease, stays with its
// handler; either way it is an active stream with its span open while it
// lasts, and when it ends it is counted once, its duration the time until
// it opened, its span as long as it lasted, and its connection serves the
// next request.
func TestA2AStreamThroughTheMiddlewares(t *testing.T) {
	sr := recordSpans(t)
	m := NewMetrics(prometheus.NewRegistry())
	defer server.SetStreamReleaseDelayForTests(server.SetStreamReleaseDelayForTests(20 * time.Millisecond))
	exec := &heldTask{done: make(chan struct{})}
	mgr, err := taskmanager.New(taskmanager.Config{Store: store.NewMemory(), Executor: exec})
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	srv, err := server.New(server.Config{
		Manager: mgr, Card: &a2a.AgentCard{Name: "r", Version: "1", Capabilities: a2a.AgentCapabilities{Streaming: &yes}},
		Guard: func(ctx context.Context, c *server.Call) error { SetMethod(ctx, c.Method); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	returned := make(chan struct{}, 1)
	wrapped := Wrap("a2a", m, nil, srv)
	hs := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wrapped.ServeHTTP(w, r)
		select { // the first return is the one waited for
		case returned <- struct{}{}:
		default:
		}
	}))
	hijacked := make(chan struct{}, 1)
	hs.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateHijacked {
			hijacked <- struct{}{}
		}
	}
	hs.Start()
	var finish sync.Once
	complete := func() { finish.Do(func() { close(exec.done) }) }
	defer func() { complete(); hs.Close(); mgr.Wait() }() // a failed test does not leave the task held
	res, err := mgr.SendMessage(context.Background(), server.AnonymousOwner, &a2a.SendMessageRequest{
		Message:       &a2a.Message{MessageID: "m1", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("go")}},
		Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true},
	})
	if err != nil || res.Task == nil {
		t.Fatalf("send: %v %+v", err, res)
	}

	c, err := net.Dial("tcp", hs.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"SubscribeToTask","params":{"id":%q}}`, res.Task.ID)
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	br := bufio.NewReader(c)
	readUntil(t, br, "TASK_STATE_WORKING")
	opened := time.Now()
	if streamsReleased {
		for _, ch := range []chan struct{}{hijacked, returned} {
			select {
			case <-ch:
			case <-time.After(10 * time.Second):
				t.Fatal("the stream was not released")
			}
		}
	} else {
		// Ten times the release delay: a stream that were released
		// would have been by now.
		select {
		case <-hijacked:
			t.Fatal("the stream's connection was taken over under bridge_nosserelease")
		case <-returned:
			t.Fatal("the handler returned while its stream is open")
		case <-time.After(200 * time.Millisecond):
		}
	}
	if got := streamSeriesOf(t, m, "SubscribeToTask"); got != (streamSeries{active: 1}) {
		t.Fatalf("open: %+v, want one active stream and nothing counted", got)
	}
	if _, n := spanEnded(sr.Ended(), "a2a SubscribeToTask"); n != 0 {
		t.Fatal("the span ended while the stream is open")
	}

	// The span began before the first event was read and ends after the
	// task completes: it lasts at least as long as this.
	lasted := time.Since(opened)
	complete()
	readUntil(t, br, "TASK_STATE_COMPLETED")
	readUntil(t, br, "\r\n0\r\n\r\n") // the last chunk
	// The connection goes back to the server, through the middlewares.
	body = fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"GetTask","params":{"id":%q}}`, res.Task.ID)
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	next, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("the request after the stream, on its connection: %v", err)
	}
	b, _ := io.ReadAll(next.Body)
	next.Body.Close()
	if next.StatusCode != http.StatusOK || !strings.Contains(string(b), "TASK_STATE_COMPLETED") {
		t.Fatalf("the request after the stream: %d %s", next.StatusCode, b)
	}
	want := streamSeries{active: 0, requests: 1, durations: 1}
	var got streamSeries
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if got = streamSeriesOf(t, m, "SubscribeToTask"); got == want || time.Now().After(deadline) {
			break
		}
	}
	time.Sleep(20 * time.Millisecond) // time for a second count to show
	if got = streamSeriesOf(t, m, "SubscribeToTask"); got != want {
		t.Fatalf("after the end: %+v, want no active stream and the request counted once", got)
	}
	s, n := spanEnded(sr.Ended(), "a2a SubscribeToTask")
	if n != 1 || statusOf(s) != http.StatusOK {
		t.Fatalf("%d spans ended, status %d; want one, 200", n, statusOf(s))
	}
	if d := s.EndTime().Sub(s.StartTime()); d < lasted {
		t.Fatalf("the span lasted %v, less than the %v between reading the first event and completing the task", d, lasted)
	}
	sum, _ := sample(scrape(t, m), `bridge_request_duration_seconds_sum{face="a2a",method="SubscribeToTask"}`)
	if d := time.Duration(sum * float64(time.Second)); d >= s.EndTime().Sub(s.StartTime()) {
		t.Fatalf("duration %v is not the time until the stream opened (the stream lasted %v)", d, s.EndTime().Sub(s.StartTime()))
	}
}

// readUntil reads the stream until it has seen want.
func readUntil(t *testing.T, br *bufio.Reader, want string) {
	t.Helper()
	var seen strings.Builder
	for !strings.Contains(seen.String(), want) {
		line, err := br.ReadString('\n')
		seen.WriteString(line)
		if err != nil {
			t.Fatalf("stream ended before %s: %q: %v", want, seen.String(), err)
		}
	}
}
