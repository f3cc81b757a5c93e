//go:build interop

package interop

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// startJSServerPush is startJSServer with the agent's push notifications on
// (A2A_JS_PUSH=1).
func startJSServerPush(t *testing.T, node string) string {
	t.Helper()
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(node, "server.mjs")
	cmd.Dir = jsDir
	cmd.Env = append(os.Environ(), "HOST=127.0.0.1", "PORT="+port, "A2A_JS_PUSH=1")
	startServer(t, cmd, "http://"+addr+"/healthz")
	return "http://" + addr
}

// startBridgeFront runs `bridge serve` on a free loopback port, fronting the
// A2A agent at upstream as "agent" (anonymous callers, allow-all policy,
// memory store, loopback upstream allowed), and returns the fronted agent's
// base URL once /readyz says the upstream card is loaded.
func startBridgeFront(t *testing.T, upstream string, push bool) string {
	t.Helper()
	bin := buildBridge(t)
	addr := freeAddr(t)
	pushOn := "false"
	if push {
		pushOn = "true"
	}
	cfg := "listen: " + addr + "\n" +
		"store: \"memory:\"\n" +
		"auth: {anonymous: true}\n" +
		"policy: {default: allow}\n" +
		"push: {enabled: " + pushOn + "}\n" +
		"netguard: {unsafe_allow: [127.0.0.0/8], unsafe_allow_http: true}\n" +
		"front:\n  a2a:\n    - {name: agent, url: \"" + upstream + "/.well-known/agent-card.json\"}\n"
	path := filepath.Join(t.TempDir(), "front.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatalf("interop: write bridge config: %v", err)
	}
	if out, err := exec.Command(bin, "check-config", path).CombinedOutput(); err != nil {
		t.Fatalf("interop: bridge check-config: %v\n%s", err, out)
	}
	startServer(t, exec.Command(bin, "serve", "--config", path), "http://"+addr+"/readyz")
	return "http://" + addr + "/a2a/agent"
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
	runTCK(t, tck, startBridgeFront(t, startJSServerPush(t, node), true), "tck/baseline-front-a2ajs.txt")
}
