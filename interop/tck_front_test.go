//go:build interop

package interop

import (
	"testing"

	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
)

// startBridgeFront runs `bridge serve` on a free loopback port, fronting the
// A2A agent at upstream as "agent" (anonymous callers, allow-all policy,
// memory store, loopback upstream allowed), after check-config accepted
// the file, and returns the fronted agent's base URL once /readyz says the
// upstream card is loaded.
func startBridgeFront(t *testing.T, upstream string, push bool) string {
	t.Helper()
	pushOn := "false"
	if push {
		pushOn = "true"
	}
	cfg := "store: \"memory:\"\n" +
		"auth: {anonymous: true}\n" +
		"policy: {default: allow}\n" +
		"push: {enabled: " + pushOn + "}\n" +
		"netguard: {unsafe_allow: [127.0.0.0/8], unsafe_allow_http: true}\n" +
		"front:\n  a2a:\n    - {name: agent, url: \"" + upstream + "/.well-known/agent-card.json\"}\n"
	return bridgetest.StartBridge(t, cfg, bridgetest.CheckConfig()).URL + "/a2a/agent"
}

// TestTCKAgainstFrontedJSServer runs the kit against `bridge serve` fronting
// the a2a-js agent (push off on both). Issue 7: every test the agent passes
// directly must pass through the bridge; tck/baseline-front-a2ajs.txt holds
// only the agent's own echo-behaviour failures.
func TestTCKAgainstFrontedJSServer(t *testing.T) {
	tck := requireTCK(t)
	node := requireNode(t)
	runTCK(t, tck, startBridgeFront(t, startJSServer(t, node), false), "tck/baseline-front-a2ajs.txt")
}

// TestTCKAgainstFrontedJSServerPush is the same with push on: the agent
// advertises push, and the bridge serves the push-config methods itself.
func TestTCKAgainstFrontedJSServerPush(t *testing.T) {
	tck := requireTCK(t)
	node := requireNode(t)
	runTCK(t, tck, startBridgeFront(t, startJSServer(t, node, "A2A_JS_PUSH=1"), true), "tck/baseline-front-a2ajs.txt")
}
