package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/auth/authtest"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/examples"
	"github.com/a2a-mcp-bridge/bridge/gateway"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector/connectortest"
	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// Attacks on the bridge as a whole, each test named after the attack it
// stops. The bridge runs from a config file over loopback, as `bridge
// serve` runs it.

// startAttackEnv builds the bridge from yaml, in which {ALICE} and {BOB}
// are the API key hashes, {DEMO} the demo agent's URL, {PORT} its port and
// {PUBLIC} the bridge's own URL, and serves it on loopback.
func startAttackEnv(t *testing.T, yaml string) *env {
	t.Helper()
	demo := startDemoAgent(t)
	du, _ := url.Parse(demo.URL)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pub := "http://" + ln.Addr().String()
	yaml = strings.NewReplacer("{ALICE}", hash(aliceKey), "{BOB}", hash(bobKey), "{DEMO}", demo.URL, "{PORT}", du.Port(), "{PUBLIC}", pub).Replace(yaml)
	cfg, err := config.Parse([]byte(yaml), "attack.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e := &env{url: pub, mcp: connectortest.NewServer(connectortest.Options{})}
	b, err := gateway.Build(context.Background(), cfg, gateway.Options{
		Logger: quiet, PublicURL: pub,
		DialUpstream: func(ctx context.Context, c connector.Config) (*connector.Conn, error) {
			return connector.InProcess(ctx, e.mcp.MCP, c)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	e.bridge = b
	srv := httptest.NewUnstartedServer(b.Handler())
	srv.Listener = ln
	// HTTP/1.1 and h2c, as bridge serve listens with server.grpc on.
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetHTTP1(true)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	rctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { b.Run(rctx); close(done) }()
	t.Cleanup(func() { srv.Close(); cancel(); <-done; _ = b.Close() })
	return e
}

const attackBase = `
listen: 127.0.0.1:8080
store: "memory:"
auth:
  api_key_header: X-API-Key
  api_keys:
    - {name: alice, sha256: "{ALICE}"}
    - {name: bob, sha256: "{BOB}"}
policy: {default: allow}
publish:
  - {name: tools, stdio: {command: mcptestserver}, deny_tools: ["crash", "env"]}
expose:
  agents:
    - {alias: echo, url: "{DEMO}"}
netguard:
  unsafe_allow: [127.0.0.1/32]
  unsafe_allow_http: true
  ports: [{PORT}]
`

// do sends one request with the given headers (Host among them) and returns
// the response and its body.
func do(t *testing.T, method, u, body string, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, u, strings.NewReader(body))
	for i := 0; i+1 < len(hdr); i += 2 {
		if strings.EqualFold(hdr[i], "Host") {
			req.Host = hdr[i+1]
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

var (
	a2aHdr = []string{"A2A-Version", "1.0", "Content-Type", "application/json"}
	mcpHdr = []string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream", "MCP-Protocol-Version", "2025-06-18"}
)

func with(base []string, more ...string) []string {
	return append(append([]string(nil), base...), more...)
}

func bearer(key string) []string { return []string{"Authorization", "Bearer " + key} }

// --- Bullet 1: one view; the tool a message names decided once -----------

// TestA2A_SkillIDCannotSmuggleALimitedTool: with add limited to 1/min, a
// message whose metadata names skill "echo" while its data part calls
// "add" used to be counted as echo and run add every time.
func TestA2A_SkillIDCannotSmuggleALimitedTool(t *testing.T) {
	e := start(t)
	body := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m%d","role":"ROLE_USER","parts":[{"data":{"tool":"add","arguments":{"a":1,"b":2}}}],"metadata":{"skillId":"echo"}}}}`
	for i := range 4 {
		_, b := do(t, http.MethodPost, e.url+"/a2a/tools", fmt.Sprintf(body, i), with(a2aHdr, bearer(aliceKey)...)...)
		if !bytes.Contains(b, []byte(`"error"`)) {
			t.Fatalf("call %d served: %s", i, b)
		}
	}
	if n := e.mcp.Calls("add"); n > 1 {
		t.Fatalf("the upstream ran add %d times past its 1/min limit", n)
	}
}

// TestA2A_TwoDataPartsCannotNameTwoTools: which tool runs must not depend
// on which data part a reader looks at first.
func TestA2A_TwoDataPartsCannotNameTwoTools(t *testing.T) {
	e := start(t)
	body := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"data":{"tool":"echo","arguments":{"text":"x"}}},{"data":{"tool":"add","arguments":{"a":1,"b":2}}}]}}}`
	_, b := do(t, http.MethodPost, e.url+"/a2a/tools", body, with(a2aHdr, bearer(aliceKey)...)...)
	if !bytes.Contains(b, []byte(`-32602`)) {
		t.Fatalf("answer %s, want -32602", b)
	}
	if n := e.mcp.Calls("add") + e.mcp.Calls("echo"); n != 0 {
		t.Fatalf("the upstream ran %d calls", n)
	}
}

// TestMCP_EscapedCancelCannotCancelAnotherCallersCall: in stateless mode
// mcp-go keys in-flight calls by request id alone, so the face absorbs
// notifications/cancelled; spelled with an escape it used to get past the
// face's byte check and cancel another caller's call with the same id.
func TestMCP_EscapedCancelCannotCancelAnotherCallersCall(t *testing.T) {
	e := startAttackEnv(t, attackBase)
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"/slow 2000"}}}` // 2000 ticks of 1 ms
	var wg sync.WaitGroup
	var aliceBody []byte
	wg.Go(func() {
		_, aliceBody = do(t, http.MethodPost, e.url+"/mcp", call, with(mcpHdr, bearer(aliceKey)...)...)
	})
	time.Sleep(500 * time.Millisecond) // alice's call is in flight (it takes 2 s)
	for _, cancel := range []string{
		`{"jsonrpc":"2.0","method":"notifications/c\u0061ncelled","params":{"requestId":7}}`,
		`{"jsonrpc":"2.0","method":"notifications\u002fcancelled","params":{"requestId":7}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`,
	} {
		resp, b := do(t, http.MethodPost, e.url+"/mcp", cancel, with(mcpHdr, bearer(bobKey)...)...)
		if resp.StatusCode != http.StatusAccepted {
			t.Errorf("bob's cancel answered %d %s", resp.StatusCode, b)
		}
	}
	wg.Wait()
	if !bytes.Contains(aliceBody, []byte(`completed`)) {
		t.Fatalf("alice's call was cancelled by bob: %s", aliceBody)
	}
}

// TestMCP_EscapedTaskMemberIsServedByTheFaceTaskStore: a task-augmented
// call spelled "t\u0061sk" used to get past the face's byte check into
// mcp-go's own session-keyed task store; the face serves it from its
// principal-keyed store like any task.
func TestMCP_EscapedTaskMemberIsServedByTheFaceTaskStore(t *testing.T) {
	e := startAttackEnv(t, attackBase)
	hdr := with(mcpHdr, bearer(aliceKey)...)
	hdr[len(hdr)-3] = "2025-11-25" // MCP-Protocol-Version: the tasks era
	_, b := do(t, http.MethodPost, e.url+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"},"t\u0061sk":{"ttl":60000}}}`, hdr...)
	if !bytes.Contains(b, []byte(`"taskId"`)) {
		t.Fatalf("task-augmented call answered %s", b)
	}
	_, list := do(t, http.MethodPost, e.url+"/mcp", `{"jsonrpc":"2.0","id":2,"method":"tasks/list","params":{}}`, hdr...)
	var r struct {
		Result struct {
			Tasks []map[string]any `json:"tasks"`
		} `json:"result"`
	}
	if json.Unmarshal(list, &r) != nil || len(r.Result.Tasks) != 1 {
		t.Fatalf("the face's task store does not hold the task: %s", list)
	}
	_, other := do(t, http.MethodPost, e.url+"/mcp", `{"jsonrpc":"2.0","id":2,"method":"tasks/list","params":{}}`, with(mcpHdr[:len(mcpHdr)-2], "MCP-Protocol-Version", "2025-11-25", "Authorization", "Bearer "+bobKey)...)
	if bytes.Contains(other, []byte(`"taskId"`)) {
		t.Fatalf("bob lists alice's task: %s", other)
	}
}

// TestMCP_AmbiguousMessageRefusedBeforeAnyTool: the escape family on /mcp.
// A message that mcp-go could read otherwise than the face is refused with
// HTTP 400 and a JSON-RPC error; none reaches a tool.
func TestMCP_AmbiguousMessageRefusedBeforeAnyTool(t *testing.T) {
	e := startAttackEnv(t, attackBase)
	for _, tc := range []struct {
		name, body string
		code       int
	}{
		{"duplicate method", `{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}}`, -32600},
		{"duplicate id", `{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}}`, -32600},
		{"escaped duplicate member", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","n\u0061me":"other","arguments":{"message":"x"}}}`, -32600},
		{"case-folded method member", `{"jsonrpc":"2.0","id":1,"Method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}}`, -32600},
		{"case-folded params member", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"Name":"echo","arguments":{"message":"x"}}}`, -32600},
		{"long s folds into a member", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"argument\u017f\":{\"message\":\"x\"}}}", -32600},
		{"duplicate argument", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x","message":"y"}}}`, -32600},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"message\":\"\xff\"}}}", -32700},
		{"lone surrogate", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"\ud800"}}}`, -32700},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}}]`, -32600},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, b := do(t, http.MethodPost, e.url+"/mcp", tc.body, with(mcpHdr, bearer(aliceKey)...)...)
			if resp.StatusCode != http.StatusBadRequest || !bytes.Contains(b, []byte(fmt.Sprintf(`"code":%d`, tc.code))) {
				t.Fatalf("answer %d %s, want 400 with JSON-RPC error %d", resp.StatusCode, b, tc.code)
			}
		})
	}
	// Read one way by everyone, these are served.
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools\u002fcall","params":{"name":"echo","arguments":{"message":"x"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"n\u0061me":"echo","arguments":{"message":"\ud83d\ude00"}}}`,
	} {
		resp, b := do(t, http.MethodPost, e.url+"/mcp", body, with(mcpHdr, bearer(aliceKey)...)...)
		if resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte("completed")) {
			t.Fatalf("%s: %d %s", body, resp.StatusCode, b)
		}
	}
}

