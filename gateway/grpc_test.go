package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/a2agrpc"
	pb "github.com/a2a-mcp-bridge/bridge/a2a/a2apb"
	"github.com/a2a-mcp-bridge/bridge/a2a/client"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/examples/demoagent"
	"github.com/a2a-mcp-bridge/bridge/gateway"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector/connectortest"
)

// startGRPCFront is the front bridge of frontYAML with server.grpc enabled,
// served on loopback over HTTP/1.1 and h2c (as bridge serve does).
func startGRPCFront(t *testing.T, extra string) *frontEnv {
	t.Helper()
	up := startFrontUpstream(t)
	cfg, err := config.Parse([]byte(frontYAML(up.srv.URL, "server: {grpc: {enabled: true}}\n"+extra)), "inline.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := &frontEnv{url: "http://" + ln.Addr().String(), up: up, mcp: connectortest.NewServer(connectortest.Options{})}
	b, err := gateway.Build(context.Background(), cfg, gateway.Options{Logger: quiet, PublicURL: e.url,
		DialUpstream: func(ctx context.Context, c connector.Config) (*connector.Conn, error) {
			return connector.InProcess(ctx, e.mcp.MCP, c)
		}})
	if err != nil {
		t.Fatal(err)
	}
	e.bridge = b
	srv := httptest.NewUnstartedServer(b.Handler())
	srv.Listener = ln
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetHTTP1(true)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { b.Run(ctx); close(done) }()
	t.Cleanup(func() { srv.Close(); cancel(); <-done; _ = b.Close() })
	return e
}

func (e *frontEnv) grpcClient(t *testing.T, key string) *client.Client {
	t.Helper()
	conn, err := a2agrpc.NewConnector(a2agrpc.ConnectorConfig{Dial: func(ctx context.Context, addr string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", addr)
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	c, err := client.Dial(context.Background(), e.url+"/a2a/agent/.well-known/agent-card.json",
		client.WithHTTPClient(&http.Client{Transport: http.DefaultTransport}),
		client.WithBinding(a2a.BindingGRPC), client.WithTransport(a2a.BindingGRPC, conn.Factory(true)),
		client.WithHeader(func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+key)
			return nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestGRPCFrontCardListsTheGRPCInterface(t *testing.T) {
	e := startGRPCFront(t, "")
	_, body := get(t, e.url+"/a2a/agent/.well-known/agent-card.json")
	var c a2a.AgentCard
	if err := json.Unmarshal(body, &c); err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, in := range c.SupportedInterfaces {
		if in.ProtocolBinding == a2a.BindingGRPC {
			found = true
			if in.URL != strings.TrimPrefix(e.url, "http://") || in.Tenant != "agent" || in.ProtocolVersion != a2a.ProtocolVersion {
				t.Fatalf("GRPC interface = %+v", in)
			}
		}
	}
	if !found {
		t.Fatalf("no GRPC interface: %s", body)
	}
}

// A task created over gRPC through the front is its owner's on every
// binding and nobody else's.
func TestGRPCFrontTaskIsItsOwnersOnEveryBinding(t *testing.T) {
	e := startGRPCFront(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	alice := e.grpcClient(t, aliceKey)
	res, err := alice.SendMessage(ctx, &a2a.SendMessageRequest{Message: textMsg("hello")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Task == nil || res.Task.Status.State != a2a.TaskStateCompleted || artifactText(res.Task) != "echo: hello" {
		t.Fatalf("SendMessage = %+v", res)
	}
	st, err := alice.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: textMsg("/slow 1")})
	if err != nil {
		t.Fatal(err)
	}
	var last a2a.TaskState
	for ev, err := range st.All() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.StatusUpdate != nil {
			last = ev.StatusUpdate.Status.State
		}
	}
	if last != a2a.TaskStateCompleted {
		t.Fatalf("stream ended in %s", last)
	}
	if got, err := e.client(t, aliceKey).GetTask(ctx, &a2a.GetTaskRequest{ID: res.Task.ID}); err != nil || got.ID != res.Task.ID {
		t.Fatalf("alice over JSON-RPC: %+v, %v", got, err)
	}
	if _, err := e.client(t, bobKey).GetTask(ctx, &a2a.GetTaskRequest{ID: res.Task.ID}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Fatalf("bob over JSON-RPC: %v", err)
	}
	if _, err := e.grpcClient(t, bobKey).GetTask(ctx, &a2a.GetTaskRequest{ID: res.Task.ID}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Fatalf("bob over gRPC: %v", err)
	}
}

func TestGRPCFrontRefusals(t *testing.T) {
	e := startGRPCFront(t, "")
	addr := strings.TrimPrefix(e.url, "http://")
	dial := func(opts ...grpc.DialOption) *grpc.ClientConn {
		cc, err := grpc.NewClient("passthrough:///"+addr, append(opts, grpc.WithTransportCredentials(insecure.NewCredentials()))...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cc.Close() })
		return cc
	}
	call := func(cc *grpc.ClientConn, req *pb.GetTaskRequest, md ...string) (*status.Status, metadata.MD) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var header metadata.MD
		err := cc.Invoke(metadata.NewOutgoingContext(ctx, metadata.Pairs(md...)), a2agrpc.PathPrefix+a2a.MethodGetTask, req, &pb.Task{}, grpc.Header(&header))
		return status.Convert(err), header
	}
	cc := dial()
	cases := []struct {
		name   string
		cc     *grpc.ClientConn
		req    *pb.GetTaskRequest
		md     []string
		code   codes.Code
		reason string
	}{
		{"no credentials", cc, &pb.GetTaskRequest{Tenant: "agent", Id: "x"}, []string{"a2a-version", "1.0"}, codes.Unauthenticated, "UNAUTHENTICATED"},
		{"unknown key", cc, &pb.GetTaskRequest{Tenant: "agent", Id: "x"}, []string{"a2a-version", "1.0", "authorization", "Bearer nope"}, codes.Unauthenticated, "UNAUTHENTICATED"},
		{"unknown tenant", cc, &pb.GetTaskRequest{Tenant: "nobody", Id: "x"}, []string{"a2a-version", "1.0", "authorization", "Bearer " + aliceKey}, codes.InvalidArgument, ""},
		{"no tenant is the only agent", cc, &pb.GetTaskRequest{Id: "x"}, []string{"a2a-version", "1.0", "authorization", "Bearer " + aliceKey}, codes.NotFound, "TASK_NOT_FOUND"},
		{"version 0.3", cc, &pb.GetTaskRequest{Tenant: "agent", Id: "x"}, []string{"a2a-version", "0.3", "authorization", "Bearer " + aliceKey}, codes.FailedPrecondition, "VERSION_NOT_SUPPORTED"},
		{"a host the bridge does not answer to", dial(grpc.WithAuthority("rebound.example:80")), &pb.GetTaskRequest{Tenant: "agent", Id: "x"}, []string{"a2a-version", "1.0", "authorization", "Bearer " + aliceKey}, codes.PermissionDenied, "PERMISSION_DENIED"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, trailer := call(tc.cc, tc.req, tc.md...)
			if st.Code() != tc.code {
				t.Fatalf("code = %s (%s), want %s", st.Code(), st.Message(), tc.code)
			}
			if tc.reason == "" {
				return
			}
			var reason string
			for _, d := range st.Details() {
				if ei, ok := d.(*errdetails.ErrorInfo); ok {
					reason = ei.Reason
				}
			}
			if reason != tc.reason {
				t.Fatalf("reason = %q, want %s", reason, tc.reason)
			}
			if tc.code == codes.Unauthenticated && len(trailer.Get("www-authenticate")) == 0 {
				t.Fatalf("no www-authenticate header: %v", trailer)
			}
		})
	}
}

// upstreamAuth receives the Authorization of calls to a gRPC-only upstream
// (tests reading it do not run in parallel).
var upstreamAuth = make(chan string, 16)

// startGRPCOnlyUpstream is the demo agent whose card (served over HTTP)
// offers one interface: gRPC on a listener of its own.
func startGRPCOnlyUpstream(t *testing.T) (cardURL string, agent *cancelRecorder) {
	cardURL, agent, _ = startGRPCOnlyUpstreamAt(t, "127.0.0.1:0")
	return cardURL, agent
}

// startGRPCOnlyUpstreamAt is startGRPCOnlyUpstream with the gRPC listener
// on addr, also returning its address.
func startGRPCOnlyUpstreamAt(t *testing.T, addr string) (cardURL string, agent *cancelRecorder, grpcAddr string) {
	t.Helper()
	agent = &cancelRecorder{Agent: demoagent.Agent{Tick: 5 * time.Millisecond}, canceled: make(chan string, 4)}
	mgr, err := taskmanager.New(taskmanager.Config{Store: store.NewMemory(), Executor: agent, Logger: quiet, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	gln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	card := demoagent.Card("http://unused.invalid")
	card.SupportedInterfaces = []a2a.AgentInterface{{URL: gln.Addr().String(), ProtocolBinding: a2a.BindingGRPC, ProtocolVersion: a2a.ProtocolVersion}}
	as, err := server.New(server.Config{Manager: mgr, Card: card, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	target := &a2agrpc.Target{Server: as, Authenticate: func(r *http.Request) (context.Context, error) {
		select {
		case upstreamAuth <- r.Header.Get("Authorization"):
		default:
		}
		return r.Context(), nil
	}}
	gs, err := a2agrpc.New(a2agrpc.Config{
		Resolve:      func(context.Context, string) (*a2agrpc.Target, error) { return target, nil },
		MaxRecvBytes: 1 << 20, MaxSendBytes: 1 << 20, MaxUnaryDuration: time.Minute, Logger: quiet,
	})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = gs.Serve(gln) }()
	cs := httptest.NewServer(http.HandlerFunc(as.ServeCard))
	t.Cleanup(func() { cs.Close(); gs.Stop(); mgr.Wait() })
	return cs.URL + "/.well-known/agent-card.json", agent, gln.Addr().String()
}

// The front calls an upstream whose card offers only gRPC over gRPC:
// blocking, streaming event by event, cancel and subscribe mapped to the
// upstream's task.
func TestGRPCFrontCallsAGRPCOnlyUpstream(t *testing.T) {
	cardURL, agent := startGRPCOnlyUpstream(t)
	e := startFront(t, frontYAML(cardURL, ""), gateway.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := e.client(t, aliceKey)
	res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: textMsg("hello")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Task == nil || res.Task.Status.State != a2a.TaskStateCompleted || artifactText(res.Task) != "echo: hello" {
		t.Fatalf("SendMessage = %+v", res)
	}
	st, err := c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: textMsg("/slow 2")})
	if err != nil {
		t.Fatal(err)
	}
	var states []a2a.TaskState
	for ev, err := range st.All() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.StatusUpdate != nil {
			states = append(states, ev.StatusUpdate.Status.State)
		}
	}
	if len(states) < 3 || states[len(states)-1] != a2a.TaskStateCompleted {
		t.Fatalf("relayed states = %v", states)
	}
	slow, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: textMsg("/slow 1000"), Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true}})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: slow.Task.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sub.Next(); err != nil {
		t.Fatalf("first subscribed event: %v", err)
	}
	canceled, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: slow.Task.ID})
	if err != nil || canceled.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("CancelTask = %+v, %v", canceled, err)
	}
	select {
	case id := <-agent.canceled:
		if id == "" || id == slow.Task.ID {
			t.Fatalf("upstream asked to cancel %q (the bridge's id is %s)", id, slow.Task.ID)
		}
	case <-ctx.Done():
		t.Fatal("the cancel did not reach the upstream over gRPC")
	}
	var last a2a.TaskState
	for ev, err := range sub.All() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.StatusUpdate != nil {
			last = ev.StatusUpdate.Status.State
		}
	}
	if last != a2a.TaskStateCanceled {
		t.Fatalf("subscription ended in %s", last)
	}
}

