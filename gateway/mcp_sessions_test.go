package gateway_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/gateway"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector/connectortest"
)

// sessionsYAML fronts one MCP server ("files") for alice and bob, with
// expose.mcp.sessions set or not.
func sessionsYAML(sessions bool) string {
	return fmt.Sprintf(`
listen: 127.0.0.1:8080
store: "memory:"
auth:
  api_keys:
    - {name: alice, sha256: %q}
    - {name: bob, sha256: %q}
policy: {default: allow}
front:
  mcp:
    - {name: files, stdio: {command: mcptestserver}}
expose:
  mcp: {sessions: %t}
`, hash(aliceKey), hash(bobKey), sessions)
}

// startSessions serves a bridge built from sessionsYAML on loopback. The
// fronted server is the in-process test server plus a tool "model" that
// asks the caller's model (sampling/createMessage) and answers with its
// text; its tool "ask" asks the user for a name (elicitation).
func startSessions(t *testing.T, sessions bool) string {
	t.Helper()
	cfg, err := config.Parse([]byte(sessionsYAML(sessions)), "inline.yaml")
	if err != nil {
		t.Fatal(err)
	}
	up := connectortest.NewServer(connectortest.Options{})
	up.MCP.AddTool(mcp.NewTool("model", mcp.WithDescription("Asks the client's model.")),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := server.ServerFromContext(ctx).RequestSampling(ctx, mcp.CreateMessageRequest{CreateMessageParams: mcp.CreateMessageParams{
				Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent("2+2?")}}, MaxTokens: 5,
			}})
			if err != nil {
				return mcp.NewToolResultError("no model: " + err.Error()), nil
			}
			tc, _ := mcp.AsTextContent(res.Content)
			return mcp.NewToolResultText("model said " + tc.Text), nil
		})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + ln.Addr().String()
	b, err := gateway.Build(context.Background(), cfg, gateway.Options{Logger: quiet, PublicURL: u,
		DialUpstream: func(ctx context.Context, c connector.Config) (*connector.Conn, error) {
			return connector.InProcess(ctx, up.MCP, c)
		}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(b.Handler())
	srv.Listener = ln
	srv.Start()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { b.Run(ctx); close(done) }()
	t.Cleanup(func() { srv.Close(); cancel(); <-done; _ = b.Close() })
	return u + "/mcp"
}

// legacyHost is a hand-written 2025-06-18 host over streamable HTTP that
// declares elicitation and sampling and reads server requests from each
// POST's own event stream.
type legacyHost struct {
	t   *testing.T
	url string
	key string
	sid string
	// undeclared: the host declares neither elicitation nor sampling.
	undeclared bool
}

func (h *legacyHost) post(body string) *http.Response {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.url, strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+h.key)
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	if h.sid != "" {
		req.Header.Set("Mcp-Session-Id", h.sid)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// initialize runs the handshake and keeps the session id the bridge issued
// (none when sessions are off).
func (h *legacyHost) initialize() {
	h.t.Helper()
	caps := `{"elicitation":{},"sampling":{}}`
	if h.undeclared {
		caps = `{}`
	}
	resp := h.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":` + caps + `,"clientInfo":{"name":"host","version":"1"}}}`)
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		h.t.Fatalf("initialize: status %d", resp.StatusCode)
	}
	h.sid = resp.Header.Get("Mcp-Session-Id")
	if resp := h.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		h.t.Fatalf("notifications/initialized: status %d", resp.StatusCode)
	}
}

// rpcMessage is a JSON-RPC message read from a response.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result *struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
}

// call POSTs tools/call and returns the messages of its response, whether
// an event stream or a single JSON body.
func (h *legacyHost) call(id int, tool string) <-chan rpcMessage {
	h.t.Helper()
	resp := h.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, id, tool))
	if resp.StatusCode != http.StatusOK {
		h.t.Fatalf("tools/call %s: status %d", tool, resp.StatusCode)
	}
	out := make(chan rpcMessage, 16)
	go func() {
		defer close(out)
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			var m rpcMessage
			if json.NewDecoder(resp.Body).Decode(&m) == nil {
				out <- m
			}
			return
		}
		sc := bufio.NewScanner(resp.Body)
		var data strings.Builder
		for sc.Scan() {
			switch line := sc.Text(); {
			case strings.HasPrefix(line, "data: "):
				data.WriteString(strings.TrimPrefix(line, "data: "))
			case line == "" && data.Len() > 0:
				var m rpcMessage
				if json.Unmarshal([]byte(data.String()), &m) == nil {
					out <- m
				}
				data.Reset()
			}
		}
	}()
	return out
}

