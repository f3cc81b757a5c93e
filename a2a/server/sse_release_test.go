//go:build !bridge_nosserelease

package server_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
)

// stepper reports WORKING, then runs the steps the test sends until the
// channel closes (then completes) or the task is cancelled.
type stepper struct {
	steps chan func(context.Context, *taskmanager.Updater) error
}

func (e *stepper) Execute(ctx context.Context, _ *taskmanager.Request, u *taskmanager.Updater) error {
	if err := u.Working(ctx, "started"); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case f, ok := <-e.steps:
			if !ok {
				return u.Complete(ctx, "done")
			}
			if err := f(ctx, u); err != nil {
				return err
			}
		}
	}
}

func (e *stepper) Cancel(context.Context, *taskmanager.Request, *taskmanager.Updater) error {
	return nil
}

// watchCounter counts the store watches open, to see a stream's follower
// stop.
type watchCounter struct {
	taskmanager.Store
	open atomic.Int64
}

func (w *watchCounter) Watch(ctx context.Context, taskID string) (<-chan struct{}, func()) {
	ch, stop := w.Store.Watch(ctx, taskID)
	w.open.Add(1)
	var done atomic.Bool
	return ch, func() {
		if done.CompareAndSwap(false, true) {
			w.open.Add(-1)
		}
		stop()
	}
}

type releaseEnv struct {
	t      *testing.T
	base   int64 // watches open before any stream: the task's own
	hs     *httptest.Server
	store  *watchCounter
	exec   *stepper
	taskID string
}

// newReleaseEnv serves one agent with a long task, streams released after
// 20ms of silence (0: never).
func newReleaseEnv(t *testing.T, after time.Duration, mod func(*server.Config), wrap func(http.Handler) http.Handler, start func(*httptest.Server)) *releaseEnv {
	t.Helper()
	old := server.SetStreamReleaseDelayForTests(after)
	t.Cleanup(func() { server.SetStreamReleaseDelayForTests(old) })
	yes := true
	env := &releaseEnv{t: t, store: &watchCounter{Store: store.NewMemory()}, exec: &stepper{steps: make(chan func(context.Context, *taskmanager.Updater) error)}}
	mgr, err := taskmanager.New(taskmanager.Config{Store: env.store, Executor: env.exec, PollInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	scfg := server.Config{Manager: mgr, Card: &a2a.AgentCard{Name: "r", Version: "1", Capabilities: a2a.AgentCapabilities{Streaming: &yes}}}
	if mod != nil {
		mod(&scfg)
	}
	srv, err := server.New(scfg)
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = srv
	if wrap != nil {
		h = wrap(h)
	}
	env.hs = httptest.NewUnstartedServer(h)
	if start == nil {
		env.hs.Start()
	} else {
		start(env.hs)
	}
	res, err := mgr.SendMessage(context.Background(), server.AnonymousOwner, &a2a.SendMessageRequest{
		Message:       &a2a.Message{MessageID: "m1", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("go")}},
		Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true},
	})
	if err != nil || res.Task == nil {
		t.Fatalf("send: %v %+v", err, res)
	}
	env.taskID = res.Task.ID
	// The execution watches its task too (for cancellation); streams'
	// watches are counted from there.
	env.waitFor("the execution's watch", func() bool { return env.store.open.Load() == 1 })
	t.Cleanup(func() {
		_, _ = mgr.CancelTask(context.Background(), server.AnonymousOwner, &a2a.CancelTaskRequest{ID: env.taskID})
		env.hs.Close()
		mgr.Wait()
	})
	return env
}

// step runs f in the task's executor.
func (env *releaseEnv) step(f func(context.Context, *taskmanager.Updater) error) {
	env.t.Helper()
	select {
	case env.exec.steps <- f:
	case <-time.After(5 * time.Second):
		env.t.Fatal("the executor did not take the step")
	}
}

func (env *releaseEnv) released() int { return server.ReleasedStreams(env.hs.Config) }

// followersStopped reports whether the streams' store watches are closed.
func (env *releaseEnv) followersStopped() bool { return env.store.open.Load() <= env.base }

func (env *releaseEnv) waitFor(what string, cond func() bool) {
	env.t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			env.t.Fatalf("timed out waiting for %s (watches %d base %d released %d)", what, env.store.open.Load(), env.base, env.released())
		}
	}
}

