package gateway_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/gateway"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector/connectortest"
)

// TestUpstreamCapabilitiesFollowWhatTheBridgeRelays: a published server is
// never told it may sample (A2A callers cannot answer), so no skill on its
// card is bound to fail; a fronted server is told it may ask and sample on
// every face, since a host can be asked on each: stdio (bridge mcp), HTTP
// sessions, and stateless HTTP (on the tools/call's own event stream).
func TestUpstreamCapabilitiesFollowWhatTheBridgeRelays(t *testing.T) {
	tests := []struct {
		name                       string
		sessions, mcpOnly          bool
		frontElicit, frontSampling bool
	}{
		{"stateless HTTP", false, false, true, true},
		{"HTTP sessions", true, false, true, true},
		{"stdio", false, true, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			yaml := fmt.Sprintf(`
listen: 127.0.0.1:8080
store: "memory:"
auth:
  api_keys:
    - {name: alice, sha256: %q}
policy: {default: allow}
publish:
  - {name: tools, stdio: {command: mcptestserver}}
front:
  mcp:
    - {name: files, stdio: {command: mcptestserver}}
expose:
  mcp: {sessions: %t}
`, hash(aliceKey), tt.sessions)
			cfg, err := config.Parse([]byte(yaml), "inline.yaml")
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			seen := map[string]connector.Config{}
			up := connectortest.NewServer(connectortest.Options{})
			b, err := gateway.Build(context.Background(), cfg, gateway.Options{Logger: quiet, PublicURL: "http://127.0.0.1:8080", MCPOnly: tt.mcpOnly,
				DialUpstream: func(ctx context.Context, c connector.Config) (*connector.Conn, error) {
					mu.Lock()
					seen[c.Name] = c
					mu.Unlock()
					return connector.InProcess(ctx, up.MCP, c)
				}})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			mu.Lock()
			defer mu.Unlock()
			pub, front := seen["tools"], seen["files"]
			if !tt.mcpOnly && (pub.NoElicitation || !pub.NoSampling) {
				t.Errorf("published server: elicitation %v sampling %v; want elicitation only", !pub.NoElicitation, !pub.NoSampling)
			}
			if !front.NoElicitation != tt.frontElicit || !front.NoSampling != tt.frontSampling {
				t.Errorf("fronted server: elicitation %v sampling %v; want %v %v", !front.NoElicitation, !front.NoSampling, tt.frontElicit, tt.frontSampling)
			}
		})
	}
}
