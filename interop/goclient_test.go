//go:build interop

// Our Go A2A client (package a2a) against the @a2a-js/sdk agent (server.mjs),
// once per binding forced with client.WithBinding. Uses NewClient, SendMessage,
// SendStreamingMessage (Stream.All), GetTask, ListTasks, CancelTask and
// errors.Is(err, a2a.ErrTaskNotFound).

package interop

import (
	"context"
	"errors"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/client"
)

func userMsg(text, taskID, contextID string) *a2a.Message {
	return &a2a.Message{
		MessageID: uuid.NewString(),
		TaskID:    taskID,
		ContextID: contextID,
		Role:      a2a.RoleUser,
		Parts:     []a2a.Part{a2a.TextPart(text)},
	}
}

func artifactTexts(task *a2a.Task) []string {
	var out []string
	for _, a := range task.Artifacts {
		for _, p := range a.Parts {
			if p.Kind == a2a.PartText {
				out = append(out, p.Text)
			}
		}
	}
	return out
}

// stream opens a streaming send of text and returns its events.
func stream(ctx context.Context, t *testing.T, c *client.Client, text string) iter.Seq2[*a2a.StreamResponse, error] {
	t.Helper()
	s, err := c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userMsg(text, "", "")})
	if err != nil {
		t.Fatalf("SendStreamingMessage(%q): %v", text, err)
	}
	return s.All()
}

// TestGoClientAgainstJSServer drives server.mjs with our client over both bindings.
func TestGoClientAgainstJSServer(t *testing.T) {
	node := requireNode(t)
	base := startJSServer(t, node)
	cardURL := base + "/.well-known/agent-card.json"

	for _, binding := range []string{a2a.BindingJSONRPC, a2a.BindingHTTPJSON} {
		t.Run(binding, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c, err := client.Dial(ctx, cardURL, client.WithBinding(binding))
			if err != nil {
				t.Fatalf("NewClient(%s): %v", cardURL, err)
			}
			if got := c.Interface().ProtocolBinding; got != binding {
				t.Fatalf("client picked binding %q, want %q", got, binding)
			}

			t.Run("blocking echo", func(t *testing.T) {
				resp, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("hello go", "", "")})
				if err != nil {
					t.Fatalf("SendMessage: %v", err)
				}
				if resp.Task == nil {
					t.Fatalf("SendMessage: want a task, got %+v", resp)
				}
				if resp.Task.Status.State != a2a.TaskStateCompleted {
					t.Errorf("state = %s, want %s", resp.Task.Status.State, a2a.TaskStateCompleted)
				}
				if got := strings.Join(artifactTexts(resp.Task), "|"); got != "echo: hello go" {
					t.Errorf("artifacts = %q, want %q", got, "echo: hello go")
				}
			})

			t.Run("streaming order", func(t *testing.T) {
				var kinds []string
				var last *a2a.StreamResponse
				for ev, err := range stream(ctx, t, c, "stream go") {
					if err != nil {
						t.Fatalf("stream: %v (after %v)", err, kinds)
					}
					k := ev.Kind()
					if ev.StatusUpdate != nil {
						k += ":" + string(ev.StatusUpdate.Status.State)
					}
					kinds = append(kinds, k)
					last = ev
				}
				trace := strings.Join(kinds, " -> ")
				if len(kinds) < 3 || kinds[0] != "task" {
					t.Fatalf("want task first and at least 3 events, got %s", trace)
				}
				iw := strings.Index(trace, "statusUpdate:"+string(a2a.TaskStateWorking))
				ia := strings.Index(trace, "artifactUpdate")
				if iw < 0 || ia < iw {
					t.Errorf("want WORKING before the artifact, got %s", trace)
				}
				if last.StatusUpdate == nil || last.StatusUpdate.Status.State != a2a.TaskStateCompleted {
					t.Errorf("want COMPLETED last, got %s", trace)
				}
			})

			t.Run("interview then get and list", func(t *testing.T) {
				first, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("/interview", "", "")})
				if err != nil || first.Task == nil {
					t.Fatalf("SendMessage(/interview) = %+v, %v", first, err)
				}
				if first.Task.Status.State != a2a.TaskStateInputRequired {
					t.Fatalf("state = %s, want %s", first.Task.Status.State, a2a.TaskStateInputRequired)
				}
				task := first.Task
				second, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("Ada", task.ID, task.ContextID)})
				if err != nil || second.Task == nil {
					t.Fatalf("SendMessage(reply) = %+v, %v", second, err)
				}
				if second.Task.ID != task.ID || second.Task.Status.State != a2a.TaskStateCompleted {
					t.Errorf("reply: task %s state %s, want task %s COMPLETED", second.Task.ID, second.Task.Status.State, task.ID)
				}
				got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID})
				if err != nil {
					t.Fatalf("GetTask: %v", err)
				}
				if texts := artifactTexts(got); len(texts) == 0 || texts[len(texts)-1] != "Hello, Ada!" {
					t.Errorf("GetTask artifacts = %q, want last %q", texts, "Hello, Ada!")
				}
				list, err := c.ListTasks(ctx, &a2a.ListTasksRequest{ContextID: task.ContextID})
				if err != nil {
					t.Fatalf("ListTasks: %v", err)
				}
				if len(list.Tasks) != 1 || list.Tasks[0].ID != task.ID {
					t.Errorf("ListTasks(context %s) = %d tasks, want just %s", task.ContextID, len(list.Tasks), task.ID)
				}
			})

			t.Run("cancel slow", func(t *testing.T) {
				var taskID string
				var canceled *a2a.Task
				for ev, err := range stream(ctx, t, c, "/slow 10") {
					if err != nil {
						t.Fatalf("stream: %v", err)
					}
					if ev.Task != nil {
						taskID = ev.Task.ID
					}
					if su := ev.StatusUpdate; su != nil {
						if su.Status.State == a2a.TaskStateWorking && canceled == nil {
							if canceled, err = c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: taskID}); err != nil {
								t.Fatalf("CancelTask: %v", err)
							}
						}
						if su.Status.State.Terminal() {
							break
						}
					}
				}
				if canceled == nil || canceled.Status.State != a2a.TaskStateCanceled {
					t.Fatalf("CancelTask result = %+v, want CANCELED", canceled)
				}
				got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: taskID})
				if err != nil || got.Status.State != a2a.TaskStateCanceled {
					t.Errorf("GetTask after cancel = %+v, %v; want CANCELED", got, err)
				}
			})

			t.Run("unknown task is TaskNotFound", func(t *testing.T) {
				_, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: uuid.NewString()})
				if !errors.Is(err, a2a.ErrTaskNotFound) {
					t.Errorf("GetTask(unknown) error = %v, want a2a.ErrTaskNotFound", err)
				}
			})
		})
	}
}
