package gateway_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/gateway"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector/connectortest"
)

// TestBuildCountsUpstreamRestarts: Build gives every published MCP server
// an OnRestart hook that feeds bridge_upstream_restarts_total.
func TestBuildCountsUpstreamRestarts(t *testing.T) {
	cfg := aliceToolsConfig(t, "restarts.yaml")
	srv := connectortest.NewServer(connectortest.Options{})
	hooks := map[string]func(string){}
	b, err := gateway.Build(context.Background(), cfg, gateway.Options{Logger: quiet, Store: store.NewMemory(),
		DialUpstream: func(ctx context.Context, c connector.Config) (*connector.Conn, error) {
			hooks[c.Name] = c.OnRestart
			return connector.InProcess(ctx, srv.MCP, c)
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	hook := hooks["tools"]
	if hook == nil {
		t.Fatal("published server dialled without an OnRestart hook")
	}
	hook("tools")
	rec := httptest.NewRecorder()
	b.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	want := `bridge_upstream_restarts_total{upstream="publish/tools"} 1`
	if !strings.Contains(string(body), want) {
		t.Fatalf("metrics lack %q:\n%s", want, grepLines(string(body), "bridge_upstream"))
	}
}
