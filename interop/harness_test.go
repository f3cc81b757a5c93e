//go:build interop

// Package interop holds cross-implementation tests: the bridge against the
// @a2a-js/sdk client, our Go client against an @a2a-js/sdk server. They need
// node (v20+) and npm and run with `go test -tags interop ./interop/...`
// (`make interop`). Every socket is on 127.0.0.1; the processes are started
// by internal/bridgetest.
package interop

import (
	"os"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
)

// jsDir is the node project with client-test.mjs and server.mjs.
const jsDir = "a2ajs"

func TestMain(m *testing.M) { os.Exit(bridgetest.Main(m)) }

// requireNode skips the test when node is not installed and makes sure the
// pinned npm dependencies of a2ajs are present.
func requireNode(t *testing.T) string {
	t.Helper()
	return bridgetest.Node(t, jsDir, "@a2a-js/sdk")
}

// startBridgeDemo runs `bridge demo` and returns the demo agent's base URL.
func startBridgeDemo(t *testing.T) string {
	t.Helper()
	return bridgetest.StartDemo(t).URL + "/a2a/echo"
}

// startJSServer runs server.mjs (the @a2a-js/sdk agent) on a free loopback
// port and returns its base URL; env adds variables (A2A_JS_GRPC=only: the
// agent on the SDK's gRPC server alone; A2A_JS_PUSH=1: push on).
func startJSServer(t *testing.T, node string, env ...string) string {
	t.Helper()
	return bridgetest.StartNodeServer(t, node, jsDir, "", "server.mjs", env...).URL
}

// runJSClientTests runs client-test.mjs against base (env adds variables:
// A2A_BINDINGS, A2A_TENANT) and fails t with the node output when any test
// fails.
func runJSClientTests(t *testing.T, node, base string, env ...string) {
	t.Helper()
	bridgetest.RunNodeTest(t, node, jsDir, "client-test.mjs", append([]string{"A2A_BASE_URL=" + base}, env...)...)
}

// TestJSClientAgainstJSServer checks the harness itself: the SDK client
// against the SDK agent. If this fails the other results mean nothing.
func TestJSClientAgainstJSServer(t *testing.T) {
	node := requireNode(t)
	runJSClientTests(t, node, startJSServer(t, node))
}

// TestJSClientAgainstBridgeDemo runs the @a2a-js/sdk client over JSON-RPC and
// HTTP+JSON against `bridge demo`.
func TestJSClientAgainstBridgeDemo(t *testing.T) {
	node := requireNode(t)
	runJSClientTests(t, node, startBridgeDemo(t))
}
