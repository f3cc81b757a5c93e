package policy

import (
	"bytes"
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/a2a-mcp-bridge/bridge/request"
)

// TestListingIsOneDecision: the item decisions of one listing are audited
// in one line with the listing's method and counted once.
func TestListingIsOneDecision(t *testing.T) {
	var buf bytes.Buffer
	reg := prometheus.NewRegistry()
	e := mustCompile(t, Config{Default: "allow", Rules: []Rule{{Name: "no-rm", Deny: `hop.tool == "rm"`}}},
		WithLogger(jsonLogger(&buf)), WithRegisterer(reg))
	ctx, l := WithListing(context.Background(), "tools/list")
	for _, tool := range []string{"ls", "rm", "cat"} {
		e.Decide(ctx, request.Hop{Principal: staff(), Face: request.FaceMCP, Agent: "files", Tool: tool, Method: "tools/call"})
	}
	if buf.Len() != 0 {
		t.Fatalf("item decisions were audited one by one: %s", buf.String())
	}
	l.Audit(context.Background())
	lines := decodeLines(t, &buf)
	if len(lines) != 1 {
		t.Fatalf("got %d audit lines, want 1", len(lines))
	}
	for k, v := range map[string]any{"method": "tools/list", "decision": "allow", "code": "listing", "agent": "files",
		"shown": float64(2), "hidden": float64(1), "who": staff().String()} {
		if lines[0][k] != v {
			t.Errorf("listing line %s = %v, want %v", k, lines[0][k], v)
		}
	}
	if got := counterValue(t, reg, map[string]string{"decision": "allow", "rule": "_listing", "face": "mcp"}); got != 1 {
		t.Errorf("listing counted %v times, want 1", got)
	}
	if got := counterValue(t, reg, map[string]string{"decision": "deny", "rule": "no-rm", "face": "mcp"}); got != 0 {
		t.Errorf("a listing's item was counted as a decision of its own: %v", got)
	}
}

// TestEmptyListingWritesNothing: a listing that decided nothing (no items)
// leaves no audit line and no count.
func TestEmptyListingWritesNothing(t *testing.T) {
	var buf bytes.Buffer
	e := mustCompile(t, Config{Default: "deny"}, WithLogger(jsonLogger(&buf)))
	_, l := WithListing(context.Background(), "resources/list")
	l.Audit(context.Background())
	e.Decide(context.Background(), request.Hop{Principal: staff(), Face: request.FaceMCP, Method: "resources/read"})
	if lines := decodeLines(t, &buf); len(lines) != 1 || lines[0]["method"] != "resources/read" {
		t.Fatalf("audit lines: %v", lines)
	}
}
