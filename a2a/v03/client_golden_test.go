package v03

import (
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// TestGoldenClientRequests pins what the bridge sends a 0.3 agent for each
// 1.0 call, on both bindings ("blocking" always set).
func TestGoldenClientRequests(t *testing.T) {
	c := &Client{}
	hist := int32(2)
	calls := []struct {
		name, method string
		params       any
	}{
		{"send", a2a.MethodSendMessage, &a2a.SendMessageRequest{Message: userMessage10()}},
		{"stream_return_immediately", a2a.MethodSendStreamingMessage, &a2a.SendMessageRequest{Message: userMessage10(), Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true, HistoryLength: &hist,
			TaskPushNotificationConfig: &a2a.TaskPushNotificationConfig{URL: "https://hooks.example.com/a", Token: "tok"}}}},
		{"get", a2a.MethodGetTask, &a2a.GetTaskRequest{ID: "task-1", HistoryLength: &hist}},
		{"cancel", a2a.MethodCancelTask, &a2a.CancelTaskRequest{ID: "task-1"}},
		{"subscribe", a2a.MethodSubscribeToTask, &a2a.SubscribeToTaskRequest{ID: "task-1"}},
		{"push_create", a2a.MethodCreatePushConfig, &a2a.TaskPushNotificationConfig{ID: "cfg-1", TaskID: "task-1", URL: "https://hooks.example.com/a", Authentication: &a2a.AuthenticationInfo{Scheme: "Bearer", Credentials: "c"}}},
		{"push_get", a2a.MethodGetPushConfig, &a2a.GetTaskPushNotificationConfigRequest{TaskID: "task-1", ID: "cfg-1"}},
		{"push_list", a2a.MethodListPushConfigs, &a2a.ListTaskPushNotificationConfigsRequest{TaskID: "task-1"}},
		{"push_delete", a2a.MethodDeletePushConfig, &a2a.DeleteTaskPushNotificationConfigRequest{TaskID: "task-1", ID: "cfg-1"}},
	}
	for _, call := range calls {
		t.Run(call.name, func(t *testing.T) {
			m, p, err := c.RPCRequest(call.method, call.params)
			if err != nil {
				t.Fatal(err)
			}
			verb, path, q, body, err := c.RESTRequest(call.method, call.params)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "client_"+call.name, map[string]any{
				"jsonrpc": map[string]any{"method": m, "params": p},
				"rest":    map[string]any{"verb": verb, "path": path, "query": q.Encode(), "body": body},
			})
		})
	}
	if _, _, err := c.RPCRequest(a2a.MethodListTasks, &a2a.ListTasksRequest{}); err == nil {
		t.Error("ListTasks has a 0.3 method")
	}
}

// FuzzRESTEvent: a 0.3 agent's HTTP+JSON answers and events never panic
// the reader, and nothing read is success unless the agent said so.
func FuzzRESTEvent(f *testing.F) {
	for _, seed := range []string{
		`{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[{"artifactId":"a","parts":[{"text":"x"}]}]}}`,
		`{"statusUpdate":{"taskId":"t","status":{"state":"TASK_STATE_CANCELLED","update":{"messageId":"m","role":"ROLE_AGENT","content":[{"text":"bye"}]}},"final":true}}`,
		`{"msg":{"messageId":"m","role":"ROLE_AGENT","content":[{"file":{"fileWithUri":"https://x"}},{"data":{"data":{"k":1}}}]}}`,
		`{"artifactUpdate":{"taskId":"t","artifact":{"artifactId":"a","parts":[{"file":{"fileWithBytes":"AA=="}}]}}}`, `{}`, `{"code":-32001,"message":"x"}`,
	} {
		f.Add([]byte(seed))
	}
	c := &Client{}
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, err := c.RESTEvent(b)
		if err != nil || ev == nil {
			return
		}
		var st a2a.TaskState
		switch {
		case ev.Task != nil:
			st = ev.Task.Status.State
		case ev.StatusUpdate != nil:
			st = ev.StatusUpdate.Status.State
		}
		if st.Succeeded() && !containsCompleted(b) {
			t.Fatalf("read as success: %s", b)
		}
		var out a2a.SendMessageResponse
		_ = c.RESTResult(a2a.MethodSendMessage, b, &out)
	})
}

func containsCompleted(b []byte) bool {
	for i := 0; i+len("TASK_STATE_COMPLETED") <= len(b); i++ {
		if string(b[i:i+len("TASK_STATE_COMPLETED")]) == "TASK_STATE_COMPLETED" {
			return true
		}
	}
	return false
}
