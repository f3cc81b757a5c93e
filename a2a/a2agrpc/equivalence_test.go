package a2agrpc_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/client"
)

// Binding equivalence: one scenario table, run on JSON-RPC, HTTP+JSON and
// gRPC against the same server, must give the same trace on every binding:
// the same task states, the same events in the same order, the same error
// kinds and reasons.

// trace is what a scenario saw, binding-independently.
type trace []string

func (tr *trace) add(format string, a ...any) { *tr = append(*tr, fmt.Sprintf(format, a...)) }

// err records an error as its A2A kind: code and reason (nil: "ok").
func (tr *trace) err(err error) {
	if err == nil {
		tr.add("ok")
		return
	}
	var e *a2a.Error
	if !errors.As(err, &e) {
		tr.add("transport error %v", err)
		return
	}
	tr.add("error %d %s", e.Code, e.Reason)
}

func (tr *trace) event(ev *a2a.StreamResponse) {
	switch {
	case ev.Task != nil:
		tr.add("task %s", ev.Task.Status.State)
	case ev.Message != nil:
		tr.add("message %s", partsText(ev.Message.Parts))
	case ev.StatusUpdate != nil:
		tr.add("status %s", ev.StatusUpdate.Status.State)
	case ev.ArtifactUpdate != nil:
		tr.add("artifact %s", partsText(ev.ArtifactUpdate.Artifact.Parts))
	}
}

func partsText(ps []a2a.Part) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.Text)
	}
	return b.String()
}

func (tr *trace) stream(st *client.Stream, err error) {
	if err != nil {
		tr.err(err)
		return
	}
	for ev, err := range st.All() {
		if err != nil {
			tr.err(err)
			return
		}
		tr.event(ev)
	}
}

func (tr *trace) task(t *a2a.Task, err error) *a2a.Task {
	if err != nil {
		tr.err(err)
		return nil
	}
	tr.add("task %s %s", t.Status.State, artifactsText(t))
	return t
}

func artifactsText(t *a2a.Task) string {
	var out []string
	for _, a := range t.Artifacts {
		out = append(out, partsText(a.Parts))
	}
	return strings.Join(out, "|")
}

func (tr *trace) send(res *a2a.SendMessageResponse, err error) *a2a.Task {
	if err != nil {
		tr.err(err)
		return nil
	}
	if res.Message != nil {
		tr.add("message %s", partsText(res.Message.Parts))
		return nil
	}
	return tr.task(res.Task, nil)
}

type scenario struct {
	name string
	run  func(ctx context.Context, c *client.Client, tr *trace)
	want trace
}

// anonymous are the scenarios whose caller sends no credentials.
var anonymous = map[string]bool{"unauthenticated": true}

