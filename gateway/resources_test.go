package gateway_test

import (
	"context"
	"fmt"
	"net"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/gateway"
)

// TestAgentCardResourceUnderDenyByDefault: with policy default deny and a
// rule allowing hop.agent "echo" (as examples/expose-agents.yaml has it),
// alice lists and reads echo's card resource; bob, whom no rule allows,
// sees no resource and cannot read it. The card's hop names its agent.
func TestAgentCardResourceUnderDenyByDefault(t *testing.T) {
	demo := startDemoAgent(t)
	du, _ := url.Parse(demo.URL)
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
    - {name: alice-echo, allow: 'principal.subject == "alice" && hop.agent == "echo"'}
expose:
  agents:
    - {alias: echo, url: %q}
netguard:
  unsafe_allow: [127.0.0.1/32]
  unsafe_allow_http: true
  ports: [%s]
`, hash(aliceKey), hash(bobKey), demo.URL, du.Port())
	cfg, err := config.Parse([]byte(yaml), "inline.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pub := "http://" + ln.Addr().String()
	ctx := context.Background()
	b, err := gateway.Build(ctx, cfg, gateway.Options{Logger: quiet, PublicURL: pub})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(b.Handler())
	srv.Listener = ln
	srv.Start()
	t.Cleanup(func() { srv.Close(); _ = b.Close() })

	connect := func(key string) *client.Client {
		tr, err := transport.NewStreamableHTTP(pub+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + key}))
		if err != nil {
			t.Fatal(err)
		}
		c := client.NewClient(tr)
		if err := c.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION, ClientInfo: mcp.Implementation{Name: "t", Version: "1"}}}); err != nil {
			t.Fatal(err)
		}
		return c
	}
	const card = "a2a://agents/echo/card"
	alice := connect(aliceKey)
	lst, err := alice.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(lst.Resources) != 1 || lst.Resources[0].URI != card {
		t.Fatalf("alice's resources: %+v, want %s", lst.Resources, card)
	}
	rd, err := alice.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: card}})
	if err != nil {
		t.Fatalf("alice reads the card: %v", err)
	}
	if tc, ok := rd.Contents[0].(mcp.TextResourceContents); !ok || !strings.Contains(tc.Text, "Echo demo agent") {
		t.Fatalf("card contents: %+v", rd.Contents)
	}

	bob := connect(bobKey)
	if lst, err := bob.ListResources(ctx, mcp.ListResourcesRequest{}); err != nil || len(lst.Resources) != 0 {
		t.Fatalf("bob's resources: %v %+v, want none", err, lst)
	}
	if _, err := bob.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: card}}); err == nil {
		t.Fatal("bob read a card no rule lets him read")
	}
}
