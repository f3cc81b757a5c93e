//go:build interop

package fault

import (
	"testing"

	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
)

// a2ajsDir is the @a2a-js/sdk agent's node project (server.mjs).
const a2ajsDir = "../a2ajs"

// startEverythingHTTP runs @modelcontextprotocol/server-everything over
// streamable HTTP at addr/mcp. It keeps sessions in memory: after a restart
// it answers a session it does not know with 400 "No valid session ID
// provided".
func startEverythingHTTP(t *testing.T, addr string) *bridgetest.Proc {
	t.Helper()
	node, js := bridgetest.Everything(t, ".")
	return bridgetest.StartEverything(t, node, js, "streamableHttp", addr).Proc
}

// startEverythingSSE runs server-everything over the legacy HTTP+SSE
// transport at addr/sse.
func startEverythingSSE(t *testing.T, addr string) *bridgetest.Proc {
	t.Helper()
	node, js := bridgetest.Everything(t, ".")
	return bridgetest.StartEverything(t, node, js, "sse", addr).Proc
}

// startMCPTestServerHTTP runs our MCP test server (connectortest's tools)
// over streamable HTTP at addr/mcp with extra flags (-sessions, -extra-tool
// NAME).
func startMCPTestServerHTTP(t *testing.T, addr string, flags ...string) *bridgetest.Proc {
	t.Helper()
	return bridgetest.StartMCPTestServer(t, addr, flags...).Proc
}

// startA2AJS runs the @a2a-js/sdk agent (../a2ajs/server.mjs) at addr: its
// card at /.well-known/agent-card.json, JSON-RPC at /a2a/jsonrpc.
func startA2AJS(t *testing.T, addr string) *bridgetest.Proc {
	t.Helper()
	node := bridgetest.Node(t, a2ajsDir, "@a2a-js/sdk")
	return bridgetest.StartNodeServer(t, node, a2ajsDir, addr, "server.mjs").Proc
}
