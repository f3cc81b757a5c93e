package expose_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/client"
	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
	"github.com/a2a-mcp-bridge/bridge/mcp/expose"
)

// rpcErr is a JSON-RPC error object.
type rpcErr struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

var (
	rpcID     atomic.Int64
	rpcClient = &http.Client{}
)

// rpc sends one 2025-11-25 JSON-RPC request to the bridge as tok's owner
// and returns its result or error.
func (b *bridge) rpc(t testing.TB, tok, method string, params any) (json.RawMessage, *rpcErr) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": rpcID.Add(1), "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, b.url, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := rpcClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: HTTP %d", method, resp.StatusCode)
	}
	var raw []byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if d, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(d, `"id"`) {
				raw = []byte(d)
				break
			}
		}
	} else {
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(resp.Body)
		raw = buf.Bytes()
	}
	var m struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcErr         `json:"error"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: decode %q: %v", method, raw, err)
	}
	return m.Result, m.Error
}

type wireTask struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage"`
	CreatedAt     string `json:"createdAt"`
	TTL           *int64 `json:"ttl"`
	PollInterval  *int64 `json:"pollInterval"`
	Meta          struct {
		Upstream endpoint.Upstream `json:"io.a2a-mcp-bridge/upstream"`
	} `json:"_meta"`
}

func decode[T any](t testing.TB, raw json.RawMessage) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return v
}

// startTask calls the echo tool task-augmented and returns the task.
func (b *bridge) startTask(t testing.TB, tok, message string) wireTask {
	t.Helper()
	res, e := b.rpc(t, tok, "tools/call", map[string]any{
		"name": "echo", "arguments": map[string]any{"message": message}, "task": map[string]any{"ttl": 60000},
	})
	if e != nil {
		t.Fatalf("tools/call with task: %+v", e)
	}
	ct := decode[struct {
		Task wireTask `json:"task"`
	}](t, res)
	// A quick call may have ended (completed, or failed) by the time the
	// task is answered.
	if ct.Task.TaskID == "" || !slices.Contains([]string{"working", "completed", "failed"}, ct.Task.Status) || ct.Task.CreatedAt == "" || ct.Task.TTL == nil || *ct.Task.TTL != 60000 || ct.Task.PollInterval == nil {
		t.Fatalf("CreateTaskResult = %s", res)
	}
	return ct.Task
}

// waitTask polls tasks/get until cond holds.
func (b *bridge) waitTask(t testing.TB, tok, id string, cond func(wireTask) bool) wireTask {
	t.Helper()
	var tk wireTask
	bridgetest.Eventually(t, 30*time.Second, "tasks/get "+id+" as the test waits for", func() error {
		res, e := b.rpc(t, tok, "tasks/get", map[string]any{"taskId": id})
		if e != nil {
			t.Fatalf("tasks/get: %+v", e)
		}
		if tk = decode[wireTask](t, res); !cond(tk) {
			return fmt.Errorf("status %q", tk.Status)
		}
		return nil
	})
	return tk
}

func TestInitializeDeclaresTasks(t *testing.T) {
	b, _ := echoBridge(t, nil)
	res, e := b.rpc(t, b.token(t, "alice"), "initialize", map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"},
	})
	if e != nil {
		t.Fatal(e)
	}
	got := decode[struct {
		Capabilities struct {
			Tasks json.RawMessage `json:"tasks"`
		} `json:"capabilities"`
	}](t, res)
	if string(got.Capabilities.Tasks) != `{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}` {
		t.Fatalf("tasks capability = %s", got.Capabilities.Tasks)
	}
	tl, _ := b.rpc(t, b.token(t, "alice"), "tools/list", map[string]any{})
	if !strings.Contains(string(tl), `"taskSupport":"optional"`) {
		t.Fatalf("agent tool does not declare task support: %s", tl)
	}
}