// answer POSTs the host's answer to a server request; it returns the status.
func (h *legacyHost) answer(id json.RawMessage, result string) int {
	h.t.Helper()
	resp := h.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result))
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// nextMessage is the next message of a call's response, skipping progress
// and log notifications.
func nextMessage(t *testing.T, ch <-chan rpcMessage) rpcMessage {
	t.Helper()
	for {
		select {
		case m, ok := <-ch:
			if !ok {
				t.Fatal("the call's response ended early")
			}
			if m.Method == string(mcp.MethodNotificationProgress) || m.Method == string(mcp.MethodNotificationMessage) {
				continue
			}
			return m
		case <-time.After(10 * time.Second):
			t.Fatal("no message on the call's response")
		}
	}
}

func toolText(t *testing.T, m rpcMessage) string {
	t.Helper()
	if m.Result == nil || len(m.Result.Content) == 0 {
		t.Fatalf("not a tool result: method %q params %s", m.Method, m.Params)
	}
	return m.Result.Content[0].Text
}

// TestMCPSessionsRelayElicitationAndSamplingOverHTTP: a fronted server's
// elicitation and sampling requests reach a 2025-era host over HTTP on the
// tool call's own response stream, its answers going back to the server:
// with expose.mcp.sessions on (the host gets an Mcp-Session-Id) and off
// (stateless: no session; the face keeps what the host declared at its
// initialize and routes the answer by a bridge-minted id bound to the
// caller). A stateless host that declared neither is never asked: the
// server's request is refused (its own error), never answered "decline" on
// the user's behalf.
func TestMCPSessionsRelayElicitationAndSamplingOverHTTP(t *testing.T) {
	tests := []struct {
		name       string
		sessions   bool
		undeclared bool // the host's initialize declares no capability
		tool       string
		ask        mcp.MCPMethod // the server request the host must get; "" for none
		reply      string        // the host's answer to it
		wantResult string
	}{
		{"sessions on, elicitation", true, false, "files_ask", mcp.MethodElicitationCreate,
			`{"action":"accept","content":{"name":"Ada"}}`, "Hello, Ada!"},
		{"sessions on, sampling", true, false, "files_model", mcp.MethodSamplingCreateMessage,
			`{"role":"assistant","content":{"type":"text","text":"4"},"model":"m","stopReason":"endTurn"}`, "model said 4"},
		{"stateless, elicitation", false, false, "files_ask", mcp.MethodElicitationCreate,
			`{"action":"accept","content":{"name":"Ada"}}`, "Hello, Ada!"},
		{"stateless, sampling", false, false, "files_model", mcp.MethodSamplingCreateMessage,
			`{"role":"assistant","content":{"type":"text","text":"4"},"model":"m","stopReason":"endTurn"}`, "model said 4"},
		{"stateless, elicitation not declared", false, true, "files_ask", "", "", "files_ask: the files server failed"},
		{"stateless, sampling not declared", false, true, "files_model", "", "", "no model:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &legacyHost{t: t, url: startSessions(t, tt.sessions), key: aliceKey, undeclared: tt.undeclared}
			h.initialize()
			if tt.sessions != (h.sid != "") {
				t.Fatalf("sessions %v: initialize issued Mcp-Session-Id %q", tt.sessions, h.sid)
			}
			stream := h.call(7, tt.tool)
			m := nextMessage(t, stream)
			if tt.ask != "" {
				if m.Method != string(tt.ask) || len(m.ID) == 0 {
					t.Fatalf("first message on the call's stream: method %q id %s params %s, want a %s request", m.Method, m.ID, m.Params, tt.ask)
				}
				if got := h.answer(m.ID, tt.reply); got != http.StatusAccepted {
					t.Fatalf("answer to %s: status %d", tt.ask, got)
				}
				m = nextMessage(t, stream)
			}
			if m.Method != "" {
				t.Fatalf("the host was sent %q (params %s), want only the tool result", m.Method, m.Params)
			}
			if got := toolText(t, m); string(m.ID) != "7" || !strings.HasPrefix(got, tt.wantResult) {
				t.Fatalf("result of %s: id %s %q, want %q", tt.tool, m.ID, got, tt.wantResult)
			}
		})
	}
}

