package gateway_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	a2aclient "github.com/a2a-mcp-bridge/bridge/a2a/client"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/examples/demoagent"
	"github.com/a2a-mcp-bridge/bridge/gateway"
	"github.com/a2a-mcp-bridge/bridge/gateway/health"
)

// startReloadAgent is the demo A2A agent on loopback; it returns its URL.
func startReloadAgent(t *testing.T) string {
	t.Helper()
	mgr, err := taskmanager.New(taskmanager.Config{Store: store.NewMemory(), Executor: &demoagent.Agent{Tick: 5 * time.Millisecond}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	as, err := server.New(server.Config{Manager: mgr, Card: demoagent.Card("http://" + srv.Listener.Addr().String()), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = as
	srv.Start()
	t.Cleanup(func() { srv.Close(); mgr.Wait() })
	return srv.URL
}

// upstreamsYAML is a bridge whose upstream sections are sections.
func upstreamsYAML(sections string) string {
	return fmt.Sprintf(`
listen: 127.0.0.1:8080
store: "memory:"
auth:
  api_keys:
    - {name: alice, sha256: %q}
policy: {default: allow}
netguard: {unsafe_allow: [127.0.0.1/32], unsafe_allow_http: true}
health: {check_interval: 200ms, check_timeout: 100ms}
%s`, hash(aliceKey), sections)
}

func mcpTools(t *testing.T, url string) []string {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(url+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + aliceKey}))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

func registry(b *gateway.Bridge) []string {
	var out []string
	for _, st := range b.Health().List() {
		out = append(out, string(st.Kind)+" "+st.Name)
	}
	slices.Sort(out)
	return out
}

// TestReloadAddsRemovesAndChangesUpstreams: a reload of the upstream lists
// while serving mounts the added agents, unmounts the removed ones (their
// routes answer 404, their tools disappear), replaces a changed one, keeps
// the others as they were, and the health registry follows. An entry that
// cannot be converted refuses the whole reload and changes nothing.
func TestReloadAddsRemovesAndChangesUpstreams(t *testing.T) {
	agentA, agentB := startReloadAgent(t), startReloadAgent(t)
	before := fmt.Sprintf(`publish:
  - {name: tools, stdio: {command: mcptestserver}}
front:
  mcp:
    - {name: files, stdio: {command: mcptestserver}}
expose:
  agents:
    - {alias: echo, url: %q}
`, agentA)
	e := startFront(t, upstreamsYAML(before), gateway.Options{})
	if got := mcpTools(t, e.url); !slices.Contains(got, "echo") || !slices.Contains(got, "files_echo") {
		t.Fatalf("MCP tools before: %v", got)
	}
	if resp, _ := get(t, e.url+"/a2a/tools/.well-known/agent-card.json"); resp.StatusCode != http.StatusOK {
		t.Fatalf("published card before: %d", resp.StatusCode)
	}

	after := fmt.Sprintf(`publish:
  - {name: more, stdio: {command: mcptestserver}}
front:
  a2a:
    - {name: agent, url: %q}
  mcp:
    - {name: kb, stdio: {command: mcptestserver}}
expose:
  agents:
    - {alias: echo, url: %q}
    - {alias: second, url: %q}
`, agentB, agentA, agentB)
	next, err := config.Parse([]byte(upstreamsYAML(after)), "next.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.bridge.Reload(next); err != nil {
		t.Fatalf("reload: %v", err)
	}
	for path, want := range map[string]int{
		"/a2a/tools/.well-known/agent-card.json": http.StatusNotFound,
		"/a2a/more/.well-known/agent-card.json":  http.StatusOK,
		"/a2a/agent/.well-known/agent-card.json": http.StatusOK,
	} {
		if resp, body := get(t, e.url+path); resp.StatusCode != want {
			t.Errorf("%s: %d, want %d: %s", path, resp.StatusCode, want, body)
		}
	}
	got := mcpTools(t, e.url)
	if slices.Contains(got, "files_echo") || !slices.Contains(got, "kb_echo") || !slices.Contains(got, "echo") || !slices.Contains(got, "second") {
		t.Fatalf("MCP tools after: %v", got)
	}
	c, err := a2aclient.Dial(context.Background(), e.url+"/a2a/agent/.well-known/agent-card.json", a2aclient.WithHeader(func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+aliceKey)
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.SendMessage(context.Background(), &a2a.SendMessageRequest{Message: &a2a.Message{MessageID: "m1", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hi")}}})
	if err != nil || resp.Task == nil || resp.Task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("the added fronted agent: %+v %v", resp, err)
	}
	want := []string{"expose echo", "expose second", "front.a2a agent", "front.mcp kb", "publish more"}
	if got := registry(e.bridge); !slices.Equal(got, want) {
		t.Fatalf("health registry after: %v, want %v", got, want)
	}
	for _, st := range e.bridge.Health().List() {
		if st.State != health.StateUp {
			t.Errorf("%s %s is %s (%s)", st.Kind, st.Name, st.State, st.LastError)
		}
	}
	_, metrics := get(t, e.url+"/metrics")
	if strings.Contains(string(metrics), `upstream="files"`) || !strings.Contains(string(metrics), `bridge_upstream_up{kind="front.mcp",upstream="kb"} 1`) {
		t.Errorf("metrics do not follow the reload:\n%s", metrics)
	}

	// A key file that cannot be read refuses the reload: nothing changes,
	// not even the agent added beside it.
	broken := fmt.Sprintf(`expose:
  agents:
    - {alias: echo, url: %q}
    - {alias: second, url: %q, card: {keys: /nonexistent/keys.json}}
    - {alias: third, url: %q}
`, agentA, agentB, agentB)
	bad, err := config.Parse([]byte(upstreamsYAML(broken)), "bad.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.bridge.Reload(bad); err == nil || !strings.Contains(err.Error(), "expose.agents[second].card.keys") {
		t.Fatalf("reload with an unreadable key file: %v", err)
	}
	if got := registry(e.bridge); !slices.Equal(got, want) {
		t.Fatalf("a refused reload changed the upstreams: %v", got)
	}
}
