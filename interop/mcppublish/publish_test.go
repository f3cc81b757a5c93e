//go:build interop

// Package mcppublish_test publishes @modelcontextprotocol/server-everything
// (npm, pinned in package-lock.json) over stdio as an A2A agent with
// mcp/publish and drives it with the @a2a-js/sdk client (client-test.mjs).
// Needs node (v20+) and npm: go test -tags interop ./interop/mcppublish/
package mcppublish_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/a2agrpc"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/gateway"
	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/publish"
)

// counting records which tools reached the upstream.
type counting struct {
	publish.Upstream
	mu    sync.Mutex
	calls map[string][]string
}

func (c *counting) CallTool(ctx context.Context, name string, args json.RawMessage, p connector.ProgressFunc, e connector.ElicitFunc) (json.RawMessage, error) {
	c.mu.Lock()
	c.calls[name] = append(c.calls[name], string(args))
	c.mu.Unlock()
	return c.Upstream.CallTool(ctx, name, args, p, e)
}

func TestServerEverythingThroughA2AJS(t *testing.T) {
	node, everything := bridgetest.Everything(t, ".")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, err := connector.Dial(ctx, connector.Config{
		Name:  "everything",
		Stdio: &connector.StdioConfig{Command: node, Args: []string{everything, "stdio"}, InheritEnv: []string{"PATH", "HOME"}},
		// As the gateway publishes: A2A callers answer questions but
		// cannot sample.
		NoSampling: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	t.Logf("server-everything negotiated MCP %s", conn.ProtocolVersion())

	up := &counting{Upstream: conn, calls: map[string][]string{}}
	st := store.NewMemory()
	agent, err := publish.New(publish.Config{Name: "everything", Store: st, ProgressInterval: -1}, up)
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := taskmanager.New(taskmanager.Config{Store: st, Executor: agent})
	if err != nil {
		t.Fatal(err)
	}
	defer mgr.Wait()
	// JSON-RPC and HTTP+JSON at /a2a/everything, gRPC (tenant
	// "everything") on the same listener over h2c.
	mux := http.NewServeMux()
	ts := httptest.NewUnstartedServer(mux)
	ts.Config.Protocols = new(http.Protocols)
	ts.Config.Protocols.SetHTTP1(true)
	ts.Config.Protocols.SetUnencryptedHTTP2(true)
	ts.Start()
	defer ts.Close()
	base := ts.URL + "/a2a/everything"
	cardOf := func() *a2a.AgentCard {
		c := agent.Card(base)
		c.SupportedInterfaces = append(c.SupportedInterfaces, a2a.AgentInterface{URL: ts.Listener.Addr().String(), ProtocolBinding: a2a.BindingGRPC, Tenant: "everything", ProtocolVersion: a2a.ProtocolVersion})
		return c
	}
	srv, err := server.New(server.Config{Manager: mgr, Card: cardOf()})
	if err != nil {
		t.Fatal(err)
	}
	agent.OnCardChanged(func() { _ = srv.SetCard(cardOf()) })
	// server-everything offers its sampling tool only to a client that
	// declared sampling: the card has no skill bound to fail, and keeps the
	// elicitation one, which A2A callers answer (INPUT_REQUIRED).
	skills := map[string]bool{}
	for _, sk := range agent.Card(base).Skills {
		skills[sk.ID] = true
	}
	if skills["trigger-sampling-request"] || !skills["trigger-elicitation-request"] {
		t.Errorf("card skills %v: want trigger-elicitation-request and no trigger-sampling-request", skills)
	}
	gateway.Mount(mux, "/a2a/everything", srv)
	target := &a2agrpc.Target{Server: srv}
	gs, err := a2agrpc.New(a2agrpc.Config{
		Resolve: func(_ context.Context, tenant string) (*a2agrpc.Target, error) {
			if tenant != "everything" {
				return nil, a2a.ErrInvalidParams.Withf("no agent %q", tenant)
			}
			return target, nil
		},
		MaxRecvBytes: 4 << 20, MaxSendBytes: 16 << 20, MaxUnaryDuration: time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer gs.Stop()
	mux.Handle(a2agrpc.PathPrefix, gs)

	cmd := exec.CommandContext(ctx, node, "--test", "client-test.mjs")
	cmd.Env = append(os.Environ(), "A2A_BASE_URL="+base)
	out, err := cmd.CombinedOutput()
	t.Logf("node --test client-test.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("JS client tests failed: %v", err)
	}
	up.mu.Lock()
	defer up.mu.Unlock()
	for _, args := range up.calls["get-sum"] {
		var a map[string]any
		_ = json.Unmarshal([]byte(args), &a)
		if _, ok := a["a"].(float64); !ok {
			t.Errorf("get-sum reached the upstream with bad arguments %s", args)
		}
	}
	if n := len(up.calls["no-such-tool"]); n != 0 {
		t.Errorf("an unknown tool reached the upstream %d times", n)
	}
}
