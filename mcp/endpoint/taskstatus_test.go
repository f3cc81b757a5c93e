package endpoint_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
)

// taskTools has one task-capable tool that answers after a short wait.
type taskTools struct{}

func (taskTools) Tools() []server.ServerTool {
	tool := mcp.NewTool("work", mcp.WithTaskSupport(mcp.TaskSupportOptional))
	return []server.ServerTool{{Tool: tool, Handler: func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return mcp.NewToolResultText("worked"), nil
	}}}
}

// TestStdioTaskSendsStatusNotifications: over stdio a 2025-11-25 host is
// told when its task ends (notifications/tasks/status), without polling.
func TestStdioTaskSendsStatusNotifications(t *testing.T) {
	f, err := endpoint.New(endpoint.Config{Sources: []endpoint.ToolSource{taskTools{}}})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- f.ServeStdio(ctx, inR, outW) }()
	defer func() { cancel(); _ = inW.Close(); <-done }()
	lines := make(chan map[string]json.RawMessage, 16)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				lines <- m
			}
		}
	}()
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	next := func() map[string]json.RawMessage {
		select {
		case m := <-lines:
			return m
		case <-ctx.Done():
			t.Fatal("no message from the face")
			return nil
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"tasks":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	next()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"work","arguments":{},"task":{"ttl":60000}}}`)
	var taskID string
	for taskID == "" {
		m := next()
		if string(m["id"]) == "2" {
			var r struct {
				Task struct {
					TaskID string `json:"taskId"`
				} `json:"task"`
			}
			_ = json.Unmarshal(m["result"], &r)
			taskID = r.Task.TaskID
			if taskID == "" {
				t.Fatalf("no task in %s", m["result"])
			}
		}
	}
	for {
		m := next()
		if !strings.Contains(string(m["method"]), "notifications/tasks/status") {
			continue
		}
		var p struct {
			TaskID string `json:"taskId"`
			Status string `json:"status"`
		}
		_ = json.Unmarshal(m["params"], &p)
		if p.TaskID != taskID || p.Status != "completed" {
			t.Fatalf("status notification %s, want task %s completed", m["params"], taskID)
		}
		return
	}
}