// rawStream is a SubscribeToTask stream read straight off the socket, so
// the test sees the chunk framing.
type rawStream struct {
	t  *testing.T
	c  net.Conn
	br *bufio.Reader
}

func (env *releaseEnv) subscribe() *rawStream {
	env.t.Helper()
	rs, _ := env.subscribeWith(env.dial(), env.rpcRequest("SubscribeToTask", ""))
	return rs
}

// dial connects to the test server (over TLS when it serves TLS).
func (env *releaseEnv) dial() net.Conn {
	env.t.Helper()
	addr := env.hs.Listener.Addr().String()
	var c net.Conn
	var err error
	if env.hs.TLS != nil {
		c, err = tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true})
	} else {
		c, err = net.Dial("tcp", addr)
	}
	if err != nil {
		env.t.Fatal(err)
	}
	env.t.Cleanup(func() { c.Close() })
	return c
}

// rpcRequest is a whole HTTP/1.1 request calling method on the task, with
// the extra header lines given (each ending in CRLF).
func (env *releaseEnv) rpcRequest(method, extra string) string {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":%q,"params":{"id":%q}}`, method, env.taskID)
	return fmt.Sprintf("POST / HTTP/1.1\r\nHost: x\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n%s", extra, len(body), body)
}

// subscribeWith sends req, a request for a stream, on c and reads the
// response's head.
func (env *releaseEnv) subscribeWith(c net.Conn, req string) (*rawStream, http.Header) {
	env.t.Helper()
	env.base = 1
	if _, err := io.WriteString(c, req); err != nil {
		env.t.Fatal(err)
	}
	rs := &rawStream{t: env.t, c: c, br: bufio.NewReader(c)}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	status, err := rs.br.ReadString('\n')
	if err != nil || !strings.HasPrefix(status, "HTTP/1.1 200") {
		env.t.Fatalf("status %q: %v", status, err)
	}
	h := http.Header{}
	for {
		line, err := rs.br.ReadString('\n')
		if err != nil {
			env.t.Fatal(err)
		}
		if line == "\r\n" {
			break
		}
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
			h.Add(k, strings.TrimSpace(v))
		}
	}
	if !strings.EqualFold(h.Get("Transfer-Encoding"), "chunked") {
		env.t.Fatal("the stream is not chunked")
	}
	return rs, h
}

// chunk reads one chunk; "" is the last chunk (after which the trailer's
// CRLF has been read).
func (rs *rawStream) chunk() string {
	rs.t.Helper()
	_ = rs.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := rs.br.ReadString('\n')
	if err != nil || !strings.HasSuffix(line, "\r\n") {
		rs.t.Fatalf("chunk size line %q: %v", line, err)
	}
	n, err := strconv.ParseInt(strings.TrimSuffix(line, "\r\n"), 16, 64)
	if err != nil {
		rs.t.Fatalf("chunk size %q: %v", line, err)
	}
	data := make([]byte, n+2)
	if _, err := io.ReadFull(rs.br, data); err != nil {
		rs.t.Fatal(err)
	}
	if string(data[n:]) != "\r\n" {
		rs.t.Fatalf("chunk of %d bytes not followed by CRLF: %q", n, data[n:])
	}
	return string(data[:n])
}

// event reads chunks up to the next event, skipping keep-alives, and
// returns its JSON-RPC result. Every chunk must be exactly one event or
// one keep-alive, as net/http frames one flushed write.
func (rs *rawStream) event() map[string]json.RawMessage {
	rs.t.Helper()
	for {
		c := rs.chunk()
		if c == "" {
			rs.t.Fatal("the stream ended")
		}
		if c == server.KeepAliveComment {
			continue
		}
		if !strings.HasPrefix(c, "data: ") || !strings.HasSuffix(c, "\n\n") || strings.Count(c, "\n\n") != 1 {
			rs.t.Fatalf("chunk is not one event: %.200q", c)
		}
		var msg struct {
			Result map[string]json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(strings.TrimPrefix(c, "data: ")), &msg); err != nil {
			rs.t.Fatalf("event %.200q: %v", c, err)
		}
		return msg.Result
	}
}

func kindOf(ev map[string]json.RawMessage) string {
	for k := range ev {
		return k
	}
	return ""
}