// --- Bullet 5: limits the HTTP way on /mcp --------------------------------

// TestMCP_OverLimitIs429WithRateLimitHeaders: over a limit, /mcp used to
// answer HTTP 200 with a tool error, and tools/list was not counted at
// all; now every limited method gets 429 with Retry-After, RateLimit and
// RateLimit-Policy and a JSON-RPC error, an escaped method name included.
func TestMCP_OverLimitIs429WithRateLimitHeaders(t *testing.T) {
	e := startAttackEnv(t, attackBase+`
limits:
  rules:
    - {name: lists, per: [principal, method], when: 'hop.method == "tools/list"', rate: 1/m}
    - {name: calls, per: [principal, tool], when: 'hop.tool == "echo"', rate: 1/m}
`)
	hdr := with(mcpHdr, bearer(aliceKey)...)
	for _, tc := range []struct{ first, second, rule string }{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":2,"method":"tools\u002flist"}`, "lists"},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}}`, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"y"}}}`, "calls"},
	} {
		if resp, b := do(t, http.MethodPost, e.url+"/mcp", tc.first, hdr...); resp.StatusCode != http.StatusOK {
			t.Fatalf("first: %d %s", resp.StatusCode, b)
		}
		resp, b := do(t, http.MethodPost, e.url+"/mcp", tc.second, hdr...)
		if resp.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("over the limit: %d %s, want 429", resp.StatusCode, b)
		}
		h := resp.Header
		if h.Get("Retry-After") == "" || !strings.Contains(h.Get("RateLimit"), `"`+tc.rule+`"`) || !strings.Contains(h.Get("RateLimit-Policy"), `"`+tc.rule+`"`) {
			t.Fatalf("headers %v", h)
		}
		var r struct {
			ID    json.RawMessage `json:"id"`
			Error struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal(b, &r) != nil || r.Error.Code != -32029 || string(r.ID) != "2" {
			t.Fatalf("body %s, want a JSON-RPC error -32029 for id 2", b)
		}
	}
}

