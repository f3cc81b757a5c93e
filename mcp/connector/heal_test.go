package connector_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector/connectortest"
)

// restartable is an MCP server over streamable HTTP that keeps its
// sessions in memory, as most do: restart replaces it with a fresh
// instance that knows none of the sessions issued before, and answers them
// with unknown (404 as the spec says, or 400 as server-everything does).
type restartable struct {
	unknown int
	extra   string // extra tool of the next instance

	mu    sync.Mutex
	h     http.Handler
	known map[string]bool
	gen   int
}

func newRestartable(unknown int) *restartable {
	r := &restartable{unknown: unknown}
	r.restart()
	return r
}

func (r *restartable) restart() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.h = server.NewStreamableHTTPServer(connectortest.NewServer(connectortest.Options{ExtraTool: r.extra}).MCP)
	r.known = map[string]bool{}
	r.gen++
}

func (r *restartable) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	h := r.h
	sid := req.Header.Get(transport.HeaderKeySessionID)
	known := sid == "" || r.known[sid]
	r.mu.Unlock()
	if !known {
		if r.unknown == http.StatusBadRequest {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":1}`))
			return
		}
		http.Error(w, "Session not found", http.StatusNotFound)
		return
	}
	h.ServeHTTP(sessionRecorder{ResponseWriter: w, r: r}, req)
}

// sessionRecorder learns the session ids the current instance issues.
type sessionRecorder struct {
	http.ResponseWriter
	r *restartable
}

func (s sessionRecorder) WriteHeader(code int) {
	if sid := s.Header().Get(transport.HeaderKeySessionID); sid != "" {
		s.r.mu.Lock()
		s.r.known[sid] = true
		s.r.mu.Unlock()
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s sessionRecorder) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// TestHTTPServerRestartedLosesTheSession: an HTTP MCP server restarts and
// answers the old session 404 or 400. The first call after it fails once
// with ErrDied; the Conn re-initializes at once, and the next call works.
func TestHTTPServerRestartedLosesTheSession(t *testing.T) {
	for _, tt := range []struct {
		name    string
		unknown int
	}{
		{"404 session not found", http.StatusNotFound},
		{"400 no valid session id", http.StatusBadRequest},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newRestartable(tt.unknown)
			ts := httptest.NewServer(srv)
			defer ts.Close()
			var restarts atomic.Int32
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c, err := connector.Dial(ctx, connector.Config{
				Name: "http", ProtocolVersion: connector.Era20251125, Logger: quiet, MinBackoff: 10 * time.Millisecond,
				HTTP:      &connector.HTTPConfig{URL: ts.URL + "/mcp", Client: ts.Client()},
				OnRestart: func(string) { restarts.Add(1) },
			})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			changed := make(chan []connector.Tool, 4)
			c.OnToolsChanged(func(ts []connector.Tool) { changed <- ts })
			if _, err := c.CallTool(ctx, "echo", json.RawMessage(`{"text":"before"}`), nil, nil); err != nil {
				t.Fatal(err)
			}
			srv.extra = "added"
			srv.restart()
			_, err = c.CallTool(ctx, "echo", json.RawMessage(`{"text":"lost"}`), nil, nil)
			if !errors.Is(err, connector.ErrDied) {
				t.Fatalf("first call after the restart: err = %v, want ErrDied", err)
			}
			start := time.Now()
			raw, err := c.CallTool(ctx, "echo", json.RawMessage(`{"text":"after"}`), nil, nil)
			if err != nil {
				t.Fatalf("next call: %v", err)
			}
			if text(t, raw) != "after" {
				t.Fatalf("result %s", raw)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("next call took %s: the reconnect waited", d)
			}
			if n := restarts.Load(); n != 1 {
				t.Errorf("OnRestart fired %d times, want 1", n)
			}
			select {
			case ts := <-changed:
				if !hasTool(ts, "added") {
					t.Errorf("re-read list has no tool %q", "added")
				}
			case <-ctx.Done():
				t.Fatal("the re-read tool list never reached the listener")
			}
		})
	}
}

func hasTool(ts []connector.Tool, name string) bool {
	for _, t := range ts {
		if t.Name == name {
			return true
		}
	}
	return false
}

