//go:build interop

package fault

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
)

// TestHarness_PeersRestartOnTheirAddress checks the harness itself, with
// nothing broken behind the bridge: the bridge starts from a YAML config,
// answers /healthz, serves a fronted MCP server's tools, and a peer comes
// back on the same address after Stop, Kill and Restart.
func TestHarness_PeersRestartOnTheirAddress(t *testing.T) {
	addr := bridgetest.FreeAddr(t)
	peer := startMCPTestServerHTTP(t, addr)
	b := startBridge(t, fmt.Sprintf(`store: "memory:"
%s%s
front:
  mcp:
    - name: tools
      http: {url: http://%s/mcp}
observability: {log_level: debug}
`, apiKeyAuth, allowAll, addr))
	host := dialMCP(t, b.URL+"/mcp")
	if err := host.callOK(t, "tools_echo", map[string]any{"text": "hello"}, "hello"); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		name string
		do   func()
	}{{"stop", peer.Stop}, {"kill", peer.Kill}} {
		step.do()
		if peer.Running() {
			t.Fatalf("%s: still running", step.name)
		}
		if err := bridgetest.TCPOpen(addr)(t.Context()); err == nil {
			t.Fatalf("%s: %s still accepts connections", step.name, addr)
		}
		peer.Start()
	}
	peer.Restart()
	if err := bridgetest.TCPOpen(addr)(t.Context()); err != nil {
		t.Fatalf("restarted peer: %v", err)
	}
	if code, _ := bridgetest.Get(t, b.URL+"/healthz"); code != http.StatusOK {
		t.Fatalf("/healthz: %d", code)
	}
	took := bridgetest.Eventually(t, 5*time.Second, "a condition that holds", func() error { return nil })
	if took > time.Second {
		t.Fatalf("eventually took %s for a condition that holds at once", took)
	}
	if len(b.Logs()) == 0 {
		t.Fatal("no JSON log lines captured from the bridge")
	}
}
