//go:build interop

package a2a03

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/a2a/v03"
	"github.com/a2a-mcp-bridge/bridge/gateway"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/publish"
)

// TestA2A03ClientAgainstServerEverything: the 0.3 client calls a tool of
// @modelcontextprotocol/server-everything published as an A2A agent
// (blocking and streaming, get).
func TestA2A03ClientAgainstServerEverything(t *testing.T) {
	node := requireNode(t)
	everything, _ := filepath.Abs("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, err := connector.Dial(ctx, connector.Config{
		Name:  "everything",
		Stdio: &connector.StdioConfig{Command: node, Args: []string{everything, "stdio"}, InheritEnv: []string{"PATH", "HOME"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	st := store.NewMemory()
	agent, err := publish.New(publish.Config{Name: "everything", Store: st, ProgressInterval: -1}, conn)
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := taskmanager.New(taskmanager.Config{Store: st, Executor: agent})
	if err != nil {
		t.Fatal(err)
	}
	defer mgr.Wait()
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	defer ts.Close()
	base := ts.URL + "/a2a/everything"
	srv, err := server.New(server.Config{Manager: mgr, Card: agent.Card(base), Legacy: &v03.Dialect{}, LegacyCard: v03.CardJSON})
	if err != nil {
		t.Fatal(err)
	}
	agent.OnCardChanged(func() { _ = srv.SetCard(agent.Card(base)) })
	gateway.Mount(mux, "/a2a/everything", srv)
	runNode(t, node, "client03-test.mjs", "A2A_BASE_URL="+base, "A2A_AGENT=tools", "A2A_BINDINGS="+bindings,
		"A2A_TOOL=echo", `A2A_TOOL_ARGS={"message":"hi 0.3"}`, "A2A_TOOL_EXPECT=Echo: hi 0.3")
}
