//go:build !bridge_nosserelease

package gateway_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/gateway"
	"github.com/a2a-mcp-bridge/bridge/gateway/listener"
)

// The release of idle streams through the gateway's middleware (not built
// under bridge_nosserelease, where streams stay with net/http).

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
	l := &listener.Listener{Addr: "127.0.0.1:0", Grace: 500 * time.Millisecond, Log: quiet, Handler: e.handler, OnDrain: e.bridge.GoingAway}
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
