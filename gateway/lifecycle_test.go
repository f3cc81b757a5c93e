package gateway_test

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/card"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/gateway"
	"github.com/a2a-mcp-bridge/bridge/gateway/listener"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector/connectortest"
)

// serveListener serves h on a fresh Listener configured by set and
// returns its address and a function that starts the drain (SIGTERM) and
// waits for Serve to return.
func serveListener(t *testing.T, h http.Handler, set func(*listener.Listener)) (string, func() time.Duration) {
	t.Helper()
	l := &listener.Listener{Addr: "127.0.0.1:0", Log: quiet, Handler: h}
	if set != nil {
		set(l)
	}
	if err := l.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- l.Serve(ctx) }()
	var drained bool
	drain := func() time.Duration {
		start := time.Now()
		stop()
		drained = true
		select {
		case err := <-served:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the drain did not end")
		}
		return time.Since(start)
	}
	t.Cleanup(func() {
		if !drained {
			drain()
		}
	})
	return l.BoundAddr(), drain
}

// TestSlowBody_ConnectionCutAtReadTimeout: a client that sends its headers
// and trickles its body is cut at the read timeout, whether the handler
// reads the body or never does; a POST whose body arrived keeps streaming
// its response past the timeout.
func TestSlowBody_ConnectionCutAtReadTimeout(t *testing.T) {
	const rt = 300 * time.Millisecond
	mux := http.NewServeMux()
	mux.HandleFunc("POST /read", func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			http.Error(w, "slow body", http.StatusRequestTimeout)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	mux.HandleFunc("POST /ignore", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.HandleFunc("POST /stream", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 4 {
			fmt.Fprintf(w, "data: %d\n\n", i)
			http.NewResponseController(w).Flush()
			time.Sleep(rt / 2)
		}
	})
	addr, _ := serveListener(t, mux, func(l *listener.Listener) { l.ReadTimeout = rt })
	for _, path := range []string{"/read", "/ignore"} {
		t.Run(path, func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			start := time.Now()
			fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nab", path)
			go func() {
				for range 50 {
					time.Sleep(50 * time.Millisecond)
					if _, err := c.Write([]byte("c")); err != nil {
						return
					}
				}
			}()
			_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
			_, err = io.Copy(io.Discard, c) // until the server closes
			took := time.Since(start)
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatalf("the trickling connection was still open after %s", took)
			}
			if took > rt+time.Second {
				t.Errorf("cut after %s, want about %s", took, rt)
			}
		})
	}
	t.Run("stream", func(t *testing.T) {
		resp, err := http.Post("http://"+addr+"/stream", "application/json", strings.NewReader(`{"a":1}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		n := 0
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "data:") {
				n++
			}
		}
		if n != 4 {
			t.Errorf("the stream sent %d events past the read timeout, want 4", n)
		}
	})
}

// TestConnectionLimits_RefusedAndCounted: past max connections in total
// and per client, a new connection is closed at once and counted by limit.
func TestConnectionLimits_RefusedAndCounted(t *testing.T) {
	for _, tt := range []struct {
		name             string
		total, perClient int
		limit            string
	}{
		{"total", 2, 0, "total"},
		{"per client", 0, 2, "per_client"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
			addr, _ := serveListener(t, h, func(l *listener.Listener) {
				l.MaxConns, l.MaxConnsPerClient, l.Registerer = tt.total, tt.perClient, reg
			})
			var open []net.Conn
			for range 2 {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
				br := bufio.NewReader(c)
				if line, err := br.ReadString('\n'); err != nil || !strings.Contains(line, "200") {
					t.Fatalf("a connection under the limit: %q %v", line, err)
				}
				open = append(open, c)
			}
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
			fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
			if n, err := c.Read(make([]byte, 64)); err == nil || n > 0 {
				t.Fatalf("the connection over the limit was served (%d bytes, %v)", n, err)
			}
			if got := counterValue(t, reg, "bridge_connections_refused_total", tt.limit); got != 1 {
				t.Errorf("refused{limit=%s} = %v, want 1", tt.limit, got)
			}
			// A closed connection frees its place.
			open[0].Close()
			waitFor(t, "a place freed", func() bool {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					return false
				}
				defer c.Close()
				fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
				line, _ := bufio.NewReader(c).ReadString('\n')
				return strings.Contains(line, "200")
			})
		})
	}
}

func counterValue(t *testing.T, reg *prometheus.Registry, name, limit string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.Metric {
			for _, l := range m.Label {
				if l.GetName() == "limit" && l.GetValue() == limit {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return -1
}

// longToolConfig is alice's bridge with a tool timeout long enough for
// the block tool to outlast a drain.
func longToolConfig(t *testing.T) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]byte(fmt.Sprintf(`
listen: 127.0.0.1:0
store: "memory:"
auth:
  api_keys: [{name: alice, sha256: %q}]
policy: {default: allow}
publish:
  - {name: tools, stdio: {command: mcptestserver}, tool_timeout: 1m}
`, hash(aliceKey))), "long.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestShutdownGraceExpired_TaskFailedAndStreamGetsFinalEvent: SIGTERM
// while a stream follows a tool call that does not end: the stream stays
// open through the grace, then gets FAILED ("the bridge shut down") and
// ends, the upstream call is cancelled, and the drain ends within the grace
// plus DrainOverrun.
func TestShutdownGraceExpired_TaskFailedAndStreamGetsFinalEvent(t *testing.T) {
	const grace = 400 * time.Millisecond
	srv := connectortest.NewServer(connectortest.Options{})
	st := store.NewMemory()
	l := &listener.Listener{Addr: "127.0.0.1:0", Log: quiet, Grace: grace}
	if err := l.Listen(); err != nil {
		t.Fatal(err)
	}
	pub := "http://" + l.BoundAddr()
	b, err := gateway.Build(context.Background(), longToolConfig(t), gateway.Options{Logger: quiet, PublicURL: pub, Store: st,
		DialUpstream: func(ctx context.Context, c connector.Config) (*connector.Conn, error) {
			return connector.InProcess(ctx, srv.MCP, c)
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	l.Handler, l.OnDrain, l.Settle, l.Stop = b.Handler(), b.GoingAway, b.Settle, b.Stop
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- l.Serve(ctx) }()

	e := &env{url: pub}
	s, err := e.client(t, aliceKey).SendStreamingMessage(context.Background(), toolMessage(t, "block", map[string]any{}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	<-srv.Started()
	time.Sleep(400 * time.Millisecond) // released from net/http meanwhile

	t0 := time.Now()
	stop()
	var last *a2a.StreamResponse
	for ev, err := range s.All() {
		if err != nil {
			break
		}
		last = ev
	}
	ended := time.Since(t0)
	if last == nil || last.StatusUpdate == nil || last.StatusUpdate.Status.State != a2a.TaskStateFailed ||
		last.StatusUpdate.Status.Message == nil || last.StatusUpdate.Status.Message.Parts[0].Text != taskmanager.ShutdownMessage {
		t.Fatalf("last event %+v, want FAILED %q", last, taskmanager.ShutdownMessage)
	}
	if ended < grace-50*time.Millisecond {
		t.Errorf("the stream ended %s after the drain began, before the grace (%s)", ended, grace)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(grace + 5*time.Second):
		t.Fatal("the drain did not end")
	}
	if d := time.Since(t0); d > grace+listener.DrainOverrun+500*time.Millisecond {
		t.Errorf("the drain took %s, want within %s + %s", d, grace, listener.DrainOverrun)
	}
	select {
	case <-srv.Cancelled():
	case <-time.After(5 * time.Second):
		t.Error("the upstream call was not cancelled")
	}
	rec, err := st.GetTask(context.Background(), "apikey:alice", last.StatusUpdate.TaskID)
	if err == nil && rec.Task.Status.State != a2a.TaskStateFailed {
		t.Errorf("stored state %s", rec.Task.Status.State)
	}
}

// TestShutdownDrainedEarly: a drain with nothing running ends at once.
func TestShutdownDrainedEarly(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	_, drain := serveListener(t, h, func(l *listener.Listener) { l.Grace = 10 * time.Second })
	if d := drain(); d > 2*time.Second {
		t.Errorf("an idle drain took %s", d)
	}
}

// TestReload_RemovedAPIKeyRefusedAtOnce: a reload without bob's key refuses
// bob from the next request on, on both faces; alice goes on.
func TestReload_RemovedAPIKeyRefusedAtOnce(t *testing.T) {
	e := start(t)
	bob := e.client(t, bobKey)
	for range 3 {
		if _, err := bob.SendMessage(context.Background(), toolMessage(t, "echo", map[string]any{"text": "x"})); err != nil {
			t.Fatal(err)
		}
	}
	next, err := config.Parse([]byte(strings.Replace(e.yaml, fmt.Sprintf("    - {name: bob, sha256: %q}\n", hash(bobKey)), "", 1)), "inline.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.bridge.Reload(next); err != nil {
		t.Fatal(err)
	}
	_, err = bob.SendMessage(context.Background(), toolMessage(t, "echo", map[string]any{"text": "x"}))
	if ae := a2a.AsError(err); ae == nil || ae.Reason != a2a.ErrUnauthenticated.Reason {
		t.Fatalf("bob after the reload: %v", err)
	}
	req, _ := http.NewRequest(http.MethodPost, e.url+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Authorization", "Bearer "+bobKey)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("bob on /mcp after the reload: %d", resp.StatusCode)
	}
	if _, err := e.client(t, aliceKey).SendMessage(context.Background(), toolMessage(t, "echo", map[string]any{"text": "x"})); err != nil {
		t.Errorf("alice after the reload: %v", err)
	}
}

// TestReload_SigningKeyRotated: the key file is replaced and the bridge
// reloaded: the JWKS and the served card's signature follow; the retired
// key listed in keys.previous stays in the JWKS.
func TestReload_SigningKeyRotated(t *testing.T) {
	dir := t.TempDir()
	writeKey := func(name string) string {
		pemKey, err := card.GenerateKey(card.ES256)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pemKey, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cur := writeKey("current.pem")
	yaml := fmt.Sprintf(`
listen: 127.0.0.1:0
store: "memory:"
auth:
  api_keys: [{name: alice, sha256: %q}]
policy: {default: allow}
keys: {signing: %q}
publish:
  - {name: tools, stdio: {command: mcptestserver}}
`, hash(aliceKey), cur)
	cfg, err := config.Parse([]byte(yaml), "keys.yaml")
	if err != nil {
		t.Fatal(err)
	}
	srv := connectortest.NewServer(connectortest.Options{})
	b, err := gateway.Build(context.Background(), cfg, gateway.Options{Logger: quiet, PublicURL: "http://127.0.0.1:1", Store: store.NewMemory(),
		DialUpstream: func(ctx context.Context, c connector.Config) (*connector.Conn, error) {
			return connector.InProcess(ctx, srv.MCP, c)
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	kid := func() string { return b.Keys().Current.KeyID() }
	cardKid := func() string { // the kid of the served card's signature
		r, _ := http.NewRequest(http.MethodGet, "/a2a/tools/.well-known/agent-card.json", nil)
		w := httptest.NewRecorder()
		b.Handler().ServeHTTP(w, r)
		var c a2a.AgentCard
		if err := json.Unmarshal(w.Body.Bytes(), &c); err != nil || len(c.Signatures) == 0 {
			return "no signature: " + w.Body.String()
		}
		raw, _ := base64.RawURLEncoding.DecodeString(c.Signatures[0].Protected)
		var h struct {
			Kid string `json:"kid"`
		}
		_ = json.Unmarshal(raw, &h)
		return h.Kid
	}
	jwks := func() string {
		r, _ := http.NewRequest(http.MethodGet, gateway.JWKSPath, nil)
		w := httptest.NewRecorder()
		b.Handler().ServeHTTP(w, r)
		return w.Body.String()
	}
	first := kid()
	if !strings.Contains(jwks(), first) || cardKid() != first {
		t.Fatalf("before: jwks %s, card %s, kid %s", jwks(), cardKid(), first)
	}
	// Rotate: the old key becomes previous, a new one is written in place.
	old := filepath.Join(dir, "old.pem")
	data, _ := os.ReadFile(cur)
	if err := os.WriteFile(old, data, 0o600); err != nil {
		t.Fatal(err)
	}
	writeKey("current.pem")
	next, err := config.Parse([]byte(strings.Replace(yaml, "keys: {signing: ", fmt.Sprintf("keys: {previous: [%q], signing: ", old), 1)), "keys.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Reload(next); err != nil {
		t.Fatal(err)
	}
	second := kid()
	if second == first {
		t.Fatal("the signing key did not change")
	}
	if j := jwks(); !strings.Contains(j, first) || !strings.Contains(j, second) {
		t.Errorf("jwks after rotation %s, want both %s and %s", j, first, second)
	}
	if c := cardKid(); c != second {
		t.Errorf("card after rotation not signed by %s: %s", second, c)
	}
	// A bad key file changes nothing.
	if err := os.WriteFile(cur, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := b.Reload(next); err == nil {
		t.Fatal("a reload with a broken key file succeeded")
	}
	if kid() != second {
		t.Error("a failed reload changed the key")
	}
}