// TestMCPSessionOfAnotherCallerIsNotFound: a session id is not a
// credential; bob presenting alice's session id is answered as for an
// unknown session, and cannot answer a request sent to alice's session.
func TestMCPSessionOfAnotherCallerIsNotFound(t *testing.T) {
	u := startSessions(t, true)
	alice := &legacyHost{t: t, url: u, key: aliceKey}
	alice.initialize()
	stream := alice.call(3, "files_ask")
	req := nextMessage(t, stream)
	if req.Method != string(mcp.MethodElicitationCreate) {
		t.Fatalf("first message: %q", req.Method)
	}
	bob := &legacyHost{t: t, url: u, key: bobKey, sid: alice.sid}
	if resp := bob.post(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); resp.StatusCode != http.StatusNotFound {
		t.Errorf("bob used alice's session: tools/list status %d", resp.StatusCode)
	}
	if got := bob.answer(req.ID, `{"action":"accept","content":{"name":"Mallory"}}`); got != http.StatusNotFound {
		t.Errorf("bob answered alice's elicitation: status %d", got)
	}
	if got := alice.answer(req.ID, `{"action":"accept","content":{"name":"Ada"}}`); got != http.StatusAccepted {
		t.Fatalf("alice's answer: status %d", got)
	}
	if got := toolText(t, nextMessage(t, stream)); got != "Hello, Ada!" {
		t.Fatalf("alice's result (a forged answer was taken?): %q", got)
	}
}

// TestMCPSessionsWarnAtStartWhenReplicasShareState: a shared Redis (or
// PostgreSQL store) means replicas; sessions are still served there, but
// the bridge warns at start that they need sticky routing. A single process,
// or sessions off, starts without that warning.
func TestMCPSessionsWarnAtStartWhenReplicasShareState(t *testing.T) {
	// Redis is never reached: the limiter dials on first use and no rule
	// counts anything.
	const redis = "redis: redis://127.0.0.1:1/0\nlimits: {on_redis_error: open}\n"
	tests := []struct {
		name     string
		sessions bool
		extra    string
		warn     bool
	}{
		{"sessions, shared redis", true, redis, true},
		{"sessions, one process", true, "", false},
		{"no sessions, shared redis", false, redis, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config.Parse([]byte(sessionsYAML(tt.sessions)+tt.extra), "inline.yaml")
			if err != nil {
				t.Fatalf("config refused: %v", err)
			}
			var logs bytes.Buffer
			up := connectortest.NewServer(connectortest.Options{})
			b, err := gateway.Build(context.Background(), cfg, gateway.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil)),
				DialUpstream: func(ctx context.Context, c connector.Config) (*connector.Conn, error) {
					return connector.InProcess(ctx, up.MCP, c)
				}})
			if err != nil {
				t.Fatal(err)
			}
			_ = b.Close()
			var warned int
			for _, line := range bytes.Split(logs.Bytes(), []byte("\n")) {
				var rec struct{ Level, Msg string }
				if json.Unmarshal(line, &rec) == nil && rec.Level == "WARN" && strings.Contains(rec.Msg, "expose.mcp.sessions") && strings.Contains(rec.Msg, "sticky routing") {
					warned++
				}
			}
			if (warned == 1) != tt.warn || warned > 1 {
				t.Fatalf("sticky-routing warnings at start = %d, want %v; logs:\n%s", warned, tt.warn, logs.String())
			}
		})
	}
}

