package endpoint_test

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
	"github.com/a2a-mcp-bridge/bridge/policy"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// watched is a hand-written ResourceSubscriber source serving one resource.
type watched struct {
	tools
	mu     sync.Mutex
	calls  []string
	notify func(uri string)
}

func (w *watched) Resources() []server.ServerResource {
	return []server.ServerResource{{Resource: mcp.NewResource("test://watched", "watched"), Handler: func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: "test://watched", Text: "v1"}}, nil
	}}}
}

func (w *watched) SubscribeResource(_ context.Context, uri string) error {
	w.record("subscribe " + uri)
	return nil
}

func (w *watched) UnsubscribeResource(_ context.Context, uri string) error {
	w.record("unsubscribe " + uri)
	return nil
}

func (w *watched) OnResourceUpdated(fn func(uri string)) {
	w.mu.Lock()
	w.notify = fn
	w.mu.Unlock()
}

func (w *watched) record(s string) {
	w.mu.Lock()
	w.calls = append(w.calls, s)
	w.mu.Unlock()
}

func (w *watched) seen() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.calls...)
}

// denyResources denies every resources/read hop.
type denyResources struct{}

func (denyResources) Decide(_ context.Context, h request.Hop) policy.Decision {
	return policy.Decision{Allow: h.Method != "resources/read"}
}

// stdioClient serves f over stdio to a 2025-11-25 client (the era that has
// resources/subscribe).
func stdioClient(t *testing.T, f *endpoint.Face) *client.Client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.ServeStdio(ctx, inR, outW) }()
	c := client.NewClient(transport.NewIO(outR, inW, nil))
	t.Cleanup(func() { cancel(); _ = inW.Close(); _ = c.Close(); <-done })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.ProtocolVersion20251125, ClientInfo: mcp.Implementation{Name: "t", Version: "1"}}}); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSubscribedSessionGetsUpdates(t *testing.T) {
	src := &watched{tools: tools{"alpha"}}
	f, err := endpoint.New(endpoint.Config{Sources: []endpoint.ToolSource{src}})
	if err != nil {
		t.Fatal(err)
	}
	c := stdioClient(t, f)
	got := make(chan string, 4)
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == mcp.MethodNotificationResourceUpdated {
			uri, _ := n.Params.AdditionalFields["uri"].(string)
			got <- uri
		}
	})
	ctx := context.Background()
	if err := c.Subscribe(ctx, mcp.SubscribeRequest{Params: mcp.SubscribeParams{URI: "test://watched"}}); err != nil {
		t.Fatal(err)
	}
	if s := src.seen(); len(s) != 1 || s[0] != "subscribe test://watched" {
		t.Fatalf("source calls %v", s)
	}
	src.notify("test://watched")
	select {
	case uri := <-got:
		if uri != "test://watched" {
			t.Fatalf("update for %q", uri)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the subscribed session never heard of the update")
	}
	if err := c.Unsubscribe(ctx, mcp.UnsubscribeRequest{Params: mcp.UnsubscribeParams{URI: "test://watched"}}); err != nil {
		t.Fatal(err)
	}
	if s := src.seen(); len(s) != 2 || s[1] != "unsubscribe test://watched" {
		t.Fatalf("source calls %v", s)
	}
}

func TestSubscriptionToUnreadableResourceReachesNoSource(t *testing.T) {
	src := &watched{tools: tools{"alpha"}}
	f, err := endpoint.New(endpoint.Config{Sources: []endpoint.ToolSource{src}, Policy: denyResources{}})
	if err != nil {
		t.Fatal(err)
	}
	c := stdioClient(t, f)
	_ = c.Subscribe(context.Background(), mcp.SubscribeRequest{Params: mcp.SubscribeParams{URI: "test://watched"}})
	if s := src.seen(); len(s) != 0 {
		t.Fatalf("a subscription the policy forbids reached the source: %v", s)
	}
}
