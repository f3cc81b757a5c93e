package endpoint

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/a2a-mcp-bridge/bridge/request"
)

func TestAcceptsEventStream(t *testing.T) {
	tests := []struct {
		accept []string
		want   bool
	}{
		{[]string{"application/json, text/event-stream"}, true},
		{[]string{"application/json", "text/event-stream;q=0.9"}, true},
		{[]string{"TEXT/Event-Stream"}, true},
		{[]string{"application/json"}, false},
		{[]string{"*/*"}, false},
		{[]string{"text/event-streamx"}, false},
		{nil, false},
	}
	for _, tt := range tests {
		r, _ := http.NewRequest(http.MethodPost, "http://x/mcp", nil)
		for _, a := range tt.accept {
			r.Header.Add("Accept", a)
		}
		if got := acceptsEventStream(r); got != tt.want {
			t.Errorf("Accept %q: %v, want %v", tt.accept, got, tt.want)
		}
	}
}

// TestHostCapsAreThePrincipalsLatestAndExpire: a stateless host's
// capabilities are its principal's latest initialize, forgotten after
// SessionIdleTTL, never another principal's.
func TestHostCapsAreThePrincipalsLatestAndExpire(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	h := newHostCaps(func() time.Time { return now })
	alice := &request.Principal{Subject: "alice", Issuer: "i"}
	bob := &request.Principal{Subject: "bob", Issuer: "i"}
	init := func(p *request.Principal, caps mcp.ClientCapabilities) {
		req := &mcp.InitializeRequest{}
		req.Params.Capabilities = caps
		h.remember(request.WithPrincipal(context.Background(), p), nil, req, &mcp.InitializeResult{})
	}
	init(alice, mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}})
	if c, ok := h.lookup(alice.Key()); !ok || c.Elicitation == nil {
		t.Fatalf("alice: %+v %v, want elicitation", c, ok)
	}
	if _, ok := h.lookup(bob.Key()); ok {
		t.Fatal("bob has alice's capabilities")
	}
	init(alice, mcp.ClientCapabilities{})
	if c, ok := h.lookup(alice.Key()); !ok || c.Elicitation != nil {
		t.Fatalf("alice after a second initialize: %+v %v, want none declared", c, ok)
	}
	now = now.Add(SessionIdleTTL + time.Second)
	if _, ok := h.lookup(alice.Key()); ok {
		t.Fatal("alice's capabilities outlived SessionIdleTTL")
	}
}
