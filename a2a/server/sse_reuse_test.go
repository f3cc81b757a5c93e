//go:build !bridge_nosserelease

package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"slices"
	"strings"
	"testing"
	"time"
)

// expectServed sends req on the stream's connection, after its end, and
// reads the answer: it must come, with the status given.
func (rs *rawStream) expectServed(req string, status int) string {
	rs.t.Helper()
	_ = rs.c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(rs.c, req); err != nil {
		rs.t.Fatalf("the next request on the connection: %v", err)
	}
	return rs.expectResponse(status)
}

// expectResponse reads the next response on the stream's connection.
func (rs *rawStream) expectResponse(status int) string {
	rs.t.Helper()
	_ = rs.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(rs.br, nil)
	if err != nil {
		rs.t.Fatalf("no answer to the next request on the connection: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != status {
		rs.t.Fatalf("answer to the next request: %d %q %v, want %d", resp.StatusCode, b, err, status)
	}
	return string(b)
}

// expectClosed reads the connection's end (the server closed it), with
// nothing before it.
func (rs *rawStream) expectClosed(within time.Duration) {
	rs.t.Helper()
	_ = rs.c.SetReadDeadline(time.Now().Add(within))
	b, err := io.ReadAll(rs.br)
	if err != nil || len(b) > 0 {
		rs.t.Fatalf("after the stream: %q %v, want the connection closed", b, err)
	}
}

// endReleased releases the stream, then completes the task and reads the
// stream to its last chunk.
func endReleased(env *releaseEnv, rs *rawStream) {
	env.t.Helper()
	rs.event()
	env.waitFor("the release", func() bool { return env.released() == 1 })
	completeTask(env, rs)
	if c := rs.chunk(); c != "" {
		env.t.Fatalf("after the last event: %.100q, want the last chunk", c)
	}
}

// A client may send its next request the moment it has read a response's
// last chunk. When a released stream closed its connection there, that
// request (a POST, which no client retries) failed with EOF.
func TestRequestSentTheMomentAReleasedStreamEndsIsServed(t *testing.T) {
	env := newReleaseEnv(t, 20*time.Millisecond, nil, nil, nil)
	rs := env.subscribe()
	endReleased(env, rs)
	for i := 0; i < 3; i++ {
		if b := rs.expectServed(env.rpcRequest("GetTask", ""), http.StatusOK); !strings.Contains(b, "TASK_STATE_COMPLETED") {
			t.Fatalf("GetTask on the stream's connection: %s", b)
		}
	}
	env.waitFor("the follower to stop", func() bool { return env.followersStopped() && env.released() == 0 })
}

// The same through net/http's client: it puts the connection back in its
// pool after the last chunk and sends the next POST on it.
func TestHTTPClientReusesTheConnectionOfAReleasedStream(t *testing.T) {
	env := newReleaseEnv(t, 20*time.Millisecond, nil, nil, nil)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	defer client.CloseIdleConnections()
	post := func(ctx context.Context, method string) *http.Response {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":{"id":%q}}`, method, env.taskID)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, env.hs.URL, strings.NewReader(body))
		req.Header.Set("A2A-Version", "1.0")
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		return resp
	}
	resp := post(context.Background(), "SubscribeToTask")
	first := make([]byte, 1)
	if _, err := io.ReadFull(resp.Body, first); err != nil {
		t.Fatal(err)
	}
	env.waitFor("the release", func() bool { return env.released() == 1 })
	close(env.exec.steps)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || !strings.Contains(string(b), "TASK_STATE_COMPLETED") {
		t.Fatalf("stream %q: %v", b, err)
	}
	for i := 0; i < 3; i++ {
		reused := false
		ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused }})
		resp := post(ctx, "GetTask")
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "TASK_STATE_COMPLETED") {
			t.Fatalf("GetTask after the stream: %d %s", resp.StatusCode, b)
		}
		if !reused {
			t.Fatalf("request %d after the stream went on a new connection: the stream's was not kept", i)
		}
	}
}

