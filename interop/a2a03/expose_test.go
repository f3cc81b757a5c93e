//go:build interop

package a2a03

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
	"github.com/a2a-mcp-bridge/bridge/mcp/expose"
	"github.com/a2a-mcp-bridge/bridge/netguard"
	"github.com/a2a-mcp-bridge/bridge/request"
)

type tokenAuth string

func (a tokenAuth) Authenticate(r *http.Request) (*request.Principal, error) {
	if r.Header.Get("Authorization") != "Bearer "+string(a) {
		return nil, errors.New("a2a03: wrong or missing token")
	}
	return &request.Principal{Subject: "interop", Issuer: "test", Method: "bearer"}, nil
}

// TestMCPClientCalls03AgentAsTool: the official MCP TypeScript client
// (../mcpexpose/client-test.mjs, @modelcontextprotocol/sdk 1.32.2) calls
// the 0.3 agent on @a2a-js/sdk 0.3.14 exposed as an MCP tool over
// streamable HTTP: blocking, progress, the input-required round trip, and
// cancel, after which the agent's own task is canceled.
func TestMCPClientCalls03AgentAsTool(t *testing.T) {
	node := requireNode(t)
	dir := filepath.Join("..", "mcpexpose")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in interop/mcpexpose: %v\n%s", err, out)
		}
	}
	agent := startNodeServer(t, node, ".", "server03.mjs")
	g, err := netguard.New(netguard.Config{UnsafeAllow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, AllowHTTP: true, Timeout: 10 * time.Minute, MaxBodyBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	tools, err := expose.New(expose.Config{Agents: []expose.AgentConfig{{Alias: "echo", CardURL: agent + "/.well-known/agent-card.json"}}, HTTPClient: g.Client()})
	if err != nil {
		t.Fatal(err)
	}
	if err := tools.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	public := "http://" + ln.Addr().String()
	f, err := endpoint.New(endpoint.Config{PublicURL: public, Authenticator: tokenAuth("interop-token"),
		Metadata: auth.ResourceMetadata{AuthorizationServers: []string{"https://idp.example"}}, Sources: []endpoint.ToolSource{tools}})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	f.Mount(mux)
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: mux}}
	srv.Start()
	defer srv.Close()
	runNode(t, node, filepath.Join(dir, "client-test.mjs"), "MCP_MODE=http", "MCP_URL="+public+"/mcp", "MCP_TOKEN=interop-token", "MCP_EXPECT_ELICIT=0")

	var canceled []string
	getJSON(t, agent+"/canceled", &canceled)
	if len(canceled) == 0 {
		t.Fatal("the cancelled MCP call did not cancel the 0.3 agent's task")
	}
	for _, id := range canceled {
		var r struct {
			Result struct {
				Kind   string                 `json:"kind"`
				Status struct{ State string } `json:"status"`
			} `json:"result"`
		}
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":%q}}`, id)
		resp, err := http.Post(agent+"/a2a/jsonrpc", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		_ = json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		if r.Result.Kind != "task" || r.Result.Status.State != "canceled" {
			t.Errorf("the 0.3 agent's task %s is %q, want canceled", id, r.Result.Status.State)
		}
	}
	for _, c := range seenBy(t, agent) {
		if c.Version != nil || !strings.Contains(c.Method, "/") {
			t.Errorf("the 0.3 agent got %s with A2A-Version %v", c.Method, c.Version)
		}
	}
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}