// TestRelayedAnswerOutsideTheSchemaIsAskedAgain: a host's answer to a
// fronted server's question that does not fit the server's schema is not
// passed on; the host is asked again, told what was wrong, and the fitting
// answer reaches the server.
func TestRelayedAnswerOutsideTheSchemaIsAskedAgain(t *testing.T) {
	h := &legacyHost{t: t, url: startSessions(t, true), key: aliceKey}
	h.initialize()
	stream := h.call(9, "files_ask")
	first := nextMessage(t, stream)
	if first.Method != string(mcp.MethodElicitationCreate) {
		t.Fatalf("first message %q, want elicitation/create", first.Method)
	}
	if got := h.answer(first.ID, `{"action":"accept","content":{"nom":"Ada"}}`); got != http.StatusAccepted {
		t.Fatalf("answer: status %d", got)
	}
	second := nextMessage(t, stream)
	if second.Method != string(mcp.MethodElicitationCreate) || !strings.Contains(string(second.Params), "name is required") || !strings.Contains(string(second.Params), "What is your name?") {
		t.Fatalf("after a bad answer: %q %s, want the question again with what was wrong", second.Method, second.Params)
	}
	if got := h.answer(second.ID, `{"action":"accept","content":{"name":"Ada"}}`); got != http.StatusAccepted {
		t.Fatalf("answer: status %d", got)
	}
	if m := nextMessage(t, stream); toolText(t, m) != "Hello, Ada!" {
		t.Fatalf("result %q", toolText(t, m))
	}
}

// TestMCP_AnotherPrincipalCannotAnswerSomeoneElsesElicitation: on the
// stateless face (no session to bind to) an elicitation a fronted server
// asks alice is routed by its bridge-minted id and her principal: bob, who
// learned the id, answering it gets a JSON-RPC error and changes nothing,
// as does an id nobody was sent; alice's own answer then reaches the
// server, and only once.
func TestMCP_AnotherPrincipalCannotAnswerSomeoneElsesElicitation(t *testing.T) {
	u := startSessions(t, false)
	alice := &legacyHost{t: t, url: u, key: aliceKey}
	alice.initialize()
	bob := &legacyHost{t: t, url: u, key: bobKey}
	bob.initialize()
	stream := alice.call(3, "files_ask")
	req := nextMessage(t, stream)
	if req.Method != string(mcp.MethodElicitationCreate) {
		t.Fatalf("first message: %q", req.Method)
	}
	var id string
	if json.Unmarshal(req.ID, &id) != nil || len(id) < 32 {
		t.Fatalf("elicitation id %s: want a bridge-minted unguessable string", req.ID)
	}
	refused := func(who *legacyHost, id json.RawMessage) {
		t.Helper()
		resp := who.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"name":"Mallory"}}}`, id))
		var body struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusNotFound || body.Error == nil || !bytes.Equal(body.ID, id) {
			t.Fatalf("answer with id %s: status %d, body %+v (%v); want 404 with a JSON-RPC error", id, resp.StatusCode, body, err)
		}
	}
	refused(bob, req.ID)
	refused(alice, json.RawMessage(`"bridge-elicitation-00000000000000000000000000000000"`))
	if got := alice.answer(req.ID, `{"action":"accept","content":{"name":"Ada"}}`); got != http.StatusAccepted {
		t.Fatalf("alice's answer: status %d", got)
	}
	if got := toolText(t, nextMessage(t, stream)); got != "Hello, Ada!" {
		t.Fatalf("alice's result: %q, want her own answer", got)
	}
	refused(alice, req.ID) // single use
}

// TestMCPStatelessAnswerOnAnotherReplicaIsRefused: the stateless face keeps
// a waiting question in the process that asked it (no shared bus); a host
// whose answer lands on another replica gets a JSON-RPC error saying so,
// and the question still waits for its answer on the replica that asked.
func TestMCPStatelessAnswerOnAnotherReplicaIsRefused(t *testing.T) {
	a := &legacyHost{t: t, url: startSessions(t, false), key: aliceKey}
	b := &legacyHost{t: t, url: startSessions(t, false), key: aliceKey}
	a.initialize()
	b.initialize()
	stream := a.call(5, "files_ask")
	req := nextMessage(t, stream)
	if req.Method != string(mcp.MethodElicitationCreate) {
		t.Fatalf("first message: %q", req.Method)
	}
	resp := b.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"name":"Ada"}}}`, req.ID))
	var body struct {
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusNotFound || body.Error == nil || !strings.Contains(body.Error.Message, "replica") {
		t.Fatalf("answer on the other replica: status %d, body %+v (%v); want 404 with a JSON-RPC error naming the replica", resp.StatusCode, body, err)
	}
	if got := a.answer(req.ID, `{"action":"accept","content":{"name":"Ada"}}`); got != http.StatusAccepted {
		t.Fatalf("answer on the replica that asked: status %d", got)
	}
	if got := toolText(t, nextMessage(t, stream)); got != "Hello, Ada!" {
		t.Fatalf("result: %q", got)
	}
}
