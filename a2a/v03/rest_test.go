package v03

import (
	"errors"
	"net/url"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// TestGoldenREST pins the 0.3 HTTP+JSON shapes: each request as the 1.0
// call it is run as, each result and event as written.
func TestGoldenREST(t *testing.T) {
	d := &Dialect{}
	reqs := []struct {
		name, verb, path, query, body, wantMethod string
	}{
		{"rest_in_message_send", "POST", "/message:send", "", `{"message":{"messageId":"m1","contextId":"ctx-1","role":"ROLE_USER","content":[
			{"text":"hi"},{"file":{"fileWithBytes":"JVBERi0xLjc=","mimeType":"application/pdf"}},{"file":{"fileWithUri":"https://example.com/x.png","mimeType":"image/png"}},
			{"data":{"data":{"seats":2}}},{"hologram":{}}],"metadata":{"a":1},"extensions":[]},
			"configuration":{"acceptedOutputModes":[],"historyLength":0,"blocking":true},"metadata":{"skillId":"echo"}}`, a2a.MethodSendMessage},
		{"rest_in_message_stream_request_nonblocking", "POST", "/message:stream", "", `{"request":{"messageId":"m2","taskId":"task-1","role":"ROLE_USER","content":[{"text":"more"}]},
			"configuration":{"blocking":false,"historyLength":3,"pushNotification":{"url":"https://hooks.example.com/a","token":"tok","authentication":{"schemes":["Bearer"]}}}}`, a2a.MethodSendStreamingMessage},
		{"rest_in_tasks_get", "GET", "/tasks/task-1", "historyLength=2", ``, a2a.MethodGetTask},
		{"rest_in_tasks_cancel", "POST", "/tasks/task-1:cancel", "", ``, a2a.MethodCancelTask},
		{"rest_in_tasks_subscribe", "POST", "/tasks/task-1:subscribe", "", ``, a2a.MethodSubscribeToTask},
		{"rest_in_push_create_named", "POST", "/tasks/task-1/pushNotificationConfigs", "", `{"name":"tasks/task-1/pushNotificationConfigs/cfg1","pushNotificationConfig":{"id":"cfg1","url":"https://hooks.example.com/a","token":"tok","authentication":{"schemes":["Bearer"],"credentials":"c"}}}`, a2a.MethodCreatePushConfig},
		{"rest_in_push_create_request", "POST", "/tasks/task-1/pushNotificationConfigs", "", `{"parent":"tasks/task-1","configId":"cfg2","config":{"pushNotificationConfig":{"url":"https://hooks.example.com/b"}}}`, a2a.MethodCreatePushConfig},
		{"rest_in_push_create_bare", "POST", "/tasks/task-1/pushNotificationConfigs", "", `{"url":"https://hooks.example.com/c"}`, a2a.MethodCreatePushConfig},
		{"rest_in_push_get", "GET", "/tasks/task-1/pushNotificationConfigs/cfg1", "", ``, a2a.MethodGetPushConfig},
		{"rest_in_push_list", "GET", "/tasks/task-1/pushNotificationConfigs", "", ``, a2a.MethodListPushConfigs},
		{"rest_in_push_delete", "DELETE", "/tasks/task-1/pushNotificationConfigs/cfg1", "", ``, a2a.MethodDeletePushConfig},
	}
	for _, c := range reqs {
		t.Run(c.name, func(t *testing.T) {
			q, _ := url.ParseQuery(c.query)
			m, p, err := d.DecodeREST(c.verb, c.path, q, []byte(c.body))
			if err != nil {
				t.Fatal(err)
			}
			if m != c.wantMethod {
				t.Errorf("method %q, want %q", m, c.wantMethod)
			}
			golden(t, c.name, p)
		})
	}
	tr := translator{}
	canceled := task10()
	canceled.Status.State = a2a.TaskStateCanceled
	list, err := d.RESTResult(a2a.MethodListPushConfigs, &a2a.ListTaskPushNotificationConfigsResponse{Configs: []a2a.TaskPushNotificationConfig{{ID: "cfg-1", TaskID: "task-1", URL: "https://hooks.example.com/a", Authentication: &a2a.AuthenticationInfo{Scheme: "Bearer"}}}})
	if err != nil {
		t.Fatal(err)
	}
	send, err := d.RESTResult(a2a.MethodSendMessage, &a2a.SendMessageResponse{Message: userMessage10()})
	if err != nil {
		t.Fatal(err)
	}
	outs := []struct {
		name string
		got  any
	}{
		{"rest_out_task_canceled", tr.restTaskTo03(canceled)},
		{"rest_out_send_message_result", send},
		{"rest_out_event_task", d.RESTEvent(&a2a.StreamResponse{Task: task10()})},
		{"rest_out_event_status_final", d.RESTEvent(&a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: "task-1", ContextID: "ctx-1", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: &ts1}}})},
		{"rest_out_event_artifact", d.RESTEvent(&a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{TaskID: "task-1", ContextID: "ctx-1", Artifact: task10().Artifacts[0], LastChunk: true}})},
		{"rest_out_push_list", list},
		{"rest_out_error", d.RESTError(a2a.ErrTaskNotFound.With("task not found"))},
	}
	for _, c := range outs {
		t.Run(c.name, func(t *testing.T) { golden(t, c.name, c.got) })
	}
}

