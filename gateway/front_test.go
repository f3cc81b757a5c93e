package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
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
	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector/connectortest"
)

// cancelRecorder is the demo agent, recording the upstream task ids it was
// asked to cancel.
type cancelRecorder struct {
	demoagent.Agent
	canceled chan string
}

func (c *cancelRecorder) Cancel(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) error {
	select {
	case c.canceled <- req.TaskID:
	default:
	}
	return c.Agent.Cancel(ctx, req, u)
}

// frontUpstream is an A2A agent with no notion of owners (no auth, every
// task has the empty owner) on loopback.
type frontUpstream struct {
	srv   *httptest.Server
	agent *cancelRecorder
}

func startFrontUpstream(t *testing.T) *frontUpstream {
	t.Helper()
	up := &frontUpstream{agent: &cancelRecorder{Agent: demoagent.Agent{Tick: 5 * time.Millisecond}, canceled: make(chan string, 4)}}
	mgr, err := taskmanager.New(taskmanager.Config{Store: store.NewMemory(), Executor: up.agent, Logger: quiet, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	up.srv = httptest.NewUnstartedServer(nil)
	up.srv.Listener = ln
	as, err := server.New(server.Config{Manager: mgr, Card: demoagent.Card("http://" + ln.Addr().String()), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	up.srv.Config.Handler = as
	up.srv.Start()
	t.Cleanup(func() { up.srv.Close(); mgr.Wait() })
	return up
}

type frontEnv struct {
	url    string
	bridge *gateway.Bridge
	up     *frontUpstream
	mcp    *connectortest.Server
}

// frontYAML is a bridge fronting one A2A agent and one MCP server, with
// API keys for alice and bob and a policy that denies the MCP tool "fail".
func frontYAML(agentURL, extra string) string {
	return fmt.Sprintf(`
listen: 127.0.0.1:8080
store: "memory:"
auth:
  api_keys:
    - {name: alice, sha256: %q}
    - {name: bob, sha256: %q}
policy:
  default: allow
  rules:
    - {name: no-fail-tool, deny: 'hop.direction == "front_mcp" && hop.agent == "files" && hop.tool == "fail"'}
front:
  a2a:
    - {name: agent, url: %q}
  mcp:
    - {name: files, stdio: {command: mcptestserver}}
%s`, hash(aliceKey), hash(bobKey), agentURL, extra)
}

// startFront builds the bridge from yaml and serves it on loopback; the
// front.mcp server is an in-process MCP server.
func startFront(t *testing.T, yaml string, opts gateway.Options) *frontEnv {
	t.Helper()
	cfg, err := config.Parse([]byte(yaml), "inline.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := &frontEnv{url: "http://" + ln.Addr().String(), mcp: connectortest.NewServer(connectortest.Options{})}
	opts.Logger, opts.PublicURL = quiet, e.url
	opts.DialUpstream = func(ctx context.Context, c connector.Config) (*connector.Conn, error) {
		return connector.InProcess(ctx, e.mcp.MCP, c)
	}
	b, err := gateway.Build(context.Background(), cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	e.bridge = b
	srv := httptest.NewUnstartedServer(b.Handler())
	srv.Listener = ln
	srv.Start()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { b.Run(ctx); close(done) }()
	t.Cleanup(func() { srv.Close(); cancel(); <-done; _ = b.Close() })
	return e
}

func (e *frontEnv) client(t *testing.T, key string) *a2aclient.Client {
	t.Helper()
	c, err := a2aclient.Dial(context.Background(), e.url+"/a2a/agent/.well-known/agent-card.json",
		a2aclient.WithHTTPClient(&http.Client{Transport: http.DefaultTransport}),
		a2aclient.WithHeader(func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+key)
			return nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func textMsg(text string) *a2a.Message {
	return &a2a.Message{MessageID: fmt.Sprintf("m-%d", time.Now().UnixNano()), Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(text)}}
}

func artifactText(tk *a2a.Task) string {
	var out []string
	for _, a := range tk.Artifacts {
		for _, p := range a.Parts {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "")
}

func TestFrontA2AServesUpstreamCardSignedWithBridgeURLs(t *testing.T) {
	up := startFrontUpstream(t)
	e := startFront(t, frontYAML(up.srv.URL, ""), gateway.Options{})
	for _, path := range []string{"/a2a/agent/.well-known/agent-card.json", "/.well-known/agent-card.json"} {
		resp, body := get(t, e.url+path)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d", path, resp.StatusCode)
		}
		_, jwks := get(t, e.url+gateway.JWKSPath)
		keys, err := card.ParseJWKS(jwks)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := card.Verify(context.Background(), body, keys, card.VerifyOptions{RequireSignature: true, SpecFormOnly: true}); err != nil {
			t.Fatalf("%s: verify: %v", path, err)
		}
		var c a2a.AgentCard
		if err := json.Unmarshal(body, &c); err != nil {
			t.Fatal(err)
		}
		if c.Name != "Echo demo agent" || len(c.Skills) != len(demoagent.Card("").Skills) {
			t.Fatalf("%s: upstream name and skills not kept: %s", path, body)
		}
		for _, in := range c.SupportedInterfaces {
			if !strings.HasPrefix(in.URL, e.url+"/a2a/agent") {
				t.Fatalf("%s: interface %q is not the bridge's", path, in.URL)
			}
		}
		if strings.Contains(string(body), up.srv.URL) {
			t.Fatalf("%s: served card names the upstream: %s", path, body)
		}
		if _, ok := c.SecuritySchemes["apikey"]; !ok {
			t.Fatalf("%s: card lacks the bridge's security scheme: %s", path, body)
		}
	}
}

func TestFrontA2AFullFlow(t *testing.T) {
	up := startFrontUpstream(t)
	e := startFront(t, frontYAML(up.srv.URL, ""), gateway.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl := e.client(t, aliceKey)

	// Blocking.
	res, err := cl.SendMessage(ctx, &a2a.SendMessageRequest{Message: textMsg("hello")})
	if err != nil || res.Task == nil || res.Task.Status.State != a2a.TaskStateCompleted || artifactText(res.Task) != "echo: hello" {
		t.Fatalf("blocking send = %+v, %v", res, err)
	}
	echo := res.Task.ID

	// Streaming.
	s, err := cl.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: textMsg("/slow 2")})
	if err != nil {
		t.Fatal(err)
	}
	var states []string
	for ev, err := range s.All() {
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		if ev.StatusUpdate != nil {
			states = append(states, string(ev.StatusUpdate.Status.State))
		}
	}
	if len(states) < 2 || states[len(states)-1] != string(a2a.TaskStateCompleted) {
		t.Fatalf("streamed states %v", states)
	}

	// Multi-turn.
	res, err = cl.SendMessage(ctx, &a2a.SendMessageRequest{Message: textMsg("/interview")})
	if err != nil || res.Task == nil || res.Task.Status.State != a2a.TaskStateInputRequired {
		t.Fatalf("interview = %+v, %v", res, err)
	}
	m := textMsg("Ada")
	m.TaskID, m.ContextID = res.Task.ID, res.Task.ContextID
	res2, err := cl.SendMessage(ctx, &a2a.SendMessageRequest{Message: m})
	if err != nil || res2.Task == nil || res2.Task.ID != res.Task.ID || artifactText(res2.Task) != "Hello, Ada!" {
		t.Fatalf("interview answer = %+v, %v", res2, err)
	}

	// Get and list.
	got, err := cl.GetTask(ctx, &a2a.GetTaskRequest{ID: echo})
	if err != nil || artifactText(got) != "echo: hello" {
		t.Fatalf("get = %+v, %v", got, err)
	}
	lst, err := cl.ListTasks(ctx, &a2a.ListTasksRequest{})
	if err != nil || len(lst.Tasks) != 3 {
		t.Fatalf("list = %+v, %v; want 3 tasks", lst, err)
	}

	// Cancel reaches the upstream.
	s, err = cl.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: textMsg("/slow 3600")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var id string
	for {
		ev, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if ev.Task != nil {
			id = ev.Task.ID
		}
		if ev.StatusUpdate != nil && ev.StatusUpdate.Status.State == a2a.TaskStateWorking {
			break
		}
	}
	tk, err := cl.CancelTask(ctx, &a2a.CancelTaskRequest{ID: id})
	if err != nil || tk.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("cancel = %+v, %v", tk, err)
	}
	select {
	case upID := <-up.agent.canceled:
		if upID == id {
			t.Fatal("the bridge handed out the upstream's task id")
		}
	case <-ctx.Done():
		t.Fatal("the cancel never reached the upstream")
	}
}

// TestFrontA2APrincipalBCannotSeePrincipalATask: the upstream has no
// owners (one client, the bridge), yet bob cannot read, cancel, continue
// or list alice's task.
func TestFrontA2APrincipalBCannotSeePrincipalATask(t *testing.T) {
	up := startFrontUpstream(t)
	e := startFront(t, frontYAML(up.srv.URL, ""), gateway.Options{})
	ctx := context.Background()
	alice, bob := e.client(t, aliceKey), e.client(t, bobKey)
	res, err := alice.SendMessage(ctx, &a2a.SendMessageRequest{Message: textMsg("/interview")})
	if err != nil || res.Task == nil {
		t.Fatalf("alice: %+v, %v", res, err)
	}
	id := res.Task.ID
	notFound := func(what string, err error) {
		t.Helper()
		if ae := a2a.AsError(err); ae == nil || ae.Code != a2a.ErrTaskNotFound.Code {
			t.Fatalf("bob %s: %v, want task not found", what, err)
		}
	}
	_, err = bob.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
	notFound("GetTask", err)
	_, err = bob.CancelTask(ctx, &a2a.CancelTaskRequest{ID: id})
	notFound("CancelTask", err)
	m := textMsg("Mallory")
	m.TaskID = id
	_, err = bob.SendMessage(ctx, &a2a.SendMessageRequest{Message: m})
	notFound("SendMessage to the task", err)
	lst, err := bob.ListTasks(ctx, &a2a.ListTasksRequest{})
	if err != nil || len(lst.Tasks) != 0 {
		t.Fatalf("bob lists %+v, %v", lst, err)
	}
	if tk, err := alice.GetTask(ctx, &a2a.GetTaskRequest{ID: id}); err != nil || tk.Status.State != a2a.TaskStateInputRequired {
		t.Fatalf("alice's task after bob's attempts: %+v, %v", tk, err)
	}
}

func TestFrontA2ARejectsCallerWithoutKey(t *testing.T) {
	up := startFrontUpstream(t)
	e := startFront(t, frontYAML(up.srv.URL, ""), gateway.Options{})
	_, err := e.client(t, "not-a-configured-key").SendMessage(context.Background(), &a2a.SendMessageRequest{Message: textMsg("hello")})
	if ae := a2a.AsError(err); ae == nil || ae.Reason != a2a.ErrUnauthenticated.Reason {
		t.Fatalf("err = %v", err)
	}
}

// TestFrontA2AUnreachableUpstreamIsNotReady: the bridge starts, says it is
// not ready and answers 503 until the upstream card is loaded.
func TestFrontA2AUnreachableUpstreamIsNotReady(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	e := startFront(t, frontYAML(dead, ""), gateway.Options{})
	resp, body := get(t, e.url+"/readyz")
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), `"front.a2a agent: down: card fetch failed: connection refused"`) ||
		strings.Contains(string(body), ln.Addr().String()) {
		t.Fatalf("readyz %d: %s", resp.StatusCode, body)
	}
	resp, body = get(t, e.url+"/a2a/agent/.well-known/agent-card.json")
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
		!strings.Contains(string(body), `"reason":"AGENT_UNAVAILABLE"`) || !strings.Contains(string(body), "agent agent is unavailable: its card is not loaded yet") {
		t.Fatalf("card of an unloaded agent: %d %s", resp.StatusCode, body)
	}
}

func TestFrontReadyWhenUpstreamsAre(t *testing.T) {
	up := startFrontUpstream(t)
	e := startFront(t, frontYAML(up.srv.URL, ""), gateway.Options{})
	resp, body := get(t, e.url+"/readyz")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("readyz %d: %s", resp.StatusCode, body)
	}
	// The metrics read the same state: the fronted agent is up, by kind.
	want := `bridge_upstream_up{kind="front.a2a",upstream="agent"} 1`
	bridgetest.Eventually(t, 10*time.Second, "metrics with "+want, func() error {
		if _, m := get(t, e.url+"/metrics"); !strings.Contains(string(m), want) {
			return fmt.Errorf("metrics lack %s:\n%s", want, grepLines(string(m), "bridge_upstream"))
		}
		return nil
	})
}

// TestFrontA2ATaskContinuesAfterRestart: with a signing key, the state key
// is derived from it, so a second bridge on the same store continues a task
// the first one started.
func TestFrontA2ATaskContinuesAfterRestart(t *testing.T) {
	up := startFrontUpstream(t)
	pemKey, err := card.GenerateKey(card.ES256)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "signing.pem")
	if err := os.WriteFile(keyFile, pemKey, 0o600); err != nil {
		t.Fatal(err)
	}
	yaml := frontYAML(up.srv.URL, fmt.Sprintf("keys: {signing: %q}\n", keyFile))
	st := store.NewMemory()
	ctx := context.Background()

	first := startFront(t, yaml, gateway.Options{Store: st})
	res, err := first.client(t, aliceKey).SendMessage(ctx, &a2a.SendMessageRequest{Message: textMsg("/interview")})
	if err != nil || res.Task == nil || res.Task.Status.State != a2a.TaskStateInputRequired {
		t.Fatalf("first bridge: %+v, %v", res, err)
	}
	if err := first.bridge.Close(); err != nil {
		t.Fatal(err)
	}

	second := startFront(t, yaml, gateway.Options{Store: st})
	m := textMsg("Grace")
	m.TaskID = res.Task.ID
	res2, err := second.client(t, aliceKey).SendMessage(ctx, &a2a.SendMessageRequest{Message: m})
	if err != nil || res2.Task == nil || artifactText(res2.Task) != "Hello, Grace!" {
		t.Fatalf("second bridge: %+v, %v", res2, err)
	}
}

func connectMCP(t *testing.T, u, key string) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(u, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + key}))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if _, err := c.Initialize(context.Background(), mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION, ClientInfo: mcp.Implementation{Name: "t", Version: "1"}}}); err != nil {
		t.Fatal(err)
	}
	return c
}

