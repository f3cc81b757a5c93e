package gateway_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/client"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/gateway"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector/connectortest"
)

// TestServePushesToALoopbackWebhookWithTheNamedOptions: the options the
// README names for a webhook on this machine under bridge serve
// (push.enabled, netguard.unsafe_allow, unsafe_allow_http, ports) are
// enough for a push to reach it; without them it is refused.
func TestServePushesToALoopbackWebhookWithTheNamedOptions(t *testing.T) {
	got := make(chan struct{}, 16)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case got <- struct{}{}:
		default:
		}
	}))
	t.Cleanup(hook.Close)
	hu, _ := url.Parse(hook.URL)
	for _, allowed := range []bool{true, false} {
		t.Run(fmt.Sprint("allowed=", allowed), func(t *testing.T) {
			ng := "netguard: {unsafe_allow: [127.0.0.1/32], unsafe_allow_http: true, ports: [" + hu.Port() + "]}\n"
			if !allowed {
				ng = ""
			}
			cfg, err := config.Parse([]byte("listen: 127.0.0.1:8080\nstore: \"memory:\"\nauth: {anonymous: true}\npolicy: {default: allow}\n"+
				"push: {enabled: true}\n"+ng+"publish:\n  - {name: tools, stdio: {command: mcptestserver}}\n"), "push.yaml")
			if err != nil {
				t.Fatal(err)
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			pub := "http://" + ln.Addr().String()
			srv := connectortest.NewServer(connectortest.Options{})
			b, err := gateway.Build(context.Background(), cfg, gateway.Options{Logger: quiet, PublicURL: pub, Store: store.NewMemory(),
				DialUpstream: func(ctx context.Context, c connector.Config) (*connector.Conn, error) {
					return connector.InProcess(ctx, srv.MCP, c)
				}})
			if err != nil {
				t.Fatal(err)
			}
			hs := httptest.NewUnstartedServer(b.Handler())
			hs.Listener = ln
			hs.Start()
			rctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { b.Run(rctx); close(done) }()
			t.Cleanup(func() { hs.Close(); cancel(); <-done; _ = b.Close() })

			c, err := client.Dial(context.Background(), pub+"/a2a/tools/.well-known/agent-card.json", client.WithHTTPClient(&http.Client{}))
			if err != nil {
				t.Fatal(err)
			}
			req := toolMessage(t, "add", map[string]any{"a": 1, "b": 2})
			req.Configuration = &a2a.SendMessageConfiguration{TaskPushNotificationConfig: &a2a.TaskPushNotificationConfig{URL: hook.URL + "/hook"}}
			_, err = c.SendMessage(context.Background(), req)
			if !allowed {
				if err == nil {
					t.Fatal("a loopback webhook was accepted without the netguard options")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			select {
			case <-got:
			case <-time.After(30 * time.Second):
				t.Fatal("the loopback webhook received no push")
			}
		})
	}
}
