package endpoint_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
	"github.com/a2a-mcp-bridge/bridge/policy"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// auditLines are the "policy decision" lines written so far.
func (s *syncBuffer) auditLines(t *testing.T) []map[string]any {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(s.b.String()), "\n") {
		var m map[string]any
		if line == "" || json.Unmarshal([]byte(line), &m) != nil || m["msg"] != "policy decision" {
			continue
		}
		out = append(out, m)
	}
	s.b.Reset()
	return out
}

// TestOneAuditLinePerDecision: a tools/list filtered by the policy is one
// decision, audited in one line that says tools/list and how many tools it
// hid (not one line per tool, each saying tools/call); a tools/call is one
// line that says tools/call and names the tool.
func TestOneAuditLinePerDecision(t *testing.T) {
	var logs syncBuffer
	eng, err := policy.Compile(policy.Config{Default: "allow", Rules: []policy.Rule{
		{Name: "no-beta", Deny: `hop.tool == "beta"`},
		{Name: "no-gamma", Deny: `hop.tool == "gamma"`},
	}}, policy.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
	if err != nil {
		t.Fatal(err)
	}
	e := start(t, func(c *endpoint.Config) {
		c.Policy = eng
		c.Sources = []endpoint.ToolSource{tools{"alpha", "beta", "gamma", "delta"}}
	})
	c := connect(t, e.public+"/mcp", e.token(t, "alice", e.public+"/mcp", "agents"))
	logs.auditLines(t) // initialize decides nothing; start afresh

	lst, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil || len(lst.Tools) != 2 {
		t.Fatalf("tools/list: %+v %v", lst, err)
	}
	lines := logs.auditLines(t)
	if len(lines) != 1 {
		t.Fatalf("tools/list wrote %d audit lines, want 1: %v", len(lines), lines)
	}
	want := map[string]any{"method": "tools/list", "decision": "allow", "code": "listing", "face": "mcp",
		"shown": float64(2), "hidden": float64(2), "hidden_by": []any{"no-beta", "no-gamma"}}
	for k, v := range want {
		if got := lines[0][k]; !equalJSON(got, v) {
			t.Errorf("listing line %s = %v, want %v", k, got, v)
		}
	}

	req := mcp.CallToolRequest{}
	req.Params.Name = "alpha"
	if _, err := c.CallTool(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	lines = logs.auditLines(t)
	if len(lines) != 1 || lines[0]["method"] != "tools/call" || lines[0]["tool"] != "alpha" || lines[0]["decision"] != "allow" {
		t.Fatalf("tools/call audit lines: %v", lines)
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// TestOnRequestNamesEveryMethod: the face tells OnRequest of every request
// it reads with its method (and, for tools/call, its tool), whether or not
// the limits count that method, so metrics never fall back to POST.
func TestOnRequestNamesEveryMethod(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	e := start(t, func(c *endpoint.Config) {
		c.OnRequest = func(_ context.Context, hop request.Hop, _ string) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, hop.Method+" "+hop.Tool)
		}
	})
	c := connect(t, e.public+"/mcp", e.token(t, "alice", e.public+"/mcp", "agents"))
	if _, err := c.ListTools(context.Background(), mcp.ListToolsRequest{}); err != nil {
		t.Fatal(err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "alpha"
	if _, err := c.CallTool(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, want := range []string{"tools/list ", "tools/call alpha"} {
		if !slices.Contains(seen, want) {
			t.Errorf("OnRequest saw %q, want %q among them", seen, want)
		}
	}
}

// TestEveryListingIsOneAuditLine: resources/list, resources/templates/list
// and prompts/list filtered by the policy are each one audit line saying
// their own method, with what they hid.
func TestEveryListingIsOneAuditLine(t *testing.T) {
	var logs syncBuffer
	eng, err := policy.Compile(policy.Config{Default: "allow", Rules: []policy.Rule{
		{Name: "no-secret", Deny: `hop.resource == "file:///secret.txt"`},
		{Name: "no-leak", Deny: `hop.prompt == "leak"`},
	}}, policy.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
	if err != nil {
		t.Fatal(err)
	}
	e := start(t, func(c *endpoint.Config) { c.Policy, c.Sources = eng, []endpoint.ToolSource{ownedSource{}} })
	c := connect(t, e.public+"/mcp", e.token(t, "alice", e.public+"/mcp", "agents"))
	ctx := context.Background()
	logs.auditLines(t)
	tests := []struct {
		method string
		list   func() error
		shown  int
		hidden int
	}{
		{"resources/list", func() error { _, err := c.ListResources(ctx, mcp.ListResourcesRequest{}); return err }, 1, 1},
		{"resources/templates/list", func() error {
			_, err := c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
			return err
		}, 1, 0},
		{"prompts/list", func() error { _, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{}); return err }, 1, 1},
	}
	for _, tt := range tests {
		if err := tt.list(); err != nil {
			t.Fatalf("%s: %v", tt.method, err)
		}
		lines := logs.auditLines(t)
		if len(lines) != 1 || lines[0]["method"] != tt.method || lines[0]["agent"] != "files" ||
			lines[0]["shown"] != float64(tt.shown) || lines[0]["hidden"] != float64(tt.hidden) {
			t.Errorf("%s: audit lines %v, want one saying %s with %d shown and %d hidden", tt.method, lines, tt.method, tt.shown, tt.hidden)
		}
	}
}