func TestTaskRunsToCompletion(t *testing.T) {
	b, _ := echoBridge(t, nil)
	tok := b.token(t, "alice")
	tk := b.startTask(t, tok, "/slow 2")
	done := b.waitTask(t, tok, tk.TaskID, func(w wireTask) bool { return w.Status != "working" })
	if done.Status != "completed" {
		t.Fatalf("status = %q (%s), want completed", done.Status, done.StatusMessage)
	}
	if done.Meta.Upstream.Agent != "echo" || done.Meta.Upstream.TaskID == "" || done.Meta.Upstream.ContextID == "" {
		t.Fatalf("upstream binding = %+v", done.Meta.Upstream)
	}
	res, e := b.rpc(t, tok, "tasks/result", map[string]any{"taskId": tk.TaskID})
	if e != nil {
		t.Fatalf("tasks/result: %+v", e)
	}
	r := decode[struct {
		IsError           bool           `json:"isError"`
		StructuredContent map[string]any `json:"structuredContent"`
		Meta              map[string]struct {
			TaskID string `json:"taskId"`
		} `json:"_meta"`
	}](t, res)
	if r.IsError || r.StructuredContent["state"] != "completed" || r.StructuredContent["taskId"] != done.Meta.Upstream.TaskID {
		t.Fatalf("tasks/result = %s", res)
	}
	if r.Meta["io.modelcontextprotocol/related-task"].TaskID != tk.TaskID {
		t.Fatalf("related-task meta missing: %s", res)
	}
}

func TestTaskResultBlocksUntilTerminal(t *testing.T) {
	b, _ := echoBridge(t, nil)
	tok := b.token(t, "alice")
	tk := b.startTask(t, tok, "/slow 1")
	res, e := b.rpc(t, tok, "tasks/result", map[string]any{"taskId": tk.TaskID})
	if e != nil || !strings.Contains(string(res), `"completed"`) {
		t.Fatalf("tasks/result = %s, %+v", res, e)
	}
	got := b.waitTask(t, tok, tk.TaskID, func(wireTask) bool { return true })
	if got.Status != "completed" {
		t.Fatalf("status after result = %q", got.Status)
	}
}

func TestTaskFailureIsFailedStatus(t *testing.T) {
	b, _ := echoBridge(t, nil)
	tok := b.token(t, "alice")
	tk := b.startTask(t, tok, "/fail boom")
	done := b.waitTask(t, tok, tk.TaskID, func(w wireTask) bool { return w.Status != "working" })
	if done.Status != "failed" || done.StatusMessage == "" {
		t.Fatalf("task = %+v, want failed with a message", done)
	}
	res, e := b.rpc(t, tok, "tasks/result", map[string]any{"taskId": tk.TaskID})
	if e != nil || !strings.Contains(string(res), `"isError":true`) {
		t.Fatalf("tasks/result = %s, %+v", res, e)
	}
}

func TestTaskCancelCancelsUpstreamTask(t *testing.T) {
	b, d := echoBridge(t, nil)
	tok := b.token(t, "alice")
	tk := b.startTask(t, tok, "/slow 30")
	bound := b.waitTask(t, tok, tk.TaskID, func(w wireTask) bool { return w.Meta.Upstream.TaskID != "" })
	res, e := b.rpc(t, tok, "tasks/cancel", map[string]any{"taskId": tk.TaskID})
	if e != nil || decode[wireTask](t, res).Status != "cancelled" {
		t.Fatalf("tasks/cancel = %s, %+v", res, e)
	}
	cl, err := client.Dial(context.Background(), d.cardURL)
	if err != nil {
		t.Fatal(err)
	}
	bridgetest.Eventually(t, 30*time.Second, "the upstream task CANCELED", func() error {
		up, err := cl.GetTask(context.Background(), &a2a.GetTaskRequest{ID: bound.Meta.Upstream.TaskID})
		if err != nil {
			t.Fatal(err)
		}
		if up.Status.State == a2a.TaskStateCanceled {
			return nil
		}
		if up.Status.State.Terminal() {
			t.Fatalf("upstream task ended %s, want CANCELED", up.Status.State)
		}
		return fmt.Errorf("upstream task %s", up.Status.State)
	})
	if got := b.waitTask(t, tok, tk.TaskID, func(wireTask) bool { return true }); got.Status != "cancelled" {
		t.Fatalf("status after cancel = %q", got.Status)
	}
	if _, e := b.rpc(t, tok, "tasks/cancel", map[string]any{"taskId": tk.TaskID}); e == nil || e.Code != -32602 {
		t.Fatalf("second cancel = %+v, want -32602", e)
	}
}

