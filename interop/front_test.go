//go:build interop

package interop

import (
	"context"
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a/front"
	a2aserver "github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// startFront fronts the A2A agent whose card is at cardURL with the bridge's
// front-A2A executor (package a2a/front) behind a task manager and an
// a2aserver.Server on a loopback httptest server, and returns the bridge's base
// URL.
func startFront(t *testing.T, cardURL string) string {
	t.Helper()
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	hc := netguard.Trusted(netguard.Config{Timeout: -1, MaxBodyBytes: -1})
	px, err := front.New(ctx, front.Config{CardURL: cardURL, HTTPClient: hc, StateKey: key})
	if err != nil {
		t.Fatalf("interop: front %s: %v", cardURL, err)
	}
	mgr, err := taskmanager.New(taskmanager.Config{Store: store.NewMemory(), Executor: px, PollInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var handler atomic.Pointer[a2aserver.Server]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.Load().ServeHTTP(w, r) }))
	base := srv.URL
	s, err := a2aserver.New(a2aserver.Config{Manager: mgr, Card: px.Card(base, false)})
	if err != nil {
		t.Fatal(err)
	}
	handler.Store(s)
	t.Cleanup(func() { srv.Close(); mgr.Wait() })
	return base
}

// TestJSClientThroughFrontToJSServer runs the @a2a-js/sdk client over both
// bindings against the bridge fronting the @a2a-js/sdk agent: card,
// blocking, streaming, multi-turn, get, list, cancel, failure and direct
// message all pass through the bridge's own task ids.
func TestJSClientThroughFrontToJSServer(t *testing.T) {
	node := requireNode(t)
	up := startJSServer(t, node)
	runJSClientTests(t, node, startFront(t, up+"/.well-known/agent-card.json"))
}

// TestJSClientThroughFrontToBridgeDemo runs the same client against the
// bridge fronting `bridge demo` (an upstream on our own A2A core).
func TestJSClientThroughFrontToBridgeDemo(t *testing.T) {
	node := requireNode(t)
	up := startBridgeDemo(t)
	runJSClientTests(t, node, startFront(t, up+"/.well-known/agent-card.json"))
}