// TestServerDownAtOpenIsRetriedUntilUp: Open returns a Conn for a server
// that is not listening yet; calls fail at once with ErrUnavailable and
// Status says why; once the server listens, the Conn connects by itself,
// its listeners get the tool list, and calls work.
func TestServerDownAtOpenIsRetriedUntilUp(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var states atomic.Int32
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	c, err := connector.Open(ctx, connector.Config{
		Name: "late", Logger: quiet, MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond,
		ConnectWait:   50 * time.Millisecond,
		HTTP:          &connector.HTTPConfig{URL: "http://" + addr + "/mcp", Client: http.DefaultClient},
		OnStateChange: func() { states.Add(1) },
	})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer c.Close()
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Open took %s for a refused connection", d)
	}
	st := c.Status()
	if st.Connected || st.Err == nil {
		t.Fatalf("status of a server that is down: %+v", st)
	}
	if _, err := c.CallTool(ctx, "echo", json.RawMessage(`{"text":"x"}`), nil, nil); !errors.Is(err, connector.ErrUnavailable) {
		t.Fatalf("call while down: err = %v, want ErrUnavailable", err)
	}
	if err := c.Check(ctx); !errors.Is(err, connector.ErrUnavailable) {
		t.Fatalf("check while down: err = %v, want ErrUnavailable", err)
	}
	got := make(chan []connector.Tool, 4)
	c.OnToolsChanged(func(ts []connector.Tool) { got <- ts })

	l, err = net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("port %s taken meanwhile: %v", addr, err)
	}
	srv := &http.Server{Handler: server.NewStreamableHTTPServer(connectortest.NewServer(connectortest.Options{}).MCP)}
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()
	select {
	case ts := <-got:
		if !hasTool(ts, "echo") {
			t.Fatalf("first list reached the listener without echo: %d tools", len(ts))
		}
	case <-ctx.Done():
		t.Fatal("the server's tool list never reached the listener")
	}
	// The list reaches listeners just before the connection serves calls.
	bridgetest.Eventually(t, 10*time.Second, "the Conn connected", func() error {
		if st := c.Status(); !st.Connected {
			return fmt.Errorf("status %+v", st)
		}
		return nil
	})
	if st := c.Status(); !st.Connected || st.Err != nil || st.Tools == 0 {
		t.Fatalf("status once up: %+v", st)
	}
	if err := c.Check(ctx); err != nil {
		t.Fatalf("check once up: %v", err)
	}
	raw, err := c.CallTool(ctx, "echo", json.RawMessage(`{"text":"late"}`), nil, nil)
	if err != nil || text(t, raw) != "late" {
		t.Fatalf("call once up: %s, %v", raw, err)
	}
	if states.Load() < 2 {
		t.Errorf("OnStateChange fired %d times, want at least down and up", states.Load())
	}
	// Stopped again: the check notices, and the Conn goes down.
	srv.Close()
	bridgetest.Eventually(t, 10*time.Second, "the check fails after the server stopped", func() error {
		if c.Check(ctx) == nil {
			return errors.New("the check passes")
		}
		return nil
	})
	bridgetest.Eventually(t, 10*time.Second, "the Conn down after the server stopped", func() error {
		if c.Status().Connected {
			return errors.New("still connected")
		}
		return nil
	})
}

// TestHTTPServerGoneMidCallDiesOnce: the connection of a call whose answer
// streams (progress first) breaks before the answer. The call fails with
// ErrDied, the Conn reconnects, and the next call works.
func TestHTTPServerGoneMidCallDiesOnce(t *testing.T) {
	for _, era := range []string{connector.Era20251125, connector.Era20260728} {
		t.Run(era, func(t *testing.T) {
			srv := connectortest.NewServer(connectortest.Options{})
			ts := httptest.NewServer(server.NewStreamableHTTPServer(srv.MCP))
			defer ts.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c, err := connector.Dial(ctx, connector.Config{
				Name: "http", ProtocolVersion: era, Logger: quiet, MinBackoff: 10 * time.Millisecond,
				HTTP: &connector.HTTPConfig{URL: ts.URL + "/mcp", Client: ts.Client()},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			errc := make(chan error, 1)
			go func() {
				_, err := c.CallTool(ctx, "block", nil, func(float64, float64, string) {}, nil)
				errc <- err
			}()
			select {
			case <-srv.Started():
			case <-ctx.Done():
				t.Fatal("block never started")
			}
			ts.CloseClientConnections()
			select {
			case err := <-errc:
				if !errors.Is(err, connector.ErrDied) {
					t.Fatalf("call in flight: err = %v, want ErrDied", err)
				}
			case <-ctx.Done():
				t.Fatal("the call in flight never ended")
			}
			raw, err := c.CallTool(ctx, "echo", json.RawMessage(`{"text":"next"}`), nil, nil)
			if err != nil || text(t, raw) != "next" {
				t.Fatalf("next call: %s, %v", raw, err)
			}
		})
	}
}

// swappable is an http.Handler the test replaces (a server restarted on
// the same address).
type swappable struct {
	mu sync.Mutex
	h  http.Handler
}

func (s *swappable) set(h http.Handler) { s.mu.Lock(); s.h = h; s.mu.Unlock() }

func (s *swappable) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	h := s.h
	s.mu.Unlock()
	h.ServeHTTP(w, r)
}

// TestSSEServerRestartedIsReconnected: a legacy HTTP+SSE server restarts
// (its event stream breaks, its sessions are gone). At most one call fails;
// the Conn opens a new stream and session, and calls work again.
func TestSSEServerRestartedIsReconnected(t *testing.T) {
	h := &swappable{}
	ts := httptest.NewServer(h)
	defer ts.Close()
	h.set(server.NewSSEServer(connectortest.NewServer(connectortest.Options{}).MCP, server.WithBaseURL(ts.URL)))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var restarts atomic.Int32
	c, err := connector.Dial(ctx, connector.Config{
		Name: "sse", Logger: quiet, MinBackoff: 10 * time.Millisecond,
		SSE:       &connector.HTTPConfig{URL: ts.URL + "/sse", Client: ts.Client()},
		OnRestart: func(string) { restarts.Add(1) },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.CallTool(ctx, "echo", json.RawMessage(`{"text":"before"}`), nil, nil); err != nil {
		t.Fatal(err)
	}
	h.set(server.NewSSEServer(connectortest.NewServer(connectortest.Options{}).MCP, server.WithBaseURL(ts.URL)))
	ts.CloseClientConnections()
	// Paced at 20ms on purpose: the test counts the failed calls, so the
	// pause between them is part of what it asserts (not a wait for a
	// condition; bridgetest.Eventually's growing pauses would change it).
	failures := 0
	for {
		raw, err := c.CallTool(ctx, "echo", json.RawMessage(`{"text":"after"}`), nil, nil)
		if err == nil && text(t, raw) == "after" {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("calls never worked again: %v", err)
		}
		failures++
		time.Sleep(20 * time.Millisecond)
	}
	if failures > 1 {
		t.Errorf("%d calls failed after the restart, want at most 1", failures)
	}
	if restarts.Load() != 1 {
		t.Errorf("OnRestart fired %d times, want 1", restarts.Load())
	}
}
