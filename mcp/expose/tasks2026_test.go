package expose_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/client"
	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
)

// modernMeta is the _meta of a 2026-07-28 request; tasks lists the tasks
// extension among the client's capabilities.
func modernMeta(tasks bool) map[string]any {
	caps := map[string]any{}
	if tasks {
		caps["extensions"] = map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}
	}
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "t", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": caps,
	}
}

// rpc26 sends one 2026-07-28 request (params get the modern _meta).
func (b *bridge) rpc26(t testing.TB, tok, method string, params map[string]any, tasks bool) (json.RawMessage, *rpcErr) {
	t.Helper()
	params["_meta"] = modernMeta(tasks)
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": rpcID.Add(1), "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, b.url, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if id, ok := params["taskId"].(string); ok {
		req.Header.Set("Mcp-Name", id)
	} else if n, ok := params["name"].(string); ok {
		req.Header.Set("Mcp-Name", n)
	}
	resp, err := rpcClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	raw := buf.Bytes()
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range strings.Split(buf.String(), "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(d, `"id"`) {
				raw = []byte(d)
			}
		}
	}
	var m struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcErr         `json:"error"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: HTTP %d, decode %q: %v", method, resp.StatusCode, raw, err)
	}
	return m.Result, m.Error
}

type task26 struct {
	ResultType     string                     `json:"resultType"`
	TaskID         string                     `json:"taskId"`
	Status         string                     `json:"status"`
	StatusMessage  string                     `json:"statusMessage"`
	CreatedAt      string                     `json:"createdAt"`
	LastUpdatedAt  string                     `json:"lastUpdatedAt"`
	TTLMs          *int64                     `json:"ttlMs"`
	PollIntervalMs *int64                     `json:"pollIntervalMs"`
	Result         json.RawMessage            `json:"result"`
	Error          json.RawMessage            `json:"error"`
	Meta           map[string]json.RawMessage `json:"_meta"`
}

func (b *bridge) poll26(t testing.TB, tok, id string, cond func(task26) bool) task26 {
	t.Helper()
	var tk task26
	bridgetest.Eventually(t, 30*time.Second, "tasks/get "+id+" as the test waits for", func() error {
		res, e := b.rpc26(t, tok, "tasks/get", map[string]any{"taskId": id}, true)
		if e != nil {
			t.Fatalf("tasks/get: %+v", e)
		}
		tk = decode[task26](t, res)
		if tk.ResultType != "complete" {
			t.Fatalf("tasks/get resultType = %q, want complete: %s", tk.ResultType, res)
		}
		if !cond(tk) {
			return fmt.Errorf("status %q", tk.Status)
		}
		return nil
	})
	return tk
}

// TestModernTaskFlow: a 2026-07-28 caller that declares the tasks
// extension gets a task handle for a task-capable tool at once, polls
// tasks/get until the result arrives inline, and tasks/update is
// acknowledged.
func TestModernTaskFlow(t *testing.T) {
	b, _ := echoBridge(t, nil)
	tok := b.token(t, "alice")
	disc, e := b.rpc26(t, tok, "server/discover", map[string]any{}, true)
	if e != nil || !strings.Contains(string(disc), `"extensions":{"io.modelcontextprotocol/tasks":{}}`) {
		t.Fatalf("server/discover = %s, %+v: the tasks extension is not declared", disc, e)
	}
	if ini, _ := b.rpc(t, tok, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}); strings.Contains(string(ini), "io.modelcontextprotocol/tasks") {
		t.Fatalf("a 2025-11-25 initialize lists the 2026-07-28 extension: %s", ini)
	}
	res, e := b.rpc26(t, tok, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "/slow 1"}}, true)
	if e != nil {
		t.Fatalf("tools/call: %+v", e)
	}
	ct := decode[task26](t, res)
	if ct.ResultType != "task" || ct.TaskID == "" || ct.Status != "working" || ct.CreatedAt == "" || ct.TTLMs == nil || ct.PollIntervalMs == nil {
		t.Fatalf("CreateTaskResult = %s", res)
	}
	if _, ok := ct.Meta["io.modelcontextprotocol/serverInfo"]; !ok {
		t.Fatalf("no serverInfo in the result's _meta: %s", res)
	}
	if up, e := b.rpc26(t, tok, "tasks/update", map[string]any{"taskId": ct.TaskID, "inputResponses": map[string]any{"nope": map[string]any{"action": "accept"}}}, true); e != nil || decode[task26](t, up).ResultType != "complete" {
		t.Fatalf("tasks/update = %s, %+v", up, e)
	}
	done := b.poll26(t, tok, ct.TaskID, func(x task26) bool { return x.Status != "working" })
	if done.Status != "completed" || len(done.Result) == 0 {
		t.Fatalf("terminal task = %+v", done)
	}
	r := decode[struct {
		IsError           bool           `json:"isError"`
		StructuredContent map[string]any `json:"structuredContent"`
	}](t, done.Result)
	if r.IsError || r.StructuredContent["state"] != "completed" {
		t.Fatalf("inline result = %s", done.Result)
	}
}

// TestModernCallWithoutTheExtensionRunsSynchronously: a 2026-07-28 caller
// that does not declare the extension never gets a task handle.
func TestModernCallWithoutTheExtensionRunsSynchronously(t *testing.T) {
	b, _ := echoBridge(t, nil)
	tok := b.token(t, "alice")
	res, e := b.rpc26(t, tok, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "hi"}}, false)
	if e != nil {
		t.Fatalf("tools/call: %+v", e)
	}
	if rt := decode[task26](t, res).ResultType; rt == "task" || !strings.Contains(string(res), "echo: hi") {
		t.Fatalf("result = %s", res)
	}
	if _, e := b.rpc26(t, tok, "tasks/get", map[string]any{"taskId": "x"}, false); e == nil || e.Code != -32021 {
		t.Fatalf("tasks/get without the extension = %+v, want -32021", e)
	}
}

// TestModernTaskCancelAndErrors: tasks/cancel is acknowledged with an
// empty result and cancels the upstream work; an unknown task is -32602;
// tasks/result and tasks/list do not exist in 2026-07-28; another
// principal's task is unknown.
func TestModernTaskCancelAndErrors(t *testing.T) {
	b, d := echoBridge(t, nil)
	tok := b.token(t, "alice")
	res, e := b.rpc26(t, tok, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "/slow 30"}}, true)
	if e != nil {
		t.Fatalf("tools/call: %+v", e)
	}
	ct := decode[task26](t, res)
	if _, e := b.rpc26(t, b.token(t, "bob"), "tasks/get", map[string]any{"taskId": ct.TaskID}, true); e == nil || e.Code != -32602 {
		t.Fatalf("bob's tasks/get of alice's task = %+v, want -32602", e)
	}
	bound := b.poll26(t, tok, ct.TaskID, func(x task26) bool { return len(x.Meta["io.a2a-mcp-bridge/upstream"]) > 0 })
	var up struct {
		TaskID string `json:"a2aTaskId"`
	}
	_ = json.Unmarshal(bound.Meta["io.a2a-mcp-bridge/upstream"], &up)
	ack, e := b.rpc26(t, tok, "tasks/cancel", map[string]any{"taskId": ct.TaskID}, true)
	if e != nil || decode[task26](t, ack).ResultType != "complete" || decode[task26](t, ack).TaskID != "" {
		t.Fatalf("tasks/cancel = %s, %+v, want an empty acknowledgement", ack, e)
	}
	if got := b.poll26(t, tok, ct.TaskID, func(x task26) bool { return x.Status != "working" }); got.Status != "cancelled" {
		t.Fatalf("status after cancel = %q", got.Status)
	}
	if up.TaskID != "" {
		cl, err := client.Dial(context.Background(), d.cardURL)
		if err != nil {
			t.Fatal(err)
		}
		bridgetest.Eventually(t, 30*time.Second, "the upstream task CANCELED", func() error {
			u, err := cl.GetTask(context.Background(), &a2a.GetTaskRequest{ID: up.TaskID})
			if err != nil {
				t.Fatal(err)
			}
			if u.Status.State == a2a.TaskStateCanceled {
				return nil
			}
			if u.Status.State.Terminal() {
				t.Fatalf("upstream task ended %s, want CANCELED", u.Status.State)
			}
			return fmt.Errorf("upstream task %s", u.Status.State)
		})
	}
	if _, e := b.rpc26(t, tok, "tasks/cancel", map[string]any{"taskId": ct.TaskID}, true); e != nil {
		t.Fatalf("cancel of an ended task = %+v, want the acknowledgement", e)
	}
	if _, e := b.rpc26(t, tok, "tasks/get", map[string]any{"taskId": "no-such-task"}, true); e == nil || e.Code != -32602 {
		t.Fatalf("unknown task = %+v, want -32602", e)
	}
	for _, m := range []string{"tasks/result", "tasks/list"} {
		if _, e := b.rpc26(t, tok, m, map[string]any{"taskId": ct.TaskID}, true); e == nil || e.Code != -32601 {
			t.Fatalf("%s = %+v, want -32601", m, e)
		}
	}
}

// TestModernTaskStatusOnListenStream: a subscriptions/listen naming tasks
// is acknowledged with the caller's own tasks only, then carries
// notifications/tasks (the full task, tagged with the subscription id)
// until the task's result; without the extension it is -32021.
func TestModernTaskStatusOnListenStream(t *testing.T) {
	b, _ := echoBridge(t, nil)
	tok := b.token(t, "alice")
	res, e := b.rpc26(t, tok, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "/slow 1"}}, true)
	if e != nil {
		t.Fatalf("tools/call: %+v", e)
	}
	id := decode[task26](t, res).TaskID
	if _, e := b.rpc26(t, tok, "subscriptions/listen", map[string]any{"notifications": map[string]any{"taskIds": []string{id}}}, false); e == nil || e.Code != -32021 {
		t.Fatalf("listen without the extension = %+v, want -32021", e)
	}
	params := map[string]any{"notifications": map[string]any{"taskIds": []string{id, "not-alices"}}, "_meta": modernMeta(true)}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 77, "method": "subscriptions/listen", "params": params})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, b.url, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := rpcClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("listen answered %s", resp.Header.Get("Content-Type"))
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	acked := false
	for sc.Scan() {
		d, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var n struct {
			Method string `json:"method"`
			Params struct {
				task26
				Notifications struct {
					TaskIDs []string `json:"taskIds"`
				} `json:"notifications"`
			} `json:"params"`
		}
		if err := json.Unmarshal([]byte(d), &n); err != nil {
			t.Fatalf("event %s: %v", d, err)
		}
		if string(n.Params.Meta["io.modelcontextprotocol/subscriptionId"]) != "77" {
			t.Fatalf("event not tagged with the subscription: %s", d)
		}
		switch n.Method {
		case "notifications/subscriptions/acknowledged":
			if len(n.Params.Notifications.TaskIDs) != 1 || n.Params.Notifications.TaskIDs[0] != id {
				t.Fatalf("acknowledged %v, want only [%s]", n.Params.Notifications.TaskIDs, id)
			}
			acked = true
		case "notifications/tasks":
			if !acked || n.Params.TaskID != id {
				t.Fatalf("task notification before the acknowledgement or for another task: %s", d)
			}
			if n.Params.Status == "completed" {
				if !strings.Contains(string(n.Params.Result), `"state":"completed"`) {
					t.Fatalf("completed without the result: %s", d)
				}
				return
			}
		default:
			t.Fatalf("unexpected event %s", d)
		}
	}
	t.Fatalf("the stream ended before the task completed: %v", sc.Err())
}

// TestMCP2026_AnotherPrincipalCannotReadUpdateCancelOrFollowATask: bob,
// holding the id of alice's 2026-07-28 task, gets -32602 (as for a task
// that does not exist) from tasks/get, tasks/update and tasks/cancel, and a
// subscriptions/listen naming it is acknowledged without it; alice's task
// runs on and completes, not cancelled.
func TestMCP2026_AnotherPrincipalCannotReadUpdateCancelOrFollowATask(t *testing.T) {
	b, _ := echoBridge(t, nil)
	alice, bob := b.token(t, "alice"), b.token(t, "bob")
	res, e := b.rpc26(t, alice, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "/slow 1"}}, true)
	if e != nil {
		t.Fatalf("tools/call: %+v", e)
	}
	id := decode[task26](t, res).TaskID
	for _, c := range []struct {
		method string
		params map[string]any
	}{
		{"tasks/get", map[string]any{"taskId": id}},
		{"tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"k": map[string]any{"action": "accept"}}}},
		{"tasks/cancel", map[string]any{"taskId": id}},
	} {
		if got, e := b.rpc26(t, bob, c.method, c.params, true); e == nil || e.Code != -32602 {
			t.Fatalf("bob's %s of alice's task = %s, %+v, want -32602", c.method, got, e)
		}
	}
	params := map[string]any{"notifications": map[string]any{"taskIds": []string{id}}, "_meta": modernMeta(true)}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen", "params": params})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, b.url, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+bob)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := rpcClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var first string
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			first = d
			break
		}
	}
	resp.Body.Close()
	if !strings.Contains(first, `"notifications/subscriptions/acknowledged"`) || !strings.Contains(first, `"taskIds":[]`) || strings.Contains(first, id) {
		t.Fatalf("bob's listen on alice's task began with %q, want an acknowledgement of no task", first)
	}
	if got := b.poll26(t, alice, id, func(x task26) bool { return x.Status != "working" }); got.Status != "completed" {
		t.Fatalf("alice's task ended %q after bob's requests, want completed", got.Status)
	}
}