// An exposed agent whose card offers only gRPC is called over gRPC, through
// netguard's dialer: the card names its gRPC interface on 127.0.0.2, which
// netguard refuses unless unsafe_allow admits it as it would an HTTP
// interface there.
func TestGRPCExposeCallsAGRPCOnlyAgentThroughNetguard(t *testing.T) {
	cardURL, _, grpcAddr := startGRPCOnlyUpstreamAt(t, "127.0.0.2:0")
	_, cardPort, _ := net.SplitHostPort(strings.TrimPrefix(strings.TrimSuffix(cardURL, "/.well-known/agent-card.json"), "http://"))
	_, grpcPort, _ := net.SplitHostPort(grpcAddr)
	run := func(allow string) (*mcp.CallToolResult, error) {
		yaml := fmt.Sprintf(`
listen: 127.0.0.1:8080
store: "memory:"
auth:
  api_keys:
    - {name: alice, sha256: %q}
policy: {default: allow}
expose:
  agents:
    - {alias: echo, url: %q}
netguard:
  unsafe_allow: [%s]
  unsafe_allow_http: true
  ports: [%s, %s]
`, hash(aliceKey), cardURL, allow, cardPort, grpcPort)
		cfg, err := config.Parse([]byte(yaml), "inline.yaml")
		if err != nil {
			t.Fatal(err)
		}
		b, err := gateway.Build(context.Background(), cfg, gateway.Options{Logger: quiet, PublicURL: "http://127.0.0.1:8080"})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(b.Handler())
		t.Cleanup(func() { srv.Close(); _ = b.Close() })
		e := &env{url: srv.URL}
		c := e.mcpClient(t, aliceKey)
		lst, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
		if err != nil || len(lst.Tools) == 0 {
			t.Fatalf("tools: %v %v", lst, err)
		}
		return c.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: lst.Tools[0].Name, Arguments: map[string]any{"message": "ping"}}})
	}
	res, err := run("127.0.0.1/32, 127.0.0.2/32")
	if err != nil || res.IsError {
		t.Fatalf("call over gRPC: %+v, %v", res, err)
	}
	if got := fmt.Sprint(res.Content); !strings.Contains(got, "echo: ping") {
		t.Fatalf("result %s", got)
	}
	// 127.0.0.2 is not admitted: the dial is refused.
	res, err = run("127.0.0.1/32")
	if err == nil && !res.IsError {
		t.Fatalf("call to a refused gRPC address succeeded: %+v", res.Content)
	}
}