// --- Bullet 2: audiences per face -----------------------------------------

// audienceEnv is the bridge with one JWKS issuer whose list names the
// bridge's public URL (the A2A agents' audience).
func audienceEnv(t *testing.T) (*env, *authtest.IdP) {
	t.Helper()
	idp := authtest.NewIdP(t)
	jwks := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(jwks, idp.JWKS(), 0o600); err != nil {
		t.Fatal(err)
	}
	e := startAttackEnv(t, strings.Replace(attackBase, "auth:\n", fmt.Sprintf("auth:\n  jwks: [{issuer: %q, file: %q, audience: [\"{PUBLIC}\"]}]\n", idp.Issuer, jwks), 1))
	return e, idp
}

// TestMCP_TokenForAnA2AAgentIsRefused and the tests below: audiences used
// to be one list per issuer for every face, so a token for the A2A agents
// worked on /mcp and the reverse, and a token for the resource the bridge
// advertises at /.well-known/oauth-protected-resource/mcp was refused.
func TestMCP_TokenForAnA2AAgentIsRefused(t *testing.T) {
	e, idp := audienceEnv(t)
	tok := idp.Sign(t, idp.Claims("alice", e.url, time.Now()))
	resp, b := do(t, http.MethodPost, e.url+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, with(mcpHdr, bearer(tok)...)...)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "resource_metadata=") {
		t.Fatalf("an A2A token on /mcp: %d %s", resp.StatusCode, b)
	}
}

