//go:build interop

package interop

import (
	"fmt"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
)

// TestJSGRPCClientAgainstBridgeDemo runs the @a2a-js/sdk gRPC client
// (@a2a-js/sdk/client/grpc on @grpc/grpc-js) against `bridge demo`, which
// serves gRPC on its listener over h2c: card, blocking, streaming,
// multi-turn, get, list, cancel, subscribe, failure, direct message and
// not-found, with the tenant the card's GRPC interface names.
func TestJSGRPCClientAgainstBridgeDemo(t *testing.T) {
	node := requireNode(t)
	runJSClientTests(t, node, startBridgeDemo(t), "A2A_BINDINGS=GRPC")
}

// TestJSGRPCClientThroughFrontToBridgeDemo runs the SDK's gRPC client
// against `bridge serve` fronting `bridge demo`, which the front calls over
// JSON-RPC: gRPC in, JSON-RPC out, the bridge's own task ids.
func TestJSGRPCClientThroughFrontToBridgeDemo(t *testing.T) {
	node := requireNode(t)
	demo := startBridgeDemo(t)
	base := startBridgeServe(t, fmt.Sprintf(`
store: "memory:"
auth: {anonymous: true}
policy: {default: allow}
front:
  a2a:
    - {name: echo, url: %q}
server:
  grpc: {enabled: true}
`, demo+"/.well-known/agent-card.json"))
	runJSClientTests(t, node, base+"/a2a/echo", "A2A_BINDINGS=GRPC")
}

// TestJSGRPCClientAgainstJSGRPCServer checks the harness itself over gRPC:
// the SDK's gRPC client against the SDK's gRPC server.
func TestJSGRPCClientAgainstJSGRPCServer(t *testing.T) {
	node := requireNode(t)
	runJSClientTests(t, node, startJSServer(t, node, "A2A_JS_GRPC=only"), "A2A_BINDINGS=GRPC")
}

// TestJSClientThroughFrontToJSGRPCServer: `bridge serve` fronts an agent
// written on @a2a-js/sdk's gRPC server, whose card offers only gRPC; the
// SDK's JSON-RPC and HTTP+JSON clients call the bridge, which calls the
// agent over gRPC: every scenario, cancel and subscribe included.
func TestJSClientThroughFrontToJSGRPCServer(t *testing.T) {
	node := requireNode(t)
	up := startJSServer(t, node, "A2A_JS_GRPC=only")
	base := startBridgeServe(t, fmt.Sprintf(`
store: "memory:"
auth: {anonymous: true}
policy: {default: allow}
front:
  a2a:
    - {name: echo, url: %q}
`, up+"/.well-known/agent-card.json"))
	runJSClientTests(t, node, base+"/a2a/echo")
}

// startBridgeServe runs `bridge serve` with the configuration yaml (listen
// is added: a free loopback port) and returns the bridge's base URL once
// /readyz answers.
func startBridgeServe(t *testing.T, yaml string) string {
	t.Helper()
	return bridgetest.StartBridge(t, yaml).URL
}