// The front's credential goes to a gRPC interface only where it would go
// over HTTP: the card URL's host:port or credential_hosts. A gRPC port
// other than the card's is refused until it is listed.
func TestGRPCFrontCredentialGoesOnlyToListedHosts(t *testing.T) {
	t.Setenv("GATEWAY_TEST_FRONT_SECRET", "upstream-secret")
	for _, listed := range []bool{false, true} {
		t.Run(fmt.Sprintf("listed=%v", listed), func(t *testing.T) {
			cardURL, _, grpcAddr := startGRPCOnlyUpstreamAt(t, "127.0.0.1:0")
			entry := fmt.Sprintf("{name: agent, url: %q, credentials: {static: {env: GATEWAY_TEST_FRONT_SECRET}}}", cardURL)
			if listed {
				entry = fmt.Sprintf("{name: agent, url: %q, credentials: {static: {env: GATEWAY_TEST_FRONT_SECRET}}, credential_hosts: [%q]}", cardURL, grpcAddr)
			}
			yaml := strings.Replace(frontYAML("UNUSED", ""), fmt.Sprintf("{name: agent, url: %q}", "UNUSED"), entry, 1)
			e := startFront(t, yaml, gateway.Options{})
			for len(upstreamAuth) > 0 {
				<-upstreamAuth
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, err := e.client(t, aliceKey).SendMessage(ctx, &a2a.SendMessageRequest{Message: textMsg("hi")})
			if !listed {
				if ae := a2a.AsError(err); ae.Reason != "AGENT_UNAVAILABLE" || !strings.Contains(ae.Message, "credential_hosts") {
					t.Fatalf("err = %v, want AGENT_UNAVAILABLE naming credential_hosts", err)
				}
				if len(upstreamAuth) != 0 {
					t.Fatalf("the upstream was called: %q", <-upstreamAuth)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := <-upstreamAuth; got != "Bearer upstream-secret" {
				t.Fatalf("the upstream received %q", got)
			}
		})
	}
}

// TestGRPCFront_UpstreamDialErrorIsNotLeaked: a fronted agent whose gRPC
// interface cannot be dialed is AGENT_UNAVAILABLE to the caller, as over
// HTTP; grpc-go's dial error, which names the upstream's address, stays in
// the bridge's log.
func TestGRPCFront_UpstreamDialErrorIsNotLeaked(t *testing.T) {
	mgr, err := taskmanager.New(taskmanager.Config{Store: store.NewMemory(), Executor: &demoagent.Agent{}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer mgr.Wait()
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := dead.Addr().String()
	_ = dead.Close()
	card := demoagent.Card("http://unused.invalid")
	card.SupportedInterfaces = []a2a.AgentInterface{{URL: deadAddr, ProtocolBinding: a2a.BindingGRPC, ProtocolVersion: a2a.ProtocolVersion}}
	as, err := server.New(server.Config{Manager: mgr, Card: card, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	cs := httptest.NewServer(http.HandlerFunc(as.ServeCard))
	defer cs.Close()
	e := startFront(t, frontYAML(cs.URL+"/.well-known/agent-card.json", ""), gateway.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = e.client(t, aliceKey).SendMessage(ctx, &a2a.SendMessageRequest{Message: textMsg("hi")})
	ae := a2a.AsError(err)
	if ae.Reason != "AGENT_UNAVAILABLE" {
		t.Fatalf("err = %v, want AGENT_UNAVAILABLE", err)
	}
	_, port, _ := net.SplitHostPort(deadAddr)
	for _, leak := range []string{port, "dial", "transport"} {
		if strings.Contains(ae.Message, leak) {
			t.Fatalf("the caller learns %q: %s", leak, ae.Message)
		}
	}
}