func toolNames(t *testing.T, c *client.Client) []string {
	t.Helper()
	lst, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range lst.Tools {
		names = append(names, tl.Name)
	}
	return names
}

func TestFrontMCPToolsPrefixedAndCallable(t *testing.T) {
	up := startFrontUpstream(t)
	e := startFront(t, frontYAML(up.srv.URL, ""), gateway.Options{})
	c := connectMCP(t, e.url+"/mcp", aliceKey)
	names := toolNames(t, c)
	if !slices.Contains(names, "files_echo") || slices.Contains(names, "echo") {
		t.Fatalf("tools %v: want files_echo and no unprefixed echo", names)
	}
	res, err := c.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "files_echo", Arguments: map[string]any{"text": "ping"}}})
	if err != nil || res.IsError {
		t.Fatalf("files_echo: %+v, %v", res, err)
	}
	if n := e.mcp.Calls("echo"); n != 1 {
		t.Fatalf("upstream echo called %d times, want 1", n)
	}
}

// TestFrontMCPPolicyDeniedToolNeverReachesServer: the policy denies
// files_fail; it is hidden and a call by name is refused before the server.
func TestFrontMCPPolicyDeniedToolNeverReachesServer(t *testing.T) {
	up := startFrontUpstream(t)
	e := startFront(t, frontYAML(up.srv.URL, ""), gateway.Options{})
	c := connectMCP(t, e.url+"/mcp", aliceKey)
	if names := toolNames(t, c); slices.Contains(names, "files_fail") {
		t.Fatalf("denied tool listed: %v", names)
	}
	res, err := c.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "files_fail", Arguments: map[string]any{}}})
	if err == nil && !res.IsError {
		t.Fatalf("denied tool called: %+v", res)
	}
	if n := e.mcp.Calls("fail"); n != 0 {
		t.Fatalf("upstream fail called %d times", n)
	}
}

