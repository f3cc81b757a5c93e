package v03_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/client"
	"github.com/a2a-mcp-bridge/bridge/a2a/v03"
)

// card03Of is the card a pure 0.3 agent would serve at a's address: the
// served 0.3 view without its 1.0 members.
func card03Of(t *testing.T, a *agent) []byte {
	t.Helper()
	resp, err := http.Get(a.srv.URL + "/.well-known/agent-card.json?A2A-Version=0.3")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "supportedInterfaces")
	m["url"] = a.srv.URL
	m["additionalInterfaces"] = []any{map[string]any{"url": a.srv.URL, "transport": "JSONRPC"}, map[string]any{"url": a.srv.URL + "/rest", "transport": "HTTP+JSON"}}
	out, _ := json.Marshal(m)
	return out
}

// TestReadCard: a 0.3 card becomes a 1.0 card with 0.3 interfaces and a
// legacy client; a 1.0 card (also one with the 0.3 members beside) stays.
func TestReadCard(t *testing.T) {
	a := newAgent(t, true)
	c, legacy, err := v03.ReadCard(card03Of(t, a))
	if err != nil || legacy == nil {
		t.Fatalf("0.3 card: legacy %v, err %v", legacy, err)
	}
	if len(c.SupportedInterfaces) != 2 || c.SupportedInterfaces[0].ProtocolVersion != "0.3.0" || c.SupportedInterfaces[0].ProtocolBinding != "JSONRPC" || c.SupportedInterfaces[1].ProtocolBinding != "HTTP+JSON" {
		t.Errorf("interfaces %+v", c.SupportedInterfaces)
	}
	if c.Name != "Echo demo agent" || len(c.Skills) == 0 || c.Capabilities.Streaming == nil || !*c.Capabilities.Streaming {
		t.Errorf("card %+v", c)
	}
	resp, err := http.Get(a.srv.URL + "/.well-known/agent-card.json?A2A-Version=0.3")
	if err != nil {
		t.Fatal(err)
	}
	superset, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if c, legacy, err := v03.ReadCard(superset); err != nil || legacy != nil || c.SupportedInterfaces[0].ProtocolVersion != "1.0" {
		t.Errorf("a card with both shapes is read as 1.0: legacy %v err %v", legacy, err)
	}
	if v03.IsCard(superset) || !v03.IsCard(card03Of(t, a)) {
		t.Error("IsCard")
	}
}

// TestClientSpeaks03: the 1.0 client API over a legacy client against a
// server answering 0.3, on both bindings: every call the bridge makes to a
// fronted or exposed 0.3 agent.
func TestClientSpeaks03(t *testing.T) {
	for _, b := range []string{a2a.BindingJSONRPC, a2a.BindingHTTPJSON} {
		t.Run(b, func(t *testing.T) { clientSpeaks03(t, b) })
	}
}

func clientSpeaks03(t *testing.T, binding string) {
	a := newAgent(t, true)
	c, legacy, err := v03.ReadCard(card03Of(t, a))
	if err != nil {
		t.Fatal(err)
	}
	cl, err := client.New(c, client.WithLegacy(legacy), client.WithBinding(binding), client.WithHeader(func(_ context.Context, r *http.Request) error {
		if r.Header.Get("A2A-Version") != "" {
			return errors.New("a 0.3 request carries A2A-Version")
		}
		r.Header.Set("X-Test-Owner", "alice")
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	if got := cl.Interface().ProtocolBinding; got != binding {
		t.Fatalf("client binding %s, want %s", got, binding)
	}
	ctx := context.Background()
	msg := func(text, task, ctxID string) *a2a.SendMessageRequest {
		return &a2a.SendMessageRequest{Message: &a2a.Message{MessageID: text + task, Role: a2a.RoleUser, TaskID: task, ContextID: ctxID, Parts: []a2a.Part{a2a.TextPart(text)}}}
	}
	res, err := cl.SendMessage(ctx, msg("/interview", "", ""))
	if err != nil || res.Task == nil || res.Task.Status.State != a2a.TaskStateInputRequired {
		t.Fatalf("send: %+v %v", res, err)
	}
	task := res.Task
	cfg, err := cl.CreateTaskPushNotificationConfig(ctx, &a2a.TaskPushNotificationConfig{TaskID: task.ID, ID: "c1", URL: "https://hooks.example.com/x", Token: "tok", Authentication: &a2a.AuthenticationInfo{Scheme: "Bearer"}})
	if err != nil || cfg.ID != "c1" || cfg.TaskID != task.ID || cfg.Authentication == nil || cfg.Authentication.Scheme != "Bearer" {
		t.Fatalf("create push: %+v %v", cfg, err)
	}
	if got, err := cl.GetTaskPushNotificationConfig(ctx, &a2a.GetTaskPushNotificationConfigRequest{TaskID: task.ID, ID: "c1"}); err != nil || got.URL != cfg.URL {
		t.Fatalf("get push: %+v %v", got, err)
	}
	if list, err := cl.ListTaskPushNotificationConfigs(ctx, &a2a.ListTaskPushNotificationConfigsRequest{TaskID: task.ID}); err != nil || len(list.Configs) != 1 {
		t.Fatalf("list push: %+v %v", list, err)
	}
	if err := cl.DeleteTaskPushNotificationConfig(ctx, &a2a.DeleteTaskPushNotificationConfigRequest{TaskID: task.ID, ID: "c1"}); err != nil {
		t.Fatalf("delete push: %v", err)
	}
	st, err := cl.SendStreamingMessage(ctx, msg("Ada", task.ID, task.ContextID))
	if err != nil {
		t.Fatal(err)
	}
	var last a2a.TaskState
	var artifact string
	for ev, err := range st.All() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.StatusUpdate != nil {
			last = ev.StatusUpdate.Status.State
		}
		if ev.ArtifactUpdate != nil {
			artifact = ev.ArtifactUpdate.Artifact.Parts[0].Text
		}
	}
	if last != a2a.TaskStateCompleted || artifact != "Hello, Ada!" {
		t.Fatalf("stream: last %s artifact %q", last, artifact)
	}
	got, err := cl.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID})
	if err != nil || got.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("get: %+v %v", got, err)
	}
	slow, err := cl.SendMessage(ctx, &a2a.SendMessageRequest{Message: msg("/slow 30", "", "").Message, Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true}})
	if err != nil || slow.Task == nil || slow.Task.Status.State.Terminal() {
		t.Fatalf("non-blocking send: %+v %v", slow, err)
	}
	sub, err := cl.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: slow.Task.ID})
	if err != nil {
		t.Fatal(err)
	}
	first, err := sub.Next()
	if err != nil || first.Task == nil || first.Task.ID != slow.Task.ID {
		t.Fatalf("resubscribe: %+v %v", first, err)
	}
	canceled, err := cl.CancelTask(ctx, &a2a.CancelTaskRequest{ID: slow.Task.ID})
	if err != nil || canceled.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("cancel: %+v %v", canceled, err)
	}
	sub.Close()
	if _, err := cl.GetTask(ctx, &a2a.GetTaskRequest{ID: "no-such-task"}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Fatalf("unknown task: %v", err)
	}
	if _, err := cl.ListTasks(ctx, &a2a.ListTasksRequest{}); !errors.Is(err, a2a.ErrUnsupportedOperation) {
		t.Fatalf("list tasks on a 0.3 agent: %v", err)
	}
}
