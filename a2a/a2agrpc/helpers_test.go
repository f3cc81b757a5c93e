package a2agrpc_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/a2agrpc"
	"github.com/a2a-mcp-bridge/bridge/a2a/client"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/examples/demoagent"
)

// harness is one demo agent served on all three bindings by one
// http.Server (HTTP/1.1 and h2c): JSON-RPC at /, HTTP+JSON under /rest,
// gRPC on content type application/grpc; and the same agent's gRPC
// service on a listener of its own. Callers authenticate with
// "Authorization: Bearer NAME" (or "X-Api-Key: NAME"), NAME owning their
// tasks; both at once are refused.
type harness struct {
	t        testing.TB
	srv      *server.Server
	mgr      *taskmanager.Manager
	gs       *a2agrpc.Server
	httpURL  string // the shared listener's base URL
	grpcAddr string // the service's own listener
	card     *a2a.AgentCard
	conn     *a2agrpc.Connector
	mu       sync.Mutex
	guarded  []string // the calls that reached the guard, in order
}

func (h *harness) guardedCalls() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.guarded...)
}

func authenticate(r *http.Request) (context.Context, error) {
	bearer := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	key := r.Header.Get("X-Api-Key")
	switch {
	case bearer != "" && key != "":
		return nil, a2a.ErrUnauthenticated.With("more than one credential")
	case bearer != "":
		return server.WithOwner(r.Context(), "user:"+bearer), nil
	case key != "":
		return server.WithOwner(r.Context(), "key:"+key), nil
	}
	e := a2a.ErrUnauthenticated.With("authentication required")
	e.Header = http.Header{"Www-Authenticate": {`Bearer realm="test"`}}
	return nil, e
}

func newHarness(t testing.TB, mod func(*server.Config)) *harness {
	return newHarnessWith(t, mod, 30*time.Second)
}

// newHarnessWith is newHarness with the gRPC service's MaxUnaryDuration.
func newHarnessWith(t testing.TB, mod func(*server.Config), maxUnary time.Duration) *harness {
	t.Helper()
	h := &harness{t: t}
	st := store.NewMemory()
	mgr, err := taskmanager.New(taskmanager.Config{Store: st, Executor: &demoagent.Agent{Tick: 20 * time.Millisecond, StreamingTimeout: 50 * time.Millisecond}, CancelGrace: 2 * time.Second, PollInterval: 50 * time.Millisecond, LeaseWait: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	h.mgr = mgr
	scfg := server.Config{
		Manager: mgr, Card: demoagent.Card("http://example.invalid"), PushEnabled: true,
		Guard: func(_ context.Context, c *server.Call) error {
			h.mu.Lock()
			h.guarded = append(h.guarded, c.Binding+" "+c.Method)
			h.mu.Unlock()
			return nil
		},
	}
	if mod != nil {
		mod(&scfg)
	}
	srv, err := server.New(scfg)
	if err != nil {
		t.Fatal(err)
	}
	h.srv = srv
	target := &a2agrpc.Target{Server: srv, Authenticate: authenticate}
	gs, err := a2agrpc.New(a2agrpc.Config{
		Resolve: func(_ context.Context, tenant string) (*a2agrpc.Target, error) {
			if tenant != "" && tenant != "echo" {
				return nil, a2a.ErrInvalidParams.Withf("no agent %q is served here", tenant)
			}
			return target, nil
		},
		MaxRecvBytes: 1 << 20, MaxSendBytes: 4 << 20, MaxUnaryDuration: maxUnary,
	})
	if err != nil {
		t.Fatal(err)
	}
	h.gs = gs

	// The shared listener: the HTTP bindings behind the same
	// authentication as the gRPC service.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a2agrpc.IsGRPC(r) {
			gs.ServeHTTP(w, r)
			return
		}
		if strings.HasSuffix(r.URL.Path, "/.well-known/agent-card.json") {
			srv.ServeHTTP(w, r)
			return
		}
		ctx, err := authenticate(r)
		if err != nil {
			srv.WriteError(w, r, err)
			return
		}
		srv.ServeHTTP(w, r.WithContext(ctx))
	})}
	hs.Protocols = new(http.Protocols)
	hs.Protocols.SetHTTP1(true)
	hs.Protocols.SetUnencryptedHTTP2(true)
	go func() { _ = hs.Serve(ln) }()
	h.httpURL = "http://" + ln.Addr().String()

	gln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = gs.Serve(gln) }()
	h.grpcAddr = gln.Addr().String()

	h.card = demoagent.Card(h.httpURL)
	h.card.SupportedInterfaces = append(h.card.SupportedInterfaces, a2a.AgentInterface{URL: h.grpcAddr, ProtocolBinding: a2a.BindingGRPC, ProtocolVersion: a2a.ProtocolVersion})
	h.conn, err = a2agrpc.NewConnector(a2agrpc.ConnectorConfig{Dial: func(ctx context.Context, addr string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", addr)
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = h.conn.Close()
		gs.Stop()
		_ = hs.Close()
		mgr.Wait()
	})
	return h
}

// client is an client.Client of binding for the caller named by bearer.
func (h *harness) client(binding, bearer string) *client.Client {
	h.t.Helper()
	c, err := client.New(h.card,
		client.WithBinding(binding),
		client.WithTransport(a2a.BindingGRPC, h.conn.Factory(true)),
		client.WithHeader(func(_ context.Context, r *http.Request) error {
			if bearer != "" {
				r.Header.Set("Authorization", "Bearer "+bearer)
			}
			return nil
		}))
	if err != nil {
		h.t.Fatal(err)
	}
	return c
}

// raw is a plain gRPC connection to addr (the service's own listener, or
// the shared one).
func (h *harness) raw(addr string) *grpc.ClientConn {
	h.t.Helper()
	cc, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { _ = cc.Close() })
	return cc
}

func userMsg(text, taskID string) *a2a.Message {
	return &a2a.Message{MessageID: "m-" + text + "-" + time.Now().Format("150405.000000000"), TaskID: taskID, Role: a2a.RoleUser, Parts: []a2a.Part{{Text: text}}}
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func structOf(m map[string]any) (*structpb.Struct, error) { return structpb.NewStruct(m) }