// TestDecodeRESTRefusesBadInput: bad 0.3 HTTP+JSON requests get the
// protocol's error and run nothing.
func TestDecodeRESTRefusesBadInput(t *testing.T) {
	d := &Dialect{}
	cases := []struct {
		name, verb, path, body string
		want                   *a2a.Error
	}{
		{"duplicate member", "POST", "/message:send", `{"message":{"messageId":"m","messageId":"n","role":"ROLE_USER","content":[]}}`, a2a.ErrInvalidParams},
		{"case-folded member", "POST", "/message:send", `{"Message":{"messageId":"m","role":"ROLE_USER","content":[]}}`, a2a.ErrInvalidParams},
		{"no message", "POST", "/message:send", `{}`, a2a.ErrInvalidParams},
		{"JSON-RPC role name", "POST", "/message:send", `{"message":{"messageId":"m","role":"user","content":[]}}`, a2a.ErrInvalidParams},
		{"bytes not base64", "POST", "/message:send", `{"message":{"messageId":"m","role":"ROLE_USER","content":[{"file":{"fileWithBytes":"%%"}}]}}`, a2a.ErrInvalidParams},
		{"part read two ways: text and file", "POST", "/message:send", `{"message":{"messageId":"m","role":"ROLE_USER","content":[{"text":"hi","file":{"fileWithUri":"https://x.example/f"}}]}}`, a2a.ErrInvalidParams},
		{"part read two ways: text and data", "POST", "/message:send", `{"message":{"messageId":"m","role":"ROLE_USER","content":[{"text":"hi","data":{"data":{"a":1}}}]}}`, a2a.ErrInvalidParams},
		{"file read two ways: uri and bytes", "POST", "/message:send", `{"message":{"messageId":"m","role":"ROLE_USER","content":[{"file":{"fileWithUri":"https://x.example/f","fileWithBytes":"aGk="}}]}}`, a2a.ErrInvalidParams},
		{"empty file", "POST", "/message:send", `{"message":{"messageId":"m","role":"ROLE_USER","content":[{"file":{}}]}}`, a2a.ErrInvalidParams},
		{"send by GET", "GET", "/message:send", ``, a2a.ErrMethodNotFound},
		{"unknown path", "GET", "/tasks", ``, a2a.ErrMethodNotFound},
		{"unknown action", "POST", "/tasks/t:pause", ``, a2a.ErrMethodNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, p, err := d.DecodeREST(c.verb, c.path, nil, []byte(c.body))
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v (%+v), want %v", err, p, c.want)
			}
		})
	}
	for _, s := range []string{"TASK_STATE_COMPLETED_SOON", "completed", "TASK_STATE_CANCELED", ""} {
		if st := restStateTo10(s); st.Succeeded() || st.Terminal() && s != "TASK_STATE_CANCELED" {
			t.Errorf("%q read as %s", s, st)
		}
	}
	if restStateTo10("TASK_STATE_CANCELLED") != a2a.TaskStateCanceled || restStateTo03(a2a.TaskStateCanceled) != "TASK_STATE_CANCELLED" {
		t.Error("CANCELLED is spelt with two Ls in 0.3")
	}
}

// FuzzDecodeREST: the 0.3 HTTP+JSON request decoders never panic.
func FuzzDecodeREST(f *testing.F) {
	for _, seed := range []string{
		`{"message":{"messageId":"m","role":"ROLE_USER","content":[{"text":"hi"},{"file":{"fileWithBytes":"AA=="}},{"data":{"data":{"a":1}}}]},"configuration":{"blocking":false}}`,
		`{"name":"tasks/t/pushNotificationConfigs/c","pushNotificationConfig":{"url":"https://x"}}`,
		`{"config":{"pushNotificationConfig":{"url":"https://x"}}}`, `{}`, `null`,
	} {
		f.Add(uint8(0), []byte(seed))
	}
	routes := []struct{ verb, path string }{{"POST", "/message:send"}, {"POST", "/message:stream"}, {"POST", "/tasks/t/pushNotificationConfigs"}}
	d := &Dialect{}
	f.Fuzz(func(t *testing.T, r uint8, body []byte) {
		rt := routes[int(r)%len(routes)]
		m, p, err := d.DecodeREST(rt.verb, rt.path, nil, body)
		if err != nil {
			if a2a.AsError(err) == a2a.ErrInternal {
				t.Fatalf("internal error %v", err)
			}
			return
		}
		if m == "" || p == nil {
			t.Fatal("accepted with no 1.0 call")
		}
	})
}
