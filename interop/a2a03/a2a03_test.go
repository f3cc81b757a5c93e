//go:build interop

// Package a2a03 runs A2A 0.3 software we did not write against the bridge,
// and the bridge against it: the @a2a-js/sdk 0.3.14 client (installed
// under the npm alias "a2a03") against `bridge demo`, a published MCP
// server (@modelcontextprotocol/server-everything) and a fronted 1.0
// agent. Run with `go test -tags interop ./interop/a2a03/`; needs node 20+.
package a2a03

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
)

func TestMain(m *testing.M) { os.Exit(bridgetest.Main(m)) }

// requireNode skips without node and installs the pinned npm packages when
// node_modules is missing.
func requireNode(t *testing.T) string {
	t.Helper()
	return bridgetest.Node(t, ".", "a2a03")
}

// startPushReceiver runs push-receiver.mjs and returns its base URL.
func startPushReceiver(t *testing.T, node string) string {
	t.Helper()
	return startNodeServer(t, node, ".", "push-receiver.mjs")
}

// startNodeServer runs a node server file in dir that listens on
// $HOST:$PORT and answers /healthz, and returns its URL.
func startNodeServer(t *testing.T, node, dir, file string, env ...string) string {
	t.Helper()
	return bridgetest.StartNodeServer(t, node, dir, "", file, env...).URL
}

// runNode runs a node test file with env and fails t with its output.
func runNode(t *testing.T, node, file string, env ...string) {
	t.Helper()
	bridgetest.RunNodeTest(t, node, "", file, env...)
}

// TestA2A03ClientAgainstBridgeDemo: the 0.3 client against `bridge demo`:
// echo, streaming with final, /interview, get, cancel, resubscribe, push
// config set/get/list/delete and a delivery to a loopback receiver.
func TestA2A03ClientAgainstBridgeDemo(t *testing.T) {
	node := requireNode(t)
	store := "sqlite:" + filepath.Join(t.TempDir(), "demo.db")
	demo := bridgetest.StartDemo(t, "--store", store, "--unsafe-allow-loopback-push")
	push := startPushReceiver(t, node)
	runNode(t, node, "client03-test.mjs", "A2A_BASE_URL="+demo.URL+"/a2a/echo", "A2A_BINDINGS="+bindings, "A2A_PUSH_URL="+push)
}

// TestLegacyCompatClientAgainstBridge03View: the legacyCompat layer of
// @a2a-js/sdk 1.3.0 reads the bridge's 0.3 card view with its own card
// translation and speaks 0.3 JSON-RPC to `bridge demo`.
func TestLegacyCompatClientAgainstBridge03View(t *testing.T) {
	node := requireNode(t)
	demo := bridgetest.StartDemo(t, "--store", "memory:")
	runNode(t, node, "legacycompat-test.mjs", "A2A_BASE_URL="+demo.URL+"/a2a/echo")
}

// bindings are the bindings of the 0.3 client the tests run.
const bindings = "JSONRPC,HTTP+JSON"