func scenarios() []scenario {
	immediately := &a2a.SendMessageConfiguration{ReturnImmediately: true}
	return []scenario{
		{"send", func(ctx context.Context, c *client.Client, tr *trace) {
			tr.send(c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("hello", "")}))
		}, trace{"task TASK_STATE_COMPLETED echo: hello"}},
		{"direct message", func(ctx context.Context, c *client.Client, tr *trace) {
			tr.send(c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("/message", "")}))
		}, trace{"message a direct message from the demo agent, with no task"}},
		{"failure", func(ctx context.Context, c *client.Client, tr *trace) {
			tr.send(c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("/fail", "")}))
		}, trace{"task TASK_STATE_FAILED "}},
		{"stream", func(ctx context.Context, c *client.Client, tr *trace) {
			tr.stream(c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("stream me", "")}))
		}, trace{"task TASK_STATE_SUBMITTED", "status TASK_STATE_WORKING", "artifact echo: stream me", "status TASK_STATE_COMPLETED"}},
		{"multi-turn", func(ctx context.Context, c *client.Client, tr *trace) {
			first := tr.send(c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("/interview", "")}))
			if first == nil {
				return
			}
			tr.send(c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("Ada", first.ID)}))
			tr.task(c.GetTask(ctx, &a2a.GetTaskRequest{ID: first.ID}))
			tr.send(c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("again", first.ID)}))
		}, trace{"task TASK_STATE_INPUT_REQUIRED ", "task TASK_STATE_COMPLETED Hello, Ada!", "task TASK_STATE_COMPLETED Hello, Ada!", "error -32004 UNSUPPORTED_OPERATION"}},
		{"get and list", func(ctx context.Context, c *client.Client, tr *trace) {
			t := tr.send(c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("listed", "")}))
			if t == nil {
				return
			}
			tr.task(c.GetTask(ctx, &a2a.GetTaskRequest{ID: t.ID}))
			l, err := c.ListTasks(ctx, &a2a.ListTasksRequest{ContextID: t.ContextID})
			if err != nil {
				tr.err(err)
				return
			}
			tr.add("listed %d", len(l.Tasks))
		}, trace{"task TASK_STATE_COMPLETED echo: listed", "task TASK_STATE_COMPLETED echo: listed", "listed 1"}},
		{"cancel", func(ctx context.Context, c *client.Client, tr *trace) {
			t := tr.send(c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("/slow 1000", ""), Configuration: immediately}))
			if t == nil {
				return
			}
			tr.task(c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: t.ID}))
			tr.task(c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: t.ID}))
		}, trace{"task TASK_STATE_WORKING ", "task TASK_STATE_CANCELED ", "task TASK_STATE_CANCELED "}},
		{"subscribe", func(ctx context.Context, c *client.Client, tr *trace) {
			t := tr.send(c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("/slow 1000", ""), Configuration: immediately}))
			if t == nil {
				return
			}
			st, err := c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: t.ID})
			if err != nil {
				tr.err(err)
				return
			}
			first, err := st.Next()
			if err != nil {
				tr.err(err)
				return
			}
			tr.event(first)
			tr.task(c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: t.ID}))
			// Status updates of the work may come before the cancel's:
			// the trace keeps the end.
			var rest trace
			rest.stream(st, nil)
			if len(rest) > 0 {
				tr.add("... %s", rest[len(rest)-1])
			}
			_, err = c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: t.ID})
			tr.err(err)
		}, trace{"task TASK_STATE_WORKING ", "task TASK_STATE_WORKING", "task TASK_STATE_CANCELED ", "... status TASK_STATE_CANCELED", "error -32004 UNSUPPORTED_OPERATION"}},
		{"push config", func(ctx context.Context, c *client.Client, tr *trace) {
			t := tr.send(c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("pushed", "")}))
			if t == nil {
				return
			}
			pc, err := c.CreateTaskPushNotificationConfig(ctx, &a2a.TaskPushNotificationConfig{TaskID: t.ID, URL: "https://hooks.example.com/x", Token: "tok"})
			if err != nil {
				tr.err(err)
				return
			}
			tr.add("created %s %s", pc.URL, pc.Token)
			got, err := c.GetTaskPushNotificationConfig(ctx, &a2a.GetTaskPushNotificationConfigRequest{TaskID: t.ID, ID: pc.ID})
			if err != nil {
				tr.err(err)
			} else {
				tr.add("got %s same id %v", got.URL, got.ID == pc.ID)
			}
			l, err := c.ListTaskPushNotificationConfigs(ctx, &a2a.ListTaskPushNotificationConfigsRequest{TaskID: t.ID})
			if err != nil {
				tr.err(err)
			} else {
				tr.add("listed %d", len(l.Configs))
			}
			tr.err(c.DeleteTaskPushNotificationConfig(ctx, &a2a.DeleteTaskPushNotificationConfigRequest{TaskID: t.ID, ID: pc.ID}))
			_, err = c.GetTaskPushNotificationConfig(ctx, &a2a.GetTaskPushNotificationConfigRequest{TaskID: t.ID, ID: pc.ID})
			tr.err(err)
			_, err = c.CreateTaskPushNotificationConfig(ctx, &a2a.TaskPushNotificationConfig{TaskID: t.ID, URL: "https://hooks.example.com/x", Authentication: &a2a.AuthenticationInfo{Credentials: "no scheme"}})
			tr.err(err)
		}, trace{"task TASK_STATE_COMPLETED echo: pushed", "created https://hooks.example.com/x tok", "got https://hooks.example.com/x same id true", "listed 1", "ok", "error -32001 TASK_NOT_FOUND", "error -32602 "}},
		{"unauthenticated", func(ctx context.Context, c *client.Client, tr *trace) {
			_, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: "x"})
			tr.err(err)
			tr.stream(c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("hi", "")}))
		}, trace{"error -31401 UNAUTHENTICATED", "error -31401 UNAUTHENTICATED"}},
		{"errors", func(ctx context.Context, c *client.Client, tr *trace) {
			_, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: "no-such-task"})
			tr.err(err)
			_, err = c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: "no-such-task"})
			tr.err(err)
			_, err = c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: "no-such-task"})
			tr.err(err)
			_, err = c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("hi", "no-such-task")})
			tr.err(err)
			_, err = c.ListTaskPushNotificationConfigs(ctx, &a2a.ListTaskPushNotificationConfigsRequest{TaskID: "no-such-task"})
			tr.err(err)
			_, err = c.GetExtendedAgentCard(ctx)
			tr.err(err)
			_, err = c.ListTasks(ctx, &a2a.ListTasksRequest{PageSize: a2a.Ptr[int32](-1)})
			tr.err(err)
			_, err = c.SendMessage(ctx, &a2a.SendMessageRequest{Message: &a2a.Message{MessageID: "m", Role: a2a.RoleUser, Parts: []a2a.Part{{Text: "x"}}, Metadata: a2a.Metadata{"skillId": 1}}})
			tr.err(err)
			done := tr.send(c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("done", "")}))
			if done != nil {
				_, err = c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: done.ID})
				tr.err(err)
			}
		}, trace{
			"error -32001 TASK_NOT_FOUND", "error -32001 TASK_NOT_FOUND", "error -32001 TASK_NOT_FOUND", "error -32001 TASK_NOT_FOUND",
			"error -32001 TASK_NOT_FOUND", "error -32004 UNSUPPORTED_OPERATION", "error -32602 ", "error -32602 ",
			"task TASK_STATE_COMPLETED echo: done", "error -32002 TASK_NOT_CANCELABLE",
		}},
	}
}

func TestBindingEquivalence(t *testing.T) {
	h := newHarness(t, nil)
	bindings := []string{a2a.BindingJSONRPC, a2a.BindingHTTPJSON, a2a.BindingGRPC}
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			traces := map[string]trace{}
			for _, b := range bindings {
				var tr trace
				caller := "eq-" + sc.name
				if anonymous[sc.name] {
					caller = ""
				}
				sc.run(ctxT(t), h.client(b, caller), &tr)
				traces[b] = tr
			}
			ref := traces[a2a.BindingJSONRPC]
			if len(ref) == 0 {
				t.Fatal("the scenario saw nothing")
			}
			for _, b := range bindings[1:] {
				if !slices.Equal(traces[b], ref) {
					t.Errorf("%s differs from JSONRPC:\n%s\nJSONRPC:\n%s", b, strings.Join(traces[b], "\n"), strings.Join(ref, "\n"))
				}
			}
			if sc.want != nil && !slices.Equal(ref, sc.want) {
				t.Errorf("trace:\n%s\nwant:\n%s", strings.Join(ref, "\n"), strings.Join(sc.want, "\n"))
			}
			t.Logf("trace on every binding:\n%s", strings.Join(ref, "\n"))
		})
	}
}