// TestFrontMCPOnlyServedOverStdio: with only front.mcp configured, `bridge
// mcp` (MCPOnly) has a face that serves the fronted tools over stdio.
func TestFrontMCPOnlyServedOverStdio(t *testing.T) {
	cfg, err := config.Parse([]byte(`
auth:
  api_keys:
    - {name: alice, sha256: "`+hash(aliceKey)+`"}
policy: {default: allow}
front:
  mcp:
    - {name: files, stdio: {command: mcptestserver}, tool_prefix: "fs_"}
expose:
  mcp: {stdio: true}
`), "inline.yaml")
	if err != nil {
		t.Fatal(err)
	}
	mcpSrv := connectortest.NewServer(connectortest.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b, err := gateway.Build(ctx, cfg, gateway.Options{Logger: quiet, MCPOnly: true,
		DialUpstream: func(ctx context.Context, c connector.Config) (*connector.Conn, error) {
			return connector.InProcess(ctx, mcpSrv.MCP, c)
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Face() == nil {
		t.Fatal("no MCP face with only front.mcp configured")
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- b.Face().ServeStdio(ctx, inR, outW) }()
	c := client.NewClient(transport.NewIO(outR, inW, nil))
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION, ClientInfo: mcp.Implementation{Name: "t", Version: "1"}}}); err != nil {
		t.Fatal(err)
	}
	if names := toolNames(t, c); !slices.Contains(names, "fs_echo") {
		t.Fatalf("stdio tools %v: want fs_echo", names)
	}
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "fs_echo", Arguments: map[string]any{"text": "x"}}})
	if err != nil || res.IsError {
		t.Fatalf("fs_echo over stdio: %+v, %v", res, err)
	}
	_ = c.Close()
	cancel()
	inW.Close()
	<-done
}