func TestReleasedStreamFramesEventsAsNetHTTPDoes(t *testing.T) {
	big := strings.Repeat("x", 100_000) // larger than any net/http buffer
	for _, tc := range []struct {
		name  string
		after time.Duration
	}{
		{"attached", 0},
		{"released", 20 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newReleaseEnv(t, tc.after, nil, nil, nil)
			rs := env.subscribe()
			if k := kindOf(rs.event()); k != "task" {
				t.Fatalf("first event %s, want the task", k)
			}
			if tc.after > 0 {
				env.waitFor("the release", func() bool { return env.released() == 1 })
			} else {
				time.Sleep(50 * time.Millisecond)
				if env.released() != 0 {
					t.Fatal("released with releases off")
				}
			}
			env.step(func(ctx context.Context, u *taskmanager.Updater) error {
				return u.Artifact(ctx, a2a.Artifact{ArtifactID: "a", Parts: []a2a.Part{a2a.TextPart(big)}}, false, true)
			})
			ev := rs.event()
			if k := kindOf(ev); k != "artifactUpdate" || !strings.Contains(string(ev["artifactUpdate"]), big) {
				t.Fatalf("second event %s (%d bytes), want the whole artifact", k, len(ev[k]))
			}
			env.step(func(ctx context.Context, u *taskmanager.Updater) error { return u.Working(ctx, "still") })
			if k := kindOf(rs.event()); k != "statusUpdate" {
				t.Fatalf("third event %s, want a status update", k)
			}
			close(env.exec.steps)
			if ev := rs.event(); kindOf(ev) != "statusUpdate" || !strings.Contains(string(ev["statusUpdate"]), "TASK_STATE_COMPLETED") {
				t.Fatalf("last event %s, want COMPLETED", ev)
			}
			if c := rs.chunk(); c != "" {
				t.Fatalf("after the last event: %.100q, want the last chunk", c)
			}
			// Released or not, the connection serves the next request.
			rs.expectServed(env.rpcRequest("GetTask", ""), http.StatusOK)
			env.waitFor("the follower to stop", func() bool { return env.followersStopped() && env.released() == 0 })
		})
	}
}

func TestReleasedStreamKeepsAliveAndNoticesTheClientLeaving(t *testing.T) {
	env := newReleaseEnv(t, 20*time.Millisecond, func(c *server.Config) { c.KeepAlive = 30 * time.Millisecond }, nil, nil)
	rs := env.subscribe()
	rs.event()
	env.waitFor("the release", func() bool { return env.released() == 1 })
	for i := 0; i < 3; i++ {
		if c := rs.chunk(); c != server.KeepAliveComment {
			t.Fatalf("idle released stream sent %q, want keep-alives", c)
		}
	}
	rs.c.Close()
	env.waitFor("the follower to stop", func() bool { return env.followersStopped() && env.released() == 0 })
}

func TestSlowConsumerOfAReleasedStreamIsCutOffByTheWriteTimeout(t *testing.T) {
	env := newReleaseEnv(t, 20*time.Millisecond, func(c *server.Config) { c.WriteTimeout = 100 * time.Millisecond }, nil, nil)
	rs := env.subscribe()
	rs.event()
	env.waitFor("the release", func() bool { return env.released() == 1 })
	_ = rs.c.(*net.TCPConn).SetReadBuffer(4096)
	big := strings.Repeat("y", 1<<20)
	// The client reads nothing more: the socket buffers fill up and a
	// write times out, which must end the stream.
	go func() {
		for i := 0; i < 64; i++ {
			select {
			case env.exec.steps <- func(ctx context.Context, u *taskmanager.Updater) error {
				return u.Artifact(ctx, a2a.Artifact{ArtifactID: fmt.Sprint(i), Parts: []a2a.Part{a2a.TextPart(big)}}, false, true)
			}:
			case <-time.After(10 * time.Second):
				return
			}
			if env.followersStopped() {
				return
			}
		}
	}()
	env.waitFor("the stream to be cut off", func() bool { return env.followersStopped() && env.released() == 0 })
}