func TestMCP_TokenForTheAdvertisedResourceIsAccepted(t *testing.T) {
	e, idp := audienceEnv(t)
	_, md := get(t, e.url+"/.well-known/oauth-protected-resource/mcp")
	var m struct {
		Resource string `json:"resource"`
	}
	if err := json.Unmarshal(md, &m); err != nil || m.Resource != e.url+"/mcp" {
		t.Fatalf("metadata %s", md)
	}
	tok := idp.Sign(t, idp.Claims("alice", m.Resource, time.Now()))
	resp, b := do(t, http.MethodPost, e.url+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, with(mcpHdr, bearer(tok)...)...)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a token for the advertised resource: %d %s", resp.StatusCode, b)
	}
}

func TestA2A_TokenForTheMCPEndpointIsRefused(t *testing.T) {
	e, idp := audienceEnv(t)
	tok := idp.Sign(t, idp.Claims("alice", e.url+"/mcp", time.Now()))
	resp, b := do(t, http.MethodPost, e.url+"/a2a/tools", `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}`, with(a2aHdr, bearer(tok)...)...)
	if resp.StatusCode != http.StatusUnauthorized || !bytes.Contains(b, []byte(`-31401`)) {
		t.Fatalf("an /mcp token on an A2A agent: %d %s", resp.StatusCode, b)
	}
	// Through the cache too: the same token, once accepted on /mcp, is
	// still refused on the agent.
	if resp, _ := do(t, http.MethodPost, e.url+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, with(mcpHdr, bearer(tok)...)...); resp.StatusCode != http.StatusOK {
		t.Fatalf("/mcp refused its own token: %d", resp.StatusCode)
	}
	if resp, b := do(t, http.MethodPost, e.url+"/a2a/tools", `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}`, with(a2aHdr, bearer(tok)...)...); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a cached /mcp token on an A2A agent: %d %s", resp.StatusCode, b)
	}
}

// --- Bullet 3: DNS rebinding ----------------------------------------------

// TestRebindingPageCannotDriveTheBridge: a page on evil.example that
// rebinds its name to the bridge's loopback address sends Host:
// evil.example (and its own Origin); the A2A face checked neither.
func TestRebindingPageCannotDriveTheBridge(t *testing.T) {
	e := startAttackEnv(t, attackBase)
	evil := []string{"Host", "evil.example:8080"}
	for _, tc := range []struct {
		name, method, path, body string
		hdr                      []string
	}{
		{"A2A JSON-RPC", http.MethodPost, "/a2a/tools", `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}`, with(a2aHdr, bearer(aliceKey)...)},
		{"A2A HTTP+JSON", http.MethodGet, "/a2a/tools/rest/tasks", "", with(a2aHdr, bearer(aliceKey)...)},
		{"agent card", http.MethodGet, "/a2a/tools/.well-known/agent-card.json", "", nil},
		{"JWKS", http.MethodGet, gateway.JWKSPath, "", nil},
		{"MCP", http.MethodPost, "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, with(mcpHdr, bearer(aliceKey)...)},
		{"MCP metadata", http.MethodGet, "/.well-known/oauth-protected-resource/mcp", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, b := do(t, tc.method, e.url+tc.path, tc.body, with(tc.hdr, evil...)...)
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("Host evil.example: %d %s, want 403", resp.StatusCode, b)
			}
			resp, b = do(t, tc.method, e.url+tc.path, tc.body, with(tc.hdr, "Origin", "http://evil.example:8080")...)
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("Origin evil.example: %d %s, want 403", resp.StatusCode, b)
			}
			// The bridge's own names and IP literals pass.
			for _, host := range []string{"localhost", "127.0.0.1", "[::1]"} {
				u, _ := url.Parse(e.url)
				resp, b = do(t, tc.method, e.url+tc.path, tc.body, with(tc.hdr, "Host", host+":"+u.Port())...)
				if resp.StatusCode == http.StatusForbidden {
					t.Fatalf("Host %s: %d %s", host, resp.StatusCode, b)
				}
			}
		})
	}
	// The A2A refusal is in the binding's form.
	_, b := do(t, http.MethodPost, e.url+"/a2a/tools", `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}`, with(with(a2aHdr, bearer(aliceKey)...), evil...)...)
	if !bytes.Contains(b, []byte(`-31403`)) {
		t.Fatalf("A2A refusal %s, want a JSON-RPC error -31403", b)
	}
}

