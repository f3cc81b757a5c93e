package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/examples/demoagent"
	"github.com/a2a-mcp-bridge/bridge/gateway"
	"github.com/a2a-mcp-bridge/bridge/gateway/health"
)

// TestReadinessOfASharedGatewayIgnoresUpstreams: under health.readiness
// "bridge" an upstream that is down keeps /readyz at 200 (a shared
// gateway keeps serving the others), and /readyz still lists it as down.
func TestReadinessOfASharedGatewayIgnoresUpstreams(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	e := startFront(t, frontYAML(dead, "health: {readiness: bridge}\n"), gateway.Options{})
	resp, body := get(t, e.url+"/readyz")
	var rd gateway.Readiness
	if err := json.Unmarshal(body, &rd); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !rd.Ready || len(rd.NotReady) != 0 {
		t.Fatalf("readyz %d: %s", resp.StatusCode, body)
	}
	var agent *health.Status
	for i := range rd.Upstreams {
		if rd.Upstreams[i].Kind == health.KindFrontA2A {
			agent = &rd.Upstreams[i]
		}
	}
	if agent == nil || agent.State != health.StateDown || agent.LastError != "card fetch failed: connection refused" {
		t.Fatalf("the fronted agent in /readyz: %+v", agent)
	}
	if st, ok := e.bridge.Health().Get(health.KindFrontMCP, "files"); !ok || st.State != health.StateUp || st.Tools == 0 {
		t.Fatalf("the fronted MCP server in the registry: %+v", st)
	}
}

// startHostNamedUpstream is an A2A agent whose card, fetched from
// 127.0.0.1, names its interfaces on localhost (the same agent under
// another host name, as a Kubernetes service name would be).
func startHostNamedUpstream(t *testing.T) (cardURL, interfaceHost string, auths chan string) {
	t.Helper()
	mgr, err := taskmanager.New(taskmanager.Config{Store: store.NewMemory(), Executor: &demoagent.Agent{Tick: 5 * time.Millisecond}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	interfaceHost = fmt.Sprintf("localhost:%d", port)
	as, err := server.New(server.Config{Manager: mgr, Card: demoagent.Card("http://" + interfaceHost), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	auths = make(chan string, 16)
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			select {
			case auths <- r.Host + " " + r.Header.Get("Authorization"):
			default:
			}
		}
		as.ServeHTTP(w, r)
	})
	srv.Start()
	t.Cleanup(func() { srv.Close(); mgr.Wait() })
	return srv.URL + "/.well-known/agent-card.json", interfaceHost, auths
}

// TestFrontA2ACardNamingAnotherHost: a fronted agent whose card names its
// host differently from front.a2a[].url (localhost for 127.0.0.1) is
// reachable when no credential is configured; with one, the call is
// refused (AGENT_UNAVAILABLE, naming credential_hosts, not the host) until
// the host is listed in credential_hosts, and then carries the credential.
func TestFrontA2ACardNamingAnotherHost(t *testing.T) {
	t.Setenv("GATEWAY_TEST_FRONT_SECRET", "upstream-secret")
	for _, tt := range []struct {
		name     string
		entry    func(cardURL, host string) string
		wantErr  string
		wantAuth string
	}{
		{"no credential", func(u, _ string) string { return fmt.Sprintf("{name: agent, url: %q}", u) }, "", ""},
		{"credential, host not listed", func(u, _ string) string {
			return fmt.Sprintf("{name: agent, url: %q, credentials: {static: {env: GATEWAY_TEST_FRONT_SECRET}}}", u)
		}, "its card names a host its credential may not be sent to (credential_hosts)", ""},
		{"credential, host listed", func(u, h string) string {
			return fmt.Sprintf("{name: agent, url: %q, credentials: {static: {env: GATEWAY_TEST_FRONT_SECRET}}, credential_hosts: [%q]}", u, h)
		}, "", "Bearer upstream-secret"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cardURL, host, auths := startHostNamedUpstream(t)
			yaml := strings.Replace(frontYAML("UNUSED", ""), fmt.Sprintf("{name: agent, url: %q}", "UNUSED"), tt.entry(cardURL, host), 1)
			e := startFront(t, yaml, gateway.Options{})
			c := e.client(t, aliceKey)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: &a2a.Message{MessageID: "m1", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hi")}}})
			if tt.wantErr != "" {
				ae := a2a.AsError(err)
				if ae.Reason != "AGENT_UNAVAILABLE" || !strings.Contains(ae.Message, tt.wantErr) || strings.Contains(ae.Message, "localhost") {
					t.Fatalf("err = %v, want AGENT_UNAVAILABLE saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("send: %v", err)
			}
			select {
			case got := <-auths:
				if want := host + " " + tt.wantAuth; got != want {
					t.Fatalf("the agent received %q, want %q", got, want)
				}
			default:
				t.Fatal("the agent received no call")
			}
		})
	}
}