// TestTaskOfAnotherPrincipalIsNotFound: a task id is not a capability.
// Bob, who learnt Alice's task id, gets exactly the unknown-task error from
// tasks/get, tasks/result and tasks/cancel, and tasks/list shows him
// nothing; Alice's task runs on.
func TestTaskOfAnotherPrincipalIsNotFound(t *testing.T) {
	b, _ := echoBridge(t, nil)
	alice, bob := b.token(t, "alice"), b.token(t, "bob")
	tk := b.startTask(t, alice, "/slow 30")
	_, unknown := b.rpc(t, bob, "tasks/get", map[string]any{"taskId": "no-such-task"})
	if unknown == nil || unknown.Code != -32602 {
		t.Fatalf("unknown task error = %+v", unknown)
	}
	for _, m := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
		res, e := b.rpc(t, bob, m, map[string]any{"taskId": tk.TaskID})
		if e == nil || *e != *unknown {
			t.Fatalf("%s of another principal's task = %s, %+v; want %+v", m, res, e, unknown)
		}
	}
	res, e := b.rpc(t, bob, "tasks/list", map[string]any{})
	if e != nil || decode[struct {
		Tasks []wireTask `json:"tasks"`
	}](t, res).Tasks == nil || strings.Contains(string(res), tk.TaskID) {
		t.Fatalf("bob's tasks/list = %s, %+v", res, e)
	}
	if got := b.waitTask(t, alice, tk.TaskID, func(wireTask) bool { return true }); got.Status != "working" {
		t.Fatalf("alice's task = %q after bob's attempts, want working", got.Status)
	}
	_, _ = b.rpc(t, alice, "tasks/cancel", map[string]any{"taskId": tk.TaskID})
}

func TestTaskListPaginates(t *testing.T) {
	d := startDemo(t, nil)
	b := startBridge(t, []expose.AgentConfig{{Alias: "echo", CardURL: d.cardURL}}, func(c *endpoint.Config) { c.TaskListPageSize = 2 })
	tok := b.token(t, "alice")
	want := map[string]bool{}
	for range 3 {
		want[b.startTask(t, tok, "hello").TaskID] = true
	}
	seen := map[string]bool{}
	cursor := ""
	pages := 0
	for {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		res, e := b.rpc(t, tok, "tasks/list", params)
		if e != nil {
			t.Fatalf("tasks/list: %+v", e)
		}
		page := decode[struct {
			Tasks      []wireTask `json:"tasks"`
			NextCursor string     `json:"nextCursor"`
		}](t, res)
		pages++
		if len(page.Tasks) > 2 {
			t.Fatalf("page of %d tasks, want at most 2", len(page.Tasks))
		}
		for _, tk := range page.Tasks {
			seen[tk.TaskID] = true
		}
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	if pages != 2 || len(seen) != 3 {
		t.Fatalf("pages = %d, seen = %v, want 2 pages and %v", pages, seen, want)
	}
	for id := range want {
		if !seen[id] {
			t.Fatalf("task %s not listed", id)
		}
	}
	if _, e := b.rpc(t, tok, "tasks/list", map[string]any{"cursor": "bogus"}); e == nil || e.Code != -32602 {
		t.Fatalf("bogus cursor = %+v, want -32602", e)
	}
}