// TestFrontedSkillCallsAreCounted: a fronted agent's messages are counted
// per skill with their outcome, the skill label taking only the skills its
// card lists ("other" for a name it does not list, "unknown" when the
// message names none), so a caller cannot grow the label set.
func TestFrontedSkillCallsAreCounted(t *testing.T) {
	up := startFrontUpstream(t)
	e := startFront(t, frontYAML(up.srv.URL, ""), gateway.Options{})
	c := e.client(t, aliceKey)
	ctx := context.Background()
	send := func(text, skill string) {
		t.Helper()
		m := textMsg(text)
		if skill != "" {
			m.Metadata = a2a.Metadata{"skillId": skill}
		}
		if _, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: m}); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
	}
	send("hello", "echo")
	send("/fail", "fail")
	send("hello", "no-such-skill-4f3a")
	send("hello", "")
	want := []string{
		`bridge_skill_calls_total{agent="agent",outcome="ok",skill="echo"} 1`,
		`bridge_skill_calls_total{agent="agent",outcome="error",skill="fail"} 1`,
		`bridge_skill_calls_total{agent="agent",outcome="ok",skill="other"} 1`,
		`bridge_skill_calls_total{agent="agent",outcome="ok",skill="unknown"} 1`,
		`bridge_skill_call_duration_seconds_count{agent="agent",skill="echo"} 1`,
	}
	var body string
	bridgetest.Eventually(t, 10*time.Second, "the metrics the test expects", func() error {
		_, b := get(t, e.url+"/metrics")
		if body = string(b); missing(body, want) != nil {
			return fmt.Errorf("metrics lack %q", missing(body, want))
		}
		return nil
	})
	if m := missing(body, want); m != nil {
		t.Fatalf("metrics lack %q:\n%s", m, grepLines(body, "bridge_skill"))
	}
	if strings.Contains(body, "no-such-skill") {
		t.Fatalf("a skill the card does not list became a label:\n%s", grepLines(body, "bridge_skill"))
	}
}
