//go:build interop

package mcpexpose

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/gateway"
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestTSClientFidelity runs fidelity-test.mjs (the MCP TypeScript client)
// against the whole bridge built from a config like
// examples/expose-agents.yaml: policy deny by default with a rule for
// alice, the @a2a-js/sdk agent exposed as "echo", an agent that is down at
// start exposed as "down", HTTP sessions on so that the host is asked
// (elicitation/create). It shows: the agent card resource listed and read
// under deny-by-default (and hidden from bob), the down agent's tool listed
// with an error that names the cause, answers that do not fit the requested
// schema asked again, and two questions at once each reaching its own call.
func TestTSClientFidelity(t *testing.T) {
	node := requireNode(t, ".", "../a2ajs")
	agent := startJSAgent(t, node)
	au, err := url.Parse(agent)
	if err != nil {
		t.Fatal(err)
	}
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadPort := dead.Addr().(*net.TCPAddr).Port
	dead.Close()
	const aliceKey, bobKey = "alice-interop-key-0001", "bob-interop-key-0002"
	yaml := fmt.Sprintf(`
listen: 127.0.0.1:8080
store: "memory:"
auth:
  api_keys:
    - {name: alice, sha256: %q}
    - {name: bob, sha256: %q}
policy:
  default: deny
  rules:
    - {name: alice-agents, allow: 'principal.subject == "alice" && hop.agent in ["echo", "down"]'}
expose:
  agents:
    - {alias: echo, url: %q}
    - {alias: down, url: "http://127.0.0.1:%d/.well-known/agent-card.json"}
  mcp: {sessions: true}
netguard:
  unsafe_allow: [127.0.0.1/32]
  unsafe_allow_http: true
  ports: [%s, %d]
`, sha(aliceKey), sha(bobKey), agent, deadPort, au.Port(), deadPort)
	cfg, err := config.Parse([]byte(yaml), "fidelity.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pub := "http://" + ln.Addr().String()
	b, err := gateway.Build(context.Background(), cfg, gateway.Options{Logger: slog.New(slog.DiscardHandler), PublicURL: pub})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(b.Handler())
	srv.Listener = ln
	srv.Start()
	defer func() { srv.Close(); _ = b.Close() }()
	runNodeScript(t, node, "fidelity-test.mjs", "MCP_URL="+pub+"/mcp", "ALICE_KEY="+aliceKey, "BOB_KEY="+bobKey)
}
