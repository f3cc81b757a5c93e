package gateway_test

import (
	"context"
	"slices"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/gateway"
	"github.com/a2a-mcp-bridge/bridge/gateway/health"
)

// TestStatusViewsOfTheRunningBridge: what the admin listener reads of a
// running bridge: every route it serves, its tasks by state from the store
// (every state listed), and the configuration in force.
func TestStatusViewsOfTheRunningBridge(t *testing.T) {
	e := start(t)
	b := e.bridge
	got := b.Routes()
	for _, want := range []gateway.Route{
		{Face: gateway.RouteFaceA2A, Kind: health.KindPublish, Name: "tools", Path: "/a2a/tools"},
		{Face: gateway.RouteFaceMCP, Kind: health.KindExpose, Name: "echo", Path: "/mcp"},
		{Face: gateway.RouteFaceOps, Path: "/readyz"},
		{Face: gateway.RouteFaceOps, Path: gateway.JWKSPath},
		{Face: gateway.RouteFaceOps, Path: "/metrics"},
	} {
		if !slices.Contains(got, want) {
			t.Errorf("routes %+v lack %+v", got, want)
		}
	}

	c := e.client(t, aliceKey)
	if _, err := c.SendMessage(context.Background(), toolMessage(t, "echo", map[string]any{"text": "hi"})); err != nil {
		t.Fatal(err)
	}
	counts, err := b.TasksByState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if counts[a2a.TaskStateCompleted] != 1 || len(counts) < len(gateway.TaskStates()) {
		t.Errorf("tasks by state: %v", counts)
	}
	if b.Config() == nil || b.Config().Publish[0].Name != "tools" || b.Started().IsZero() || b.Gatherer() == nil {
		t.Errorf("config %v, started %v", b.Config(), b.Started())
	}
}