func TestShutdownEndsReleasedStreamsCleanly(t *testing.T) {
	env := newReleaseEnv(t, 20*time.Millisecond, nil, nil, nil)
	rs := env.subscribe()
	rs.event()
	env.waitFor("the release", func() bool { return env.released() == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := env.hs.Config.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if c := rs.chunk(); c != "" {
		t.Fatalf("after shutdown: %.100q, want the last chunk", c)
	}
	env.waitFor("the follower to stop", func() bool { return env.followersStopped() })
}

func TestStreamsStayWithNetHTTPWhenTheyCannotBeReleased(t *testing.T) {
	for _, tc := range []struct {
		name  string
		wrap  func(http.Handler) http.Handler
		start func(*httptest.Server)
		proto int
	}{
		{"HTTP/2", nil, func(s *httptest.Server) { s.EnableHTTP2 = true; s.StartTLS() }, 2},
		{"HTTP/1.1 over TLS", nil, func(s *httptest.Server) { s.StartTLS() }, 1},
		{"wrapped writer", func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				h.ServeHTTP(struct {
					http.ResponseWriter
					http.Flusher
					unwrapFunc
				}{w, w.(http.Flusher), func() http.ResponseWriter { return w }}, r)
			})
		}, nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newReleaseEnv(t, 20*time.Millisecond, nil, tc.wrap, tc.start)
			client := env.hs.Client()
			if tc.start != nil {
				client.Transport.(*http.Transport).TLSClientConfig = &tls.Config{InsecureSkipVerify: true}
				client.Transport.(*http.Transport).ForceAttemptHTTP2 = true
			}
			req, _ := http.NewRequest(http.MethodGet, env.hs.URL+"/rest/tasks/"+env.taskID+":subscribe", nil)
			req.Header.Set("A2A-Version", "1.0")
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.ProtoMajor != tc.proto {
				t.Fatalf("served over %s, want HTTP/%d", resp.Proto, tc.proto)
			}
			time.Sleep(100 * time.Millisecond)
			if n := env.released(); n != 0 {
				t.Fatalf("%d streams released", n)
			}
			close(env.exec.steps)
			b, err := io.ReadAll(resp.Body)
			if err != nil || !strings.Contains(string(b), "TASK_STATE_COMPLETED") {
				t.Fatalf("stream %q: %v", b, err)
			}
		})
	}
}

// unwrapFunc gives a test wrapper the Unwrap method of middleware writers.
type unwrapFunc func() http.ResponseWriter

func (f unwrapFunc) Unwrap() http.ResponseWriter { return f() }

// releaseLog records what a chain of observing wrappers saw, in order.
type releaseLog struct {
	mu     sync.Mutex
	events []string
	writes map[string]func([]byte) error
}

func (l *releaseLog) add(ev string) {
	l.mu.Lock()
	l.events = append(l.events, ev)
	l.mu.Unlock()
}

func (l *releaseLog) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

func (l *releaseLog) write(name string) func([]byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.writes[name]
}

// observingWriter is a middleware's writer that lets streams be released:
// it records the release and its end, and forgets the writer it wraps, so
// that any use of it after the release panics.
type observingWriter struct {
	http.ResponseWriter
	name string
	log  *releaseLog
}

func (w *observingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *observingWriter) StreamReleased(write func([]byte) error) func() {
	w.log.add("released " + w.name)
	w.log.mu.Lock()
	w.log.writes[w.name] = write
	w.log.mu.Unlock()
	w.ResponseWriter = nil
	name, log := w.name, w.log
	return func() { log.add("end " + name) }
}

// hijackFailingWriter stands for net/http's writer at the end of a chain
// (it has no Unwrap), but its Hijack fails, as a broken connection's
// would.
type hijackFailingWriter struct{ http.ResponseWriter }

func (w hijackFailingWriter) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

func (w hijackFailingWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return nil, nil, errors.New("test: the connection broke")
}

// plainWriter is a middleware's writer that knows nothing of releases.
type plainWriter struct{ http.ResponseWriter }

func (w *plainWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// wrapChain wraps h in one middleware per writer kind, so that the writer
// the server is given is kinds[0], which unwraps to kinds[1], and so on;
// the outermost middleware logs "return" when the handler has returned.
func wrapChain(log *releaseLog, kinds ...string) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		for i, kind := range kinds {
			name := fmt.Sprintf("%s%d", kind, i)
			next := h
			h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch kind {
				case "observing":
					w = &observingWriter{ResponseWriter: w, name: name, log: log}
				case "failing":
					w = hijackFailingWriter{w}
				case "plain":
					w = &plainWriter{w}
				}
				next.ServeHTTP(w, r)
			})
		}
		inner := h
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			inner.ServeHTTP(w, r)
			if r.Method == http.MethodPost {
				log.add("return")
			}
		})
	}
}

