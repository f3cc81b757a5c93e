//go:build interop

package mcpconformance

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/netguard"
)

const everything = "node_modules/@modelcontextprotocol/server-everything/dist/index.js"

// everythingGaps are the scenarios that server-everything passes directly
// but not through front.mcp, with the reason. Both call a fixture tool
// server-everything does not have (test_simple_text, test_error_handling)
// and pass directly only because its SDK answers an unknown tool with an
// isError result ("Tool test_simple_text not found"), which the suite's
// content checks accept. The bridge answers a tool it does not list with
// the JSON-RPC error the spec prescribes for an unknown tool (-32602) and
// never forwards the call upstream, so the suite finds no content.
var everythingGaps = map[string]string{
	"tools-call-simple-text": "unknown fixture tool: server-everything answers an isError result, the bridge the spec's JSON-RPC error -32602",
	"tools-call-error":       "unknown fixture tool: server-everything answers an isError result, the bridge the spec's JSON-RPC error -32602",
}

// serveEverything runs @modelcontextprotocol/server-everything over
// streamable HTTP (its own /mcp) on 127.0.0.1 and returns its URL.
func serveEverything(t *testing.T) string {
	t.Helper()
	abs, _ := filepath.Abs(node)
	script, _ := filepath.Abs(everything)
	return bridgetest.StartEverything(t, abs, script, "streamableHttp", "").URL + "/mcp"
}

// TestConformanceServerEverything runs the suite against server-everything
// directly, then through front.mcp (server-everything as a stdio child and
// over streamable HTTP, the face with sessions): every scenario it passes
// directly must pass through the bridge. The scenarios that call the
// suite's own fixtures fail directly and are reported only.
func TestConformanceServerEverything(t *testing.T) {
	requireSuite(t)
	if _, err := os.Stat(everything); err != nil {
		t.Skipf("interop: %s missing; run `npm ci` in interop/mcpconformance", everything)
	}
	direct, _ := run(t, serveEverything(t))
	abs, _ := filepath.Abs(node)
	script, _ := filepath.Abs(everything)
	ups := []struct {
		name string
		cfg  func(t *testing.T) connector.Config
	}{
		{"upstream-stdio", func(*testing.T) connector.Config {
			return connector.Config{Stdio: &connector.StdioConfig{Command: abs, Args: []string{script, "stdio"}}}
		}},
		{"upstream-http", func(t *testing.T) connector.Config {
			return connector.Config{HTTP: &connector.HTTPConfig{URL: serveEverything(t), Client: netguard.Trusted(netguard.Config{Timeout: -1, MaxBodyBytes: -1})}}
		}},
	}
	for _, u := range ups {
		t.Run(u.name, func(t *testing.T) {
			fronted, out := run(t, serveFronted(t, "everything", u.cfg(t), true))
			compare(t, direct, fronted, out, everythingGaps)
		})
	}
}