// TestRebindingPageCannotDriveTheDemo: `bridge demo` serves anonymous
// callers on loopback, so the Host check is all that stands between a web
// page and it.
func TestRebindingPageCannotDriveTheDemo(t *testing.T) {
	cfg, err := examples.Demo(func(c *config.Config) { c.Store = "memory:" })
	if err != nil {
		t.Fatal(err)
	}
	b, err := gateway.Build(context.Background(), cfg, gateway.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, path := range []string{"/a2a/echo", "/a2a/tools", "/mcp"} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}`))
		req.Host = "evil.example:8080"
		req.Header.Set("A2A-Version", "1.0")
		req.Header.Set("Content-Type", "application/json")
		b.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusForbidden {
			t.Fatalf("%s under Host evil.example: %d %s", path, rec.Code, rec.Body)
		}
	}
}

// --- Bullet 6: one principal per request ----------------------------------

// TestConflictingCredentialsAreRefused: a bearer credential and an
// X-API-Key naming different principals used to be accepted (the API key
// won); malformed credentials got 400 without a challenge.
func TestConflictingCredentialsAreRefused(t *testing.T) {
	e := startAttackEnv(t, attackBase)
	list := `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}`
	for _, tc := range []struct {
		name string
		hdr  []string
	}{
		{"bearer and API key header", []string{"Authorization", "Bearer " + aliceKey, "X-API-Key", bobKey}},
		{"malformed bearer", []string{"Authorization", "Bearer a b"}},
		{"empty bearer", []string{"Authorization", "Bearer "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, face := range []struct{ path, body string }{{"/a2a/tools", list}, {"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`}} {
				base := a2aHdr
				if face.path == "/mcp" {
					base = mcpHdr
				}
				resp, b := do(t, http.MethodPost, e.url+face.path, face.body, with(base, tc.hdr...)...)
				if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
					t.Fatalf("%s: %d %q %s, want 401 with a challenge", face.path, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), b)
				}
			}
		})
	}
}

// --- Bullet 7: no oracle in push configs ----------------------------------

// mapResolver resolves names from a map and counts the lookups.
type mapResolver struct {
	names   map[string][]netip.Addr
	lookups atomic.Int32
}

func (r *mapResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.lookups.Add(1)
	if a, ok := r.names[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// TestPushConfigCreationIsNoDNSOracle: creating a push config used to be
// refused for an internal name that resolves to a private address and
// accepted for one that does not resolve, telling the caller which names
// exist inside. Creation now asks no DNS at all (nor lets its latency
// tell); delivery checks the address at connect time.
func TestPushConfigCreationIsNoDNSOracle(t *testing.T) {
	res := &mapResolver{names: map[string][]netip.Addr{"db.corp.example": {netip.MustParseAddr("10.0.0.5")}}}
	guard, err := netguard.New(netguard.Config{Resolver: res})
	if err != nil {
		t.Fatal(err)
	}
	check := gateway.PushURLCheck(guard)
	errPrivate := check(context.Background(), "https://db.corp.example/hook")
	errMissing := check(context.Background(), "https://nothing.corp.example/hook")
	if (errPrivate == nil) != (errMissing == nil) {
		t.Fatalf("creation tells a private name (%v) from a missing one (%v)", errPrivate, errMissing)
	}
	if n := res.lookups.Load(); n != 0 {
		t.Fatalf("creation asked DNS %d times", n)
	}
	// What needs no DNS is still refused at once.
	for _, u := range []string{"http://db.corp.example/hook", "https://10.0.0.5/hook", "https://user:pw@x.example/", "https://localhost/hook"} {
		if check(context.Background(), u) == nil {
			t.Errorf("%s accepted", u)
		}
	}
	// And delivery checks the name at connect time.
	resp, err := guard.Client().Get("https://db.corp.example/hook")
	if err == nil {
		resp.Body.Close()
		t.Fatal("delivery reached a private address")
	}
	if !errorsIsBlocked(err) {
		t.Fatalf("delivery error %v, want netguard.ErrBlocked", err)
	}
}

func errorsIsBlocked(err error) bool {
	for e := err; e != nil; {
		if e == netguard.ErrBlocked {
			return true
		}
		u, ok := e.(interface{ Unwrap() error })
		if !ok {
			return strings.Contains(err.Error(), "blocked") || strings.Contains(err.Error(), "refused")
		}
		e = u.Unwrap()
	}
	return false
}

var _ = a2a.MethodSendMessage