// A client that pipelines its next request while the stream is open gets
// it answered after the stream, in order.
func TestRequestPipelinedDuringAReleasedStreamIsAnsweredAfterIt(t *testing.T) {
	env := newReleaseEnv(t, 20*time.Millisecond, nil, nil, nil)
	rs := env.subscribe()
	rs.event()
	env.waitFor("the release", func() bool { return env.released() == 1 })
	if _, err := io.WriteString(rs.c, env.rpcRequest("GetTask", "")); err != nil {
		t.Fatal(err)
	}
	completeTask(env, rs)
	if c := rs.chunk(); c != "" {
		t.Fatalf("after the last event: %.100q, want the last chunk", c)
	}
	if b := rs.expectResponse(http.StatusOK); !strings.Contains(b, `"id":7`) {
		t.Fatalf("pipelined GetTask: %s", b)
	}
}

// A GET subscription may carry a body, which the server does not read.
// Were the connection reused after the stream, that body would be parsed
// as a request of its own: a request smuggled past whatever checked the
// GET (a proxy sharing connections, say).
func TestUnreadBodyOfAReleasedSubscriptionIsNeverTakenForARequest(t *testing.T) {
	env := newReleaseEnv(t, 20*time.Millisecond, nil, nil, nil)
	smuggled := env.rpcRequest("CancelTask", "")
	req := fmt.Sprintf("GET /rest/tasks/%s:subscribe HTTP/1.1\r\nHost: x\r\nA2A-Version: 1.0\r\nContent-Length: %d\r\n\r\n%s", env.taskID, len(smuggled), smuggled)
	rs, h := env.subscribeWith(env.dial(), req)
	if !strings.EqualFold(h.Get("Connection"), "close") {
		t.Fatalf("a stream whose request was not read to its end does not announce Connection: close: %v", h)
	}
	rs.chunk() // the task (a REST event: no JSON-RPC envelope)
	env.waitFor("the release", func() bool { return env.released() == 1 })
	close(env.exec.steps)
	last := ""
	for c := rs.chunk(); c != ""; c = rs.chunk() {
		last = c
	}
	if !strings.Contains(last, "TASK_STATE_COMPLETED") {
		t.Fatalf("last event %.200q, want COMPLETED (the smuggled cancel must not run)", last)
	}
	rs.expectClosed(5 * time.Second)
}

