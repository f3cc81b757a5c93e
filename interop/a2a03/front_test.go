//go:build interop

package a2a03

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/front"
	"github.com/a2a-mcp-bridge/bridge/a2a/push"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/a2a/v03"
	"github.com/a2a-mcp-bridge/bridge/gateway"
	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// principals are the callers of the fronted agent: a bearer token names
// its owner (the tests' stand-in for the gateway's authentication, which
// ends in the same owner key).
var principals = map[string]string{"token-a": "principal-a", "token-b": "principal-b"}

func ownerOf(r *http.Request) string {
	if o, ok := principals[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]; ok {
		return o
	}
	return server.AnonymousOwner
}

// startFront fronts the agent whose card is at cardURL as the gateway does
// (package a2a/front behind a task manager, the push dispatcher and an
// server.Server that answers 1.0 and 0.3 callers, serving the 0.3 card to
// readers that name no version when cardByDefault), push allowed to
// loopback, the upstream called on binding ("": the card's first), and
// returns the bridge's base URL.
func startFront(t *testing.T, cardURL string, cardByDefault bool, binding string) string {
	t.Helper()
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	hc := netguard.Trusted(netguard.Config{Timeout: -1, MaxBodyBytes: -1})
	px, err := front.New(ctx, front.Config{CardURL: cardURL, HTTPClient: hc, StateKey: key, Binding: binding})
	if err != nil {
		t.Fatalf("front %s: %v", cardURL, err)
	}
	guard, err := netguard.New(netguard.Config{UnsafeAllow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, AllowHTTP: true})
	if err != nil {
		t.Fatal(err)
	}
	st := store.NewMemory()
	disp, err := push.New(push.Config{LegacyBody: v03.PushBody}, st, guard)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = disp.Run(ctx) }()
	mgr, err := taskmanager.New(taskmanager.Config{Store: st, Executor: px, OnEvent: disp.OnEvent, PollInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var handler atomic.Pointer[server.Server]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handler.Load().ServeHTTP(w, r.WithContext(server.WithOwner(r.Context(), ownerOf(r))))
	}))
	base := srv.URL
	s, err := server.New(server.Config{Manager: mgr, Card: px.Card(base, true), PushEnabled: true, CheckPushURL: gateway.PushURLCheck(guard),
		Legacy: &v03.Dialect{}, LegacyCard: v03.CardJSON, LegacyCardDefault: cardByDefault})
	if err != nil {
		t.Fatal(err)
	}
	handler.Store(s)
	t.Cleanup(func() { srv.Close(); cancel(); mgr.Wait() })
	return base
}

// requireA2AJS makes sure ../a2ajs (the 1.0 client tests and agent) has
// its pinned dependencies.
func requireA2AJS(t *testing.T) {
	t.Helper()
	bridgetest.Node(t, filepath.Join("..", "a2ajs"), "@a2a-js/sdk")
}

// seen is what the 0.3 agent recorded of each JSON-RPC request.
type seen struct {
	Method   string  `json:"method"`
	Version  *string `json:"version"`
	Blocking *bool   `json:"blocking"`
}

func seenBy(t *testing.T, agent string) []seen {
	t.Helper()
	resp, err := http.Get(agent + "/seen")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var s []seen
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestA2A10ClientThroughFrontTo03Agent: the @a2a-js/sdk 1.3.0 client (1.0)
// through the bridge to an agent written on @a2a-js/sdk 0.3.14, the bridge
// calling the agent on each of its bindings: the whole flow of
// ../a2ajs/client-test.mjs on both bindings of the bridge (card, blocking,
// streaming, multi-turn, get, list, cancel, failure, direct message), then
// push and owner scoping (front10-test.mjs). The agent saw only 0.3
// requests: 0.3 methods or /v1/ paths, no A2A-Version, blocking always sent.
func TestA2A10ClientThroughFrontTo03Agent(t *testing.T) {
	node := requireNode(t)
	requireA2AJS(t)
	for _, up := range []struct{ binding, send, stream, cancel string }{
		{a2a.BindingJSONRPC, v03.MethodMessageSend, v03.MethodMessageStream, v03.MethodTasksCancel},
		{a2a.BindingHTTPJSON, "POST /v1/message:send", "POST /v1/message:stream", ":cancel"},
	} {
		t.Run("upstream "+up.binding, func(t *testing.T) {
			agent := startNodeServer(t, node, ".", "server03.mjs")
			front := startFront(t, agent+"/.well-known/agent-card.json", false, up.binding)
			runNode(t, node, filepath.Join("..", "a2ajs", "client-test.mjs"), "A2A_BASE_URL="+front)
			recv := startPushReceiver(t, node)
			runNode(t, node, "front10-test.mjs", "A2A_BASE_URL="+front, "A2A_PUSH_URL="+recv)

			calls := seenBy(t, agent)
			if len(calls) == 0 {
				t.Fatal("the 0.3 agent saw no request")
			}
			methods := map[string]int{}
			for _, c := range calls {
				m := c.Method
				if strings.HasSuffix(m, ":cancel") {
					m = ":cancel"
				}
				methods[m]++
				if up.binding == a2a.BindingJSONRPC && !strings.Contains(c.Method, "/") || up.binding == a2a.BindingHTTPJSON && !strings.Contains(c.Method, " /v1/") {
					t.Errorf("the 0.3 agent got %q over %s", c.Method, up.binding)
				}
				if c.Version != nil {
					t.Errorf("%s carried A2A-Version %q", c.Method, *c.Version)
				}
				if (m == up.send || m == up.stream) && c.Blocking == nil {
					t.Errorf("%s without an explicit blocking", c.Method)
				}
			}
			for _, m := range []string{up.send, up.stream, up.cancel} {
				if methods[m] == 0 {
					t.Errorf("the 0.3 agent never got %s (got %v)", m, methods)
				}
			}
			t.Logf("what the 0.3 agent got: %v", methods)
		})
	}
}

// TestA2A03ClientThroughFrontTo10Agent: the 0.3 client against the bridge
// fronting a 1.0 agent on @a2a-js/sdk 1.3.0 (../a2ajs/server.mjs), the
// bridge serving the 0.3 card by default (server.a2a_v03_card: default),
// so that the client fetches it as 0.3 clients do, with no query.
func TestA2A03ClientThroughFrontTo10Agent(t *testing.T) {
	node := requireNode(t)
	requireA2AJS(t)
	agent := startNodeServer(t, node, filepath.Join("..", "a2ajs"), "server.mjs")
	front := startFront(t, agent+"/.well-known/agent-card.json", true, "")
	recv := startPushReceiver(t, node)
	runNode(t, node, "client03-test.mjs", "A2A_BASE_URL="+front, "A2A_BINDINGS="+bindings, "A2A_PUSH_URL="+recv, "A2A_CARD_QUERY=")
}