func TestStreamThroughObservingWrappers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		kinds []string
		// end ends the stream and reports whether the client saw its last
		// chunk (false: the client left).
		end  func(env *releaseEnv, rs *rawStream) bool
		want []string // the log once the stream has ended
	}{
		{"every wrapper observes; the task ends", []string{"observing", "observing"}, completeTask,
			[]string{"released observing0", "released observing1", "return", "end observing0", "end observing1"}},
		{"every wrapper observes; the client leaves", []string{"observing", "observing"},
			func(_ *releaseEnv, rs *rawStream) bool { rs.c.Close(); return false },
			[]string{"released observing0", "released observing1", "return", "end observing0", "end observing1"}},
		{"every wrapper observes; the server shuts down", []string{"observing", "observing"},
			func(env *releaseEnv, _ *rawStream) bool {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				if err := env.hs.Config.Shutdown(ctx); err != nil {
					env.t.Fatalf("shutdown: %v", err)
				}
				return true
			},
			[]string{"released observing0", "released observing1", "return", "end observing0", "end observing1"}},
		{"one wrapper does not observe", []string{"observing", "plain"}, completeTask, []string{"return"}},
		{"the takeover fails after the wrappers were told", []string{"observing", "observing", "failing"}, nil,
			[]string{"released observing0", "released observing1", "end observing0", "end observing1", "return"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := &releaseLog{writes: map[string]func([]byte) error{}}
			env := newReleaseEnv(t, 20*time.Millisecond, nil, wrapChain(log, tc.kinds...), nil)
			rs := env.subscribe()
			if k := kindOf(rs.event()); k != "task" {
				t.Fatalf("first event %s, want the task", k)
			}
			released := tc.want[0] != "return"
			switch {
			case !released:
				time.Sleep(100 * time.Millisecond)
				if n := env.released(); n != 0 || len(log.get()) != 0 {
					t.Fatalf("%d streams released, log %q", n, log.get())
				}
			case tc.end == nil:
				// The takeover failed: the stream ends through net/http.
				if c := rs.chunk(); c != "" {
					t.Fatalf("after a failed takeover: %.100q, want the last chunk", c)
				}
			default:
				env.waitFor("the release", func() bool { return env.released() == 1 && len(log.get()) == 3 })
				if got := log.get(); !slices.Equal(got, tc.want[:3]) {
					t.Fatalf("at the release: %q, want %q", got, tc.want[:3])
				}
				// A wrapper's write is one chunk among the events.
				if err := log.write("observing1")([]byte(": from a wrapper\n\n")); err != nil {
					t.Fatalf("write: %v", err)
				}
				if c := rs.chunk(); c != ": from a wrapper\n\n" {
					t.Fatalf("the wrapper's write arrived as %q", c)
				}
				env.step(func(ctx context.Context, u *taskmanager.Updater) error { return u.Working(ctx, "after") })
				if k := kindOf(rs.event()); k != "statusUpdate" {
					t.Fatalf("event after the release %s, want a status update", k)
				}
			}
			if tc.end != nil && tc.end(env, rs) {
				if c := rs.chunk(); c != "" {
					t.Fatalf("at the end: %.100q, want the last chunk", c)
				}
			}
			env.waitFor("the stream's end", func() bool { return len(log.get()) == len(tc.want) && env.released() == 0 })
			time.Sleep(30 * time.Millisecond) // time for an end run twice to show
			if got := log.get(); !slices.Equal(got, tc.want) {
				t.Fatalf("log %q, want %q", got, tc.want)
			}
			for name, write := range log.writes {
				if err := write([]byte(": late\n\n")); err == nil {
					t.Fatalf("%s wrote to the stream after its end", name)
				}
			}
		})
	}
}

// completeTask ends the task; the client reads up to its last event.
func completeTask(env *releaseEnv, rs *rawStream) bool {
	close(env.exec.steps)
	for {
		ev := rs.event()
		if kindOf(ev) == "statusUpdate" && strings.Contains(string(ev["statusUpdate"]), "TASK_STATE_COMPLETED") {
			return true
		}
	}
}