// A middleware that cuts the body short (another reader in its place)
// leaves the rest on the connection: more than net/http drains, which it
// answers by closing the connection, unseen by the handler. That rest
// must not be served as a request once the stream ends. A body of no
// declared length (chunked) cannot be told from one cut short.
func TestBodyCutShortByAMiddlewareIsNeverTakenForARequest(t *testing.T) {
	for _, tc := range []struct {
		name string
		cut  bool
	}{
		{"cut short by a middleware", true},
		{"chunked", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var bodyLen int64
			env := newReleaseEnv(t, 20*time.Millisecond, nil, func(h http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if tc.cut {
						r.Body = io.NopCloser(io.LimitReader(r.Body, bodyLen))
					}
					h.ServeHTTP(w, r)
				})
			}, nil)
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"SubscribeToTask","params":{"id":%q}}`, env.taskID)
			bodyLen = int64(len(body))
			cancelBody := fmt.Sprintf(`{"jsonrpc":"2.0","id":9,"method":"CancelTask","params":{"id":%q}}`, env.taskID) + strings.Repeat(" ", 300<<10)
			smuggled := fmt.Sprintf("POST / HTTP/1.1\r\nHost: x\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(cancelBody), cancelBody)
			var req string
			if tc.cut {
				req = fmt.Sprintf("POST / HTTP/1.1\r\nHost: x\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s%s", len(body)+len(smuggled), body, smuggled)
			} else {
				req = fmt.Sprintf("POST / HTTP/1.1\r\nHost: x\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(body), body)
			}
			c := env.dial()
			if !tc.cut {
				rs, h := env.subscribeWith(c, req)
				if !strings.EqualFold(h.Get("Connection"), "close") {
					t.Fatalf("a stream after a chunked request does not announce Connection: close: %v", h)
				}
				endReleased(env, rs)
				rs.expectClosed(5 * time.Second)
				return
			}
			// The request is larger than the socket buffers take while
			// the server reads only its first part: write it aside.
			go func() { _, _ = io.WriteString(c, req) }()
			rs, _ := env.subscribeWith(c, "")
			rs.event()
			env.waitFor("the release", func() bool { return env.released() == 1 })
			close(env.exec.steps)
			for {
				ev := rs.event()
				if s := string(ev["statusUpdate"]); strings.Contains(s, "TASK_STATE_COMPLETED") {
					break
				} else if strings.Contains(s, "TASK_STATE_CANCELED") {
					t.Fatal("the rest of the body was served as a request: the task was canceled")
				}
			}
			if c := rs.chunk(); c != "" {
				t.Fatalf("after the last event: %.100q, want the last chunk", c)
			}
			rs.expectClosed(5 * time.Second)
		})
	}
}

// Server.Close closes a connection handed back after its stream that
// waits for a request, as it closes idle connections.
func TestServerCloseClosesTheIdleConnectionOfAnEndedReleasedStream(t *testing.T) {
	env := newReleaseEnv(t, 20*time.Millisecond, nil, nil, nil)
	rs := env.subscribe()
	endReleased(env, rs)
	env.waitFor("the stream to end", func() bool { return env.released() == 0 })
	if err := env.hs.Config.Close(); err != nil {
		t.Fatal(err)
	}
	rs.expectClosed(5 * time.Second)
}

// The wrappers' ends of a stream run before its connection serves the
// next request, as a handler returns before net/http reads the next one.
func TestNextRequestAfterAReleasedStreamComesAfterItsEnds(t *testing.T) {
	log := &releaseLog{writes: map[string]func([]byte) error{}}
	chain := wrapChain(log, "observing")
	env := newReleaseEnv(t, 20*time.Millisecond, nil, func(h http.Handler) http.Handler {
		h = chain(h)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.Contains(r.Header.Get("X-Test"), "subscribe") {
				log.add("next request")
			}
			h.ServeHTTP(w, r)
		})
	}, nil)
	rs, _ := env.subscribeWith(env.dial(), env.rpcRequest("SubscribeToTask", "X-Test: subscribe\r\n"))
	endReleased(env, rs)
	rs.expectServed(env.rpcRequest("GetTask", ""), http.StatusOK)
	got := log.get()
	if i, j := slices.Index(got, "end observing0"), slices.Index(got, "next request"); i < 0 || j < i {
		t.Fatalf("log %q: the next request was served before the stream's end", got)
	}
}

// A client that asked for the connection to close after the response,
// or a response that told the client so (a middleware's Connection:
// close), has it closed after a released stream too: no other request
// follows on it.
func TestReleasedStreamClosesTheConnectionWhenConnectionCloseWasSaid(t *testing.T) {
	for _, tc := range []struct {
		name  string
		extra string // the request's extra header lines
		wrap  func(http.Handler) http.Handler
	}{
		{"by the client", "Connection: close\r\n", nil},
		{"by the response", "", func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Connection", "close")
				h.ServeHTTP(w, r)
			})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newReleaseEnv(t, 20*time.Millisecond, nil, tc.wrap, nil)
			rs, h := env.subscribeWith(env.dial(), env.rpcRequest("SubscribeToTask", tc.extra))
			if !strings.EqualFold(h.Get("Connection"), "close") {
				t.Fatalf("response headers %v, want Connection: close", h)
			}
			endReleased(env, rs)
			rs.expectClosed(5 * time.Second)
		})
	}
}

// A connection handed back after its stream waits for a request no longer
// than the server keeps any idle connection.
func TestIdleConnectionOfAnEndedReleasedStreamIsClosedAtTheIdleTimeout(t *testing.T) {
	const idle = 150 * time.Millisecond
	env := newReleaseEnv(t, 20*time.Millisecond, nil, nil, func(s *httptest.Server) {
		s.Config.IdleTimeout = idle
		s.Start()
	})
	rs := env.subscribe()
	endReleased(env, rs)
	ended := time.Now()
	rs.expectClosed(10 * time.Second)
	if waited := time.Since(ended); waited < idle/2 {
		t.Fatalf("closed %s after the stream, before the idle timeout (%s)", waited, idle)
	}
}

// Shutdown closes the connection of an ended stream waiting for a request,
// as it closes idle connections, and does not wait for it.
func TestShutdownClosesTheIdleConnectionOfAnEndedReleasedStream(t *testing.T) {
	env := newReleaseEnv(t, 20*time.Millisecond, nil, nil, nil)
	rs := env.subscribe()
	endReleased(env, rs)
	env.waitFor("the stream to end", func() bool { return env.released() == 0 })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := env.hs.Config.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	rs.expectClosed(5 * time.Second)
}
