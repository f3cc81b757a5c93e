package gateway_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/card"
	a2aclient "github.com/a2a-mcp-bridge/bridge/a2a/client"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/examples/demoagent"
	"github.com/a2a-mcp-bridge/bridge/gateway"
	"github.com/a2a-mcp-bridge/bridge/gateway/listener"
	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector/connectortest"
	"github.com/a2a-mcp-bridge/bridge/request"
)

var quiet = slog.New(slog.DiscardHandler)

const (
	aliceKey = "alice-secret-key-0001"
	bobKey   = "bob-secret-key-0002"
)

func hash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// startDemoAgent runs the demo A2A agent on a loopback httptest server.
func startDemoAgent(t *testing.T) *httptest.Server {
	t.Helper()
	return startDemoAgentWith(t, nil)
}

// startDemoAgentWith runs the demo agent behind wrap (nil: none).
func startDemoAgentWith(t *testing.T, wrap func(http.Handler) http.Handler) *httptest.Server {
	t.Helper()
	mgr, err := taskmanager.New(taskmanager.Config{Store: store.NewMemory(), Executor: &demoagent.Agent{Tick: time.Millisecond}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	srv.Listener = ln
	base := "http://" + ln.Addr().String()
	as, err := server.New(server.Config{Manager: mgr, Card: demoagent.Card(base), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/agent-card.json", as.ServeCard)
	mux.Handle("/", as)
	srv.Config.Handler = mux
	if wrap != nil {
		srv.Config.Handler = wrap(mux)
	}
	srv.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(mgr.Wait)
	return srv
}

type env struct {
	url    string
	bridge *gateway.Bridge
	mcp    *connectortest.Server
	// yaml is the configuration the bridge was built from.
	yaml string
}

// start builds the bridge from inline YAML and serves it on loopback.
func start(t *testing.T) *env {
	t.Helper()
	return startWith(t, startDemoAgent(t))
}

// startWith is start with the exposed agent given.
func startWith(t *testing.T, demo *httptest.Server) *env {
	t.Helper()
	return startLogged(t, demo, quiet)
}

// startLogged is startWith with the bridge logging to log.
func startLogged(t *testing.T, demo *httptest.Server, log *slog.Logger) *env {
	t.Helper()
	return startConfigured(t, demo, log, "")
}

// startWithYAML is startWith with extra top-level configuration.
func startWithYAML(t *testing.T, demo *httptest.Server, extra string) *env {
	t.Helper()
	return startConfigured(t, demo, quiet, extra)
}

// startConfigured is startWith with the bridge logging to log and extra
// top-level configuration.
func startConfigured(t *testing.T, demo *httptest.Server, log *slog.Logger, extra string) *env {
	t.Helper()
	du, _ := url.Parse(demo.URL)
	yaml := fmt.Sprintf(`
listen: 127.0.0.1:8080
store: "memory:"
auth:
  api_keys:
    - {name: alice, sha256: %q}
    - {name: bob, sha256: %q}
policy:
  default: allow
  rules:
    - {name: bob-no-destructive, deny: 'principal.subject == "bob" && hop.tool_destructive'}
limits:
  rules:
    - {per: principal, rate: 1000/m}
    - {per: [principal, tool], when: 'hop.tool == "add"', rate: 1/m}
publish:
  - name: tools
    stdio: {command: mcptestserver}
    deny_tools: ["crash", "env"]
expose:
  agents:
    - {alias: echo, url: %q}
netguard:
  unsafe_allow: [127.0.0.1/32]
  unsafe_allow_http: true
  ports: [%s]
observability:
  log_format: json
`, hash(aliceKey), hash(bobKey), demo.URL, du.Port()) + extra
	cfg, err := config.Parse([]byte(yaml), "inline.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pub := "http://" + ln.Addr().String()
	e := &env{url: pub, mcp: connectortest.NewServer(connectortest.Options{}), yaml: yaml}
	ctx := context.Background()
	b, err := gateway.Build(ctx, cfg, gateway.Options{
		Logger: log, PublicURL: pub,
		DialUpstream: func(ctx context.Context, c connector.Config) (*connector.Conn, error) {
			return connector.InProcess(ctx, e.mcp.MCP, c)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	e.bridge = b
	srv := httptest.NewUnstartedServer(b.Handler())
	srv.Listener = ln
	srv.Start()
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { b.Run(rctx); close(done) }()
	t.Cleanup(func() { srv.Close(); cancel(); <-done; _ = b.Close() })
	return e
}

func get(t *testing.T, u string, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

func (e *env) client(t *testing.T, key string) *a2aclient.Client {
	t.Helper()
	opts := []a2aclient.Option{a2aclient.WithHTTPClient(&http.Client{Transport: http.DefaultTransport})}
	if key != "" {
		opts = append(opts, a2aclient.WithHeader(func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+key)
			return nil
		}))
	}
	c, err := a2aclient.Dial(context.Background(), e.url+"/a2a/tools/.well-known/agent-card.json", opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func toolMessage(t *testing.T, tool string, args any) *a2a.SendMessageRequest {
	t.Helper()
	p, err := a2a.DataPart(map[string]any{"tool": tool, "arguments": args})
	if err != nil {
		t.Fatal(err)
	}
	return &a2a.SendMessageRequest{Message: &a2a.Message{MessageID: fmt.Sprintf("m-%d", time.Now().UnixNano()), Role: a2a.RoleUser, Parts: []a2a.Part{p}}}
}

func TestServedCardIsSignedAndVerifiesAgainstJWKS(t *testing.T) {
	e := start(t)
	for _, path := range []string{"/a2a/tools/.well-known/agent-card.json", "/.well-known/agent-card.json", "/a2a/tools/.well-known/agent-card.json?A2A-Version=0.3"} {
		resp, body := get(t, e.url+path)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d", path, resp.StatusCode)
		}
		_, jwks := get(t, e.url+gateway.JWKSPath)
		keys, err := card.ParseJWKS(jwks)
		if err != nil {
			t.Fatalf("jwks: %v", err)
		}
		res, err := card.Verify(context.Background(), body, keys, card.VerifyOptions{RequireSignature: true, SpecFormOnly: true})
		if err != nil {
			t.Fatalf("%s: verify: %v", path, err)
		}
		if res.Status != card.StatusVerified || res.KeyID != e.bridge.Keys().Current.KeyID() {
			t.Fatalf("%s: result %+v", path, res)
		}
		// A reader that asks for A2A 0.3 gets the card with the 0.3
		// members, and the signature covers them; a reader that names no
		// version gets the 1.0 card (server.a2a_v03_card: on_request).
		want03 := strings.HasSuffix(path, "?A2A-Version=0.3")
		for _, m := range []string{`"preferredTransport":"JSONRPC"`, `"protocolVersion":"0.3.0"`, `"additionalInterfaces":`} {
			if strings.Contains(string(body), m) != want03 {
				t.Fatalf("%s: %s present %v, want %v: %s", path, m, !want03, want03, body)
			}
		}
		// A changed field no longer verifies.
		tampered := strings.Replace(string(body), `"name":"tools"`, `"name":"t00ls"`, 1)
		if tampered == string(body) {
			t.Fatalf("card has no name field to tamper with: %s", body)
		}
		if _, err := card.Verify(context.Background(), []byte(tampered), keys, card.VerifyOptions{RequireSignature: true}); err == nil {
			t.Fatal("tampered card verified")
		}
		if want03 {
			tampered := strings.Replace(string(body), `"preferredTransport":"JSONRPC"`, `"preferredTransport":"GRPC"`, 1)
			if _, err := card.Verify(context.Background(), []byte(tampered), keys, card.VerifyOptions{RequireSignature: true, SpecFormOnly: true}); err == nil {
				t.Fatal("a card with a changed 0.3 member verified")
			}
		}
	}
}

func TestCardSecuritySchemesFollowAuthConfig(t *testing.T) {
	e := start(t)
	_, body := get(t, e.url+"/a2a/tools/.well-known/agent-card.json")
	var c a2a.AgentCard
	if err := json.Unmarshal(body, &c); err != nil {
		t.Fatal(err)
	}
	s, ok := c.SecuritySchemes["apikey"]
	if !ok || s.APIKey == nil || s.APIKey.Location != "header" || s.APIKey.Name != "Authorization" {
		t.Fatalf("securitySchemes: %s", body)
	}
	if len(c.SecurityRequirements) != 1 || c.SecurityRequirements[0].Schemes["apikey"].List != nil {
		t.Fatalf("securityRequirements: %+v", c.SecurityRequirements)
	}
	if len(c.Skills) == 0 {
		t.Fatal("card has no skills")
	}
	for _, sk := range c.Skills {
		if sk.ID == "crash" || sk.ID == "env" {
			t.Fatalf("denied tool %q published", sk.ID)
		}
	}
}

func TestRejectsCallerWithoutKey(t *testing.T) {
	e := start(t)
	for _, key := range []string{"", "not-a-configured-key"} {
		_, err := e.client(t, key).SendMessage(context.Background(), toolMessage(t, "echo", map[string]any{"text": "hi"}))
		ae := a2a.AsError(err)
		if ae == nil || ae.Reason != a2a.ErrUnauthenticated.Reason {
			t.Fatalf("key %q: err = %v", key, err)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, e.url+"/a2a/tools", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`))
	req.Header.Set("A2A-Version", "1.0")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" {
		t.Fatalf("status %d, challenge %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
}

func TestPrincipalBCannotReadPrincipalATask(t *testing.T) {
	e := start(t)
	ctx := context.Background()
	alice, bob := e.client(t, aliceKey), e.client(t, bobKey)
	res, err := alice.SendMessage(ctx, toolMessage(t, "echo", map[string]any{"text": "hello"}))
	if err != nil {
		t.Fatal(err)
	}
	if res.Task == nil || res.Task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("alice's task: %+v", res)
	}
	id := res.Task.ID
	if _, err := alice.GetTask(ctx, &a2a.GetTaskRequest{ID: id}); err != nil {
		t.Fatalf("owner GetTask: %v", err)
	}
	_, err = bob.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
	if ae := a2a.AsError(err); ae == nil || ae.Code != a2a.ErrTaskNotFound.Code {
		t.Fatalf("bob GetTask: %v", err)
	}
	_, err = bob.CancelTask(ctx, &a2a.CancelTaskRequest{ID: id})
	if ae := a2a.AsError(err); ae == nil || ae.Code != a2a.ErrTaskNotFound.Code {
		t.Fatalf("bob CancelTask: %v", err)
	}
	lst, err := bob.ListTasks(ctx, &a2a.ListTasksRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(lst.Tasks) != 0 {
		t.Fatalf("bob lists %d tasks", len(lst.Tasks))
	}
}

func TestPolicyDeniesDestructiveToolForBob(t *testing.T) {
	e := start(t)
	_, err := e.client(t, bobKey).SendMessage(context.Background(), toolMessage(t, "fail", map[string]any{}))
	if ae := a2a.AsError(err); ae == nil || ae.Reason != a2a.ErrPermissionDenied.Reason {
		t.Fatalf("bob calling a destructive tool: %v", err)
	}
	if n := e.mcp.Calls("fail"); n != 0 {
		t.Fatalf("upstream was called %d times", n)
	}
}

func TestRateLimitPerTool(t *testing.T) {
	e := start(t)
	c := e.client(t, aliceKey)
	if _, err := c.SendMessage(context.Background(), toolMessage(t, "add", map[string]any{"a": 1, "b": 2})); err != nil {
		t.Fatal(err)
	}
	_, err := c.SendMessage(context.Background(), toolMessage(t, "add", map[string]any{"a": 1, "b": 2}))
	if ae := a2a.AsError(err); ae == nil || ae.Reason != a2a.ErrRateLimited.Reason {
		t.Fatalf("second add: %v", err)
	}
	// Other tools still pass.
	if _, err := c.SendMessage(context.Background(), toolMessage(t, "echo", map[string]any{"text": "x"})); err != nil {
		t.Fatal(err)
	}
}

func TestMetricsAfterTraffic(t *testing.T) {
	e := start(t)
	c := e.client(t, aliceKey)
	if _, err := c.SendMessage(context.Background(), toolMessage(t, "echo", map[string]any{"text": "m"})); err != nil {
		t.Fatal(err)
	}
	_, _ = e.client(t, "").SendMessage(context.Background(), toolMessage(t, "echo", map[string]any{"text": "m"}))
	resp, body := get(t, e.url+"/metrics")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("metrics: %d", resp.StatusCode)
	}
	for _, want := range []string{
		`bridge_requests_total{face="a2a",method="SendMessage",outcome="2xx"} 1`,
		`bridge_requests_total{face="a2a",method="POST",outcome="4xx"} 1`,
		`bridge_requests_total{face="card",method="GET",outcome="2xx"}`,
		`bridge_request_duration_seconds_bucket{face="a2a",method="SendMessage",le=`,
		`bridge_task_transitions_total{state="completed"}`,
		`bridge_policy_decisions_total`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if t.Failed() {
		t.Logf("metrics:\n%s", grepLines(string(body), "bridge_"))
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func TestRequestIDEchoedOrMinted(t *testing.T) {
	e := start(t)
	resp, _ := get(t, e.url+"/healthz", gateway.RequestIDHeader, "req-123")
	if got := resp.Header.Get(gateway.RequestIDHeader); got != "req-123" {
		t.Fatalf("echoed id %q", got)
	}
	// An id that could forge log lines is replaced.
	resp, _ = get(t, e.url+"/healthz", gateway.RequestIDHeader, "a b\"c")
	if got := resp.Header.Get(gateway.RequestIDHeader); got == "" || strings.ContainsAny(got, " \"") {
		t.Fatalf("minted id %q", got)
	}
}

func TestHealthAndReady(t *testing.T) {
	e := start(t)
	if resp, _ := get(t, e.url+"/healthz"); resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz %d", resp.StatusCode)
	}
	resp, body := get(t, e.url+"/readyz")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("readyz %d: %s", resp.StatusCode, body)
	}
	var rd gateway.Readiness
	if err := json.Unmarshal(body, &rd); err != nil || !rd.Ready {
		t.Fatalf("readyz body %s (%v)", body, err)
	}
}

func TestMCPToolsListThroughFace(t *testing.T) {
	e := start(t)
	connect := func(key string) (*client.Client, error) {
		tr, err := transport.NewStreamableHTTP(e.url+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + key}))
		if err != nil {
			return nil, err
		}
		c := client.NewClient(tr)
		if err := c.Start(context.Background()); err != nil {
			return nil, err
		}
		t.Cleanup(func() { _ = c.Close() })
		_, err = c.Initialize(context.Background(), mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION, ClientInfo: mcp.Implementation{Name: "t", Version: "1"}}})
		return c, err
	}
	c, err := connect(aliceKey)
	if err != nil {
		t.Fatal(err)
	}
	lst, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range lst.Tools {
		names = append(names, tl.Name)
	}
	if len(names) == 0 || !strings.HasPrefix(names[0], "echo") {
		t.Fatalf("tools %v", names)
	}
	res, err := c.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: names[0], Arguments: map[string]any{"message": "ping"}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("call: %+v", res.Content)
	}
	if _, err := connect("wrong-key"); err == nil {
		t.Fatal("MCP face accepted a wrong key")
	}
	resp, body := get(t, e.url+"/.well-known/oauth-protected-resource/mcp")
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), e.url+"/mcp") {
		t.Fatalf("resource metadata %d: %s", resp.StatusCode, body)
	}
}

func TestReloadKeepsOldConfigWhenInvalid(t *testing.T) {
	e := start(t)
	bad := config.Config{}
	bad.Policy.Default = "maybe"
	if err := e.bridge.Reload(&bad); err == nil {
		t.Fatal("invalid policy reloaded")
	}
	// Still serving with the old policy and limits.
	if _, err := e.client(t, aliceKey).SendMessage(context.Background(), toolMessage(t, "echo", map[string]any{"text": "x"})); err != nil {
		t.Fatal(err)
	}
	// A valid reload takes effect: deny everything.
	good, err := config.Parse([]byte(strings.Replace(e.yaml, "default: allow", "default: deny", 1)), "inline.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.bridge.Reload(good); err != nil {
		t.Fatal(err)
	}
	_, err = e.client(t, aliceKey).SendMessage(context.Background(), toolMessage(t, "echo", map[string]any{"text": "x"}))
	if ae := a2a.AsError(err); ae == nil || ae.Reason != a2a.ErrPermissionDenied.Reason {
		t.Fatalf("after reload: %v", err)
	}
}

func TestStreamingThroughMiddleware(t *testing.T) {
	e := start(t)
	s, err := e.client(t, aliceKey).SendStreamingMessage(context.Background(), toolMessage(t, "slow", map[string]any{"steps": 3}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var last a2a.TaskState
	n := 0
	for ev, err := range s.All() {
		if err != nil {
			t.Fatal(err)
		}
		n++
		switch {
		case ev.StatusUpdate != nil:
			last = ev.StatusUpdate.Status.State
		case ev.Task != nil:
			last = ev.Task.Status.State
		}
	}
	if last != a2a.TaskStateCompleted || n < 2 {
		t.Fatalf("%d events, last state %s", n, last)
	}
	// The client may stop at the terminal event before the server's handler
	// has returned: wait for the request to be counted.
	want := []string{
		`bridge_requests_total{face="a2a",method="SendStreamingMessage",outcome="2xx"} 1`,
		`bridge_active_streams{face="a2a"} 0`,
	}
	bridgetest.Eventually(t, 10*time.Second, "the stream's metrics", func() error {
		_, body := get(t, e.url+"/metrics")
		if !strings.Contains(string(body), want[0]) || !strings.Contains(string(body), want[1]) {
			return fmt.Errorf("metrics lack %q:\n%s", want, grepLines(string(body), "bridge_"))
		}
		return nil
	})
}

// TestDrainEndsOpenStreamAndKeepsTask is SIGTERM during an open stream: the
// listener stops, the stream ends within the grace period, and the task is
// still in the store.
func TestDrainEndsOpenStreamAndKeepsTask(t *testing.T) {
	cfg := aliceToolsConfig(t, "drain.yaml")
	st := store.NewMemory()
	srv := connectortest.NewServer(connectortest.Options{})
	l := &listener.Listener{Addr: "127.0.0.1:0", Grace: 50 * time.Millisecond, Log: quiet}
	if err := l.Listen(); err != nil {
		t.Fatal(err)
	}
	pub := "http://" + l.BoundAddr()
	b, err := gateway.Build(context.Background(), cfg, gateway.Options{Logger: quiet, PublicURL: pub, Store: st,
		DialUpstream: func(ctx context.Context, c connector.Config) (*connector.Conn, error) {
			return connector.InProcess(ctx, srv.MCP, c)
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	l.Handler = b.Handler()
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- l.Serve(ctx) }()

	e := &env{url: pub}
	s, err := e.client(t, aliceKey).SendStreamingMessage(context.Background(), toolMessage(t, "block", map[string]any{}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	first, err := s.Next()
	if err != nil {
		t.Fatal(err)
	}
	var id string
	switch {
	case first.Task != nil:
		id = first.Task.ID
	case first.StatusUpdate != nil:
		id = first.StatusUpdate.TaskID
	default:
		t.Fatalf("first event %+v", first)
	}
	<-srv.Started()

	t0 := time.Now()
	stop() // what SIGTERM does in bridge serve
	for {
		if _, err := s.Next(); err != nil {
			break // the stream ended (cleanly or by the server closing it)
		}
	}
	t.Logf("stream ended after %v", time.Since(t0))
	if err := <-served; err != nil {
		t.Fatalf("serve: %v", err)
	}
	t.Logf("serve returned after %v", time.Since(t0))
	owner := (&request.Principal{Issuer: "apikey", Subject: "alice"}).Key()
	rec, err := st.GetTask(context.Background(), owner, id)
	if err != nil {
		t.Fatalf("task lost after drain: %v", err)
	}
	if rec.Task.ID != id {
		t.Fatalf("task %+v", rec.Task)
	}
	evs, err := st.Events(context.Background(), owner, id, 0, 100)
	if err != nil || len(evs) == 0 {
		t.Fatalf("events after drain: %d, %v", len(evs), err)
	}
}

// BenchmarkHealthzThroughMiddleware is the cost of the observing middleware
// (request id, metrics, access log to a discarding handler) on the cheapest
// route.
func BenchmarkHealthzThroughMiddleware(b *testing.B) {
	cfg, err := config.Parse([]byte("listen: 127.0.0.1:0\nstore: \"memory:\"\nauth: {anonymous: true}\npolicy: {default: allow}\n"), "bench.yaml")
	if err != nil {
		b.Fatal(err)
	}
	br, err := gateway.Build(context.Background(), cfg, gateway.Options{Logger: quiet, PublicURL: "http://127.0.0.1:1"})
	if err != nil {
		b.Fatal(err)
	}
	defer br.Close()
	h := br.Handler()
	req := httptest.NewRequest(http.MethodGet, "/healthz", nil)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatal(w.Code)
		}
	}
}

// aliceToolsConfig is the smallest bridge: alice's API key, allow-all policy
// and one published MCP server "tools" (the tests dial it in process).
func aliceToolsConfig(t *testing.T, name string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]byte(fmt.Sprintf(`
listen: 127.0.0.1:0
store: "memory:"
auth:
  api_keys: [{name: alice, sha256: %q}]
policy: {default: allow}
publish:
  - {name: tools, stdio: {command: mcptestserver}, tool_timeout: 1s}
`, hash(aliceKey))), name)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
