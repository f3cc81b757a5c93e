package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
)

// logLines decodes the JSON log lines whose msg is msg.
func logLines(t *testing.T, l *lockedBuffer, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.SplitSeq(l.String(), "\n") {
		var m map[string]any
		if line == "" || json.Unmarshal([]byte(line), &m) != nil || m["msg"] != msg {
			continue
		}
		out = append(out, m)
	}
	return out
}

var labelRE = regexp.MustCompile(`([a-z_]+)="([^"]*)"`)

// TestMetricsAndLogsNameWhatHappened: after MCP and A2A traffic, /metrics
// names the MCP method (never POST), the tool and the skill, counts tasks by
// state, and carries no unbounded label (no task id, no principal, only
// served tool and skill names); the access lines name the method and what
// was called; a tools/list is one audit line that says tools/list.
func TestMetricsAndLogsNameWhatHappened(t *testing.T) {
	logs := &lockedBuffer{}
	e := startLogged(t, startDemoAgent(t), slog.New(slog.NewJSONHandler(logs, nil)))
	ctx := context.Background()

	a := e.client(t, aliceKey)
	var taskIDs []string
	for _, tool := range []string{"add", "echo"} {
		args := map[string]any{"a": 1, "b": 2}
		if tool == "echo" {
			args = map[string]any{"text": "hi"}
		}
		res, err := a.SendMessage(ctx, toolMessage(t, tool, args))
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if res.Task == nil || res.Task.Status.State != a2a.TaskStateCompleted {
			t.Fatalf("%s: %+v", tool, res)
		}
		taskIDs = append(taskIDs, res.Task.ID)
	}
	c := e.mcpClient(t, aliceKey)
	lst, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil || len(lst.Tools) == 0 {
		t.Fatalf("tools/list: %v %v", lst, err)
	}
	served := []string{"other"}
	for _, tl := range lst.Tools {
		served = append(served, tl.Name)
	}
	tool := lst.Tools[0].Name
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: tool, Arguments: map[string]any{"message": "m"}}})
	if err != nil || res.IsError {
		t.Fatalf("tools/call: %+v %v", res, err)
	}
	if sc, ok := res.StructuredContent.(map[string]any); ok {
		if id, _ := sc["taskId"].(string); id != "" {
			taskIDs = append(taskIDs, id)
		}
	}

	want := []string{
		`bridge_requests_total{face="mcp",method="tools/list",outcome="2xx"} 1`,
		`bridge_requests_total{face="mcp",method="tools/call",outcome="2xx"} 1`,
		`bridge_requests_total{face="a2a",method="SendMessage",outcome="2xx"} 2`,
		`bridge_tool_calls_total{outcome="ok",tool="` + tool + `"} 1`,
		`bridge_tool_call_duration_seconds_count{tool="` + tool + `"} 1`,
		`bridge_skill_calls_total{agent="tools",outcome="ok",skill="add"} 1`,
		`bridge_skill_calls_total{agent="tools",outcome="ok",skill="echo"} 1`,
		`bridge_skill_call_duration_seconds_count{agent="tools",skill="add"} 1`,
		`bridge_tasks{state="completed"} 2`,
		`bridge_tasks{state="working"} 0`,
		`bridge_upstream_up{kind="publish",upstream="tools"} 1`,
		`bridge_upstream_up{kind="expose",upstream="echo"} 1`,
	}
	var body string
	bridgetest.Eventually(t, 10*time.Second, "the metrics the test expects", func() error {
		_, b := get(t, e.url+"/metrics")
		if body = string(b); missing(body, want) != nil {
			return fmt.Errorf("metrics lack %q", missing(body, want))
		}
		return nil
	})
	if m := missing(body, want); m != nil {
		t.Fatalf("metrics lack %q:\n%s", m, grepLines(body, "bridge_"))
	}
	for line := range strings.SplitSeq(body, "\n") {
		if !strings.HasPrefix(line, "bridge_") {
			continue
		}
		if strings.Contains(line, `face="mcp",method="POST"`) || strings.Contains(line, `face="a2a",method="POST"`) {
			t.Errorf("a request counted under its HTTP method: %s", line)
		}
		for _, lv := range labelRE.FindAllStringSubmatch(line, -1) {
			name, v := lv[1], lv[2]
			for _, id := range taskIDs {
				if strings.Contains(v, id) {
					t.Errorf("a task id in a label: %s", line)
				}
			}
			if strings.Contains(v, "alice") || strings.Contains(v, aliceKey) {
				t.Errorf("a principal in a label: %s", line)
			}
			switch {
			case name == "tool" && !slices.Contains(served, v):
				t.Errorf("tool label %q is not a served tool %v: %s", v, served, line)
			case name == "skill" && !slices.Contains([]string{"add", "echo", "slow", "block", "ask", "fail", "image", "structured", "resources", "other"}, v):
				t.Errorf("skill label %q is not a published tool: %s", v, line)
			}
		}
	}

	// Access lines name the method and what was called.
	var sawCall, sawSkill bool
	for _, l := range logLines(t, logs, "request") {
		switch {
		case l["face"] == "mcp" && l["method"] == "tools/call":
			sawCall = l["tool"] == tool
		case l["face"] == "a2a" && l["method"] == "SendMessage" && l["skill"] == "add":
			sawSkill = l["agent"] == "tools" && l["tool"] == "add"
		}
		if l["face"] == "mcp" && (l["method"] == "POST" || l["method"] == "GET") && l["http_method"] == "POST" {
			t.Errorf("an MCP request logged under its HTTP method: %v", l)
		}
	}
	if !sawCall || !sawSkill {
		t.Errorf("access lines lack the tool (%v) or the skill (%v):\n%s", sawCall, sawSkill, logs.String())
	}

	// One audit line per decision: the listing is one, saying tools/list.
	var listings, calls int
	for _, l := range logLines(t, logs, "policy decision") {
		if l["face"] != "mcp" {
			continue
		}
		switch l["method"] {
		case "tools/list":
			listings++
		case "tools/call":
			calls++
			if l["tool"] != tool {
				t.Errorf("a tools/call audit line for another tool: %v", l)
			}
		}
	}
	if listings != 1 || calls != 1 {
		t.Errorf("MCP audit lines: %d for tools/list, %d for tools/call; want 1 and 1", listings, calls)
	}
}
