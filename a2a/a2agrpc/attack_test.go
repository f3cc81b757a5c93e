package a2agrpc_test

import (
	"errors"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// Owner scoping on the gRPC binding: principal B naming principal A's task
// in any task-scoped method learns nothing of it (TASK_NOT_FOUND, as for a
// task that does not exist) and changes nothing; and a task created over
// gRPC is the same task, with the same owner, on JSON-RPC and HTTP+JSON.
func TestGRPCOtherPrincipalsTaskIsNotFound(t *testing.T) {
	h := newHarness(t, nil)
	ctx := ctxT(t)
	alice := h.client(a2a.BindingGRPC, "alice")
	mallory := h.client(a2a.BindingGRPC, "mallory")
	running, err := alice.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("/slow 30", ""), Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true}})
	if err != nil {
		t.Fatal(err)
	}
	id := running.Task.ID
	pc, err := alice.CreateTaskPushNotificationConfig(ctx, &a2a.TaskPushNotificationConfig{TaskID: id, URL: "https://hooks.example.com/a"})
	if err != nil {
		t.Fatal(err)
	}
	attacks := []struct {
		name string
		call func() error
	}{
		{"GetTask", func() error { _, err := mallory.GetTask(ctx, &a2a.GetTaskRequest{ID: id}); return err }},
		{"CancelTask", func() error { _, err := mallory.CancelTask(ctx, &a2a.CancelTaskRequest{ID: id}); return err }},
		{"SubscribeToTask", func() error {
			s, err := mallory.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: id})
			if err == nil {
				_ = s.Close()
			}
			return err
		}},
		{"SendMessage to the task", func() error {
			_, err := mallory.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("hi", id)})
			return err
		}},
		{"SendStreamingMessage to the task", func() error {
			s, err := mallory.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("hi", id)})
			if err == nil {
				_ = s.Close()
			}
			return err
		}},
		{"CreateTaskPushNotificationConfig", func() error {
			_, err := mallory.CreateTaskPushNotificationConfig(ctx, &a2a.TaskPushNotificationConfig{TaskID: id, URL: "https://evil.example.com/"})
			return err
		}},
		{"GetTaskPushNotificationConfig", func() error {
			_, err := mallory.GetTaskPushNotificationConfig(ctx, &a2a.GetTaskPushNotificationConfigRequest{TaskID: id, ID: pc.ID})
			return err
		}},
		{"ListTaskPushNotificationConfigs", func() error {
			r, err := mallory.ListTaskPushNotificationConfigs(ctx, &a2a.ListTaskPushNotificationConfigsRequest{TaskID: id})
			if err == nil && len(r.Configs) > 0 {
				return errors.New("listed alice's configs")
			}
			return err
		}},
		{"DeleteTaskPushNotificationConfig", func() error {
			return mallory.DeleteTaskPushNotificationConfig(ctx, &a2a.DeleteTaskPushNotificationConfigRequest{TaskID: id, ID: pc.ID})
		}},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			if err := a.call(); !errors.Is(err, a2a.ErrTaskNotFound) {
				t.Fatalf("got %v, want TASK_NOT_FOUND", err)
			}
		})
	}
	list, err := mallory.ListTasks(ctx, &a2a.ListTasksRequest{})
	if err != nil || len(list.Tasks) != 0 {
		t.Fatalf("mallory lists %+v, %v", list, err)
	}
	// Nothing changed: alice's task still runs and keeps its config.
	task, err := alice.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
	if err != nil || task.Status.State.Terminal() {
		t.Fatalf("alice's task after the attacks: %+v, %v", task, err)
	}
	if _, err := alice.GetTaskPushNotificationConfig(ctx, &a2a.GetTaskPushNotificationConfigRequest{TaskID: id, ID: pc.ID}); err != nil {
		t.Fatalf("alice's push config after the attacks: %v", err)
	}
	// The same task on the other bindings: its owner reads it, nobody else.
	for _, b := range []string{a2a.BindingJSONRPC, a2a.BindingHTTPJSON} {
		if got, err := h.client(b, "alice").GetTask(ctx, &a2a.GetTaskRequest{ID: id}); err != nil || got.ID != id {
			t.Fatalf("%s: alice reads her gRPC task: %+v, %v", b, got, err)
		}
		if _, err := h.client(b, "mallory").GetTask(ctx, &a2a.GetTaskRequest{ID: id}); !errors.Is(err, a2a.ErrTaskNotFound) {
			t.Fatalf("%s: mallory reads alice's gRPC task: %v", b, err)
		}
	}
	if _, err := alice.CancelTask(ctx, &a2a.CancelTaskRequest{ID: id}); err != nil {
		t.Fatal(err)
	}
}
