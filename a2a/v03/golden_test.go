package v03

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

var (
	ts1 = time.Date(2026, 5, 28, 10, 0, 0, 0, time.UTC)
	ts2 = time.Date(2026, 5, 28, 10, 0, 1, 250_000_000, time.UTC)
)

func userMessage10() *a2a.Message {
	return &a2a.Message{
		MessageID: "msg-user-1", ContextID: "ctx-1", TaskID: "task-1", Role: a2a.RoleUser,
		Parts: []a2a.Part{
			a2a.TextPart("Book a flight to Lisbon."),
			{Kind: a2a.PartRaw, Raw: []byte("%PDF-1.7"), Filename: "ticket.pdf", MediaType: "application/pdf"},
			{Kind: a2a.PartURL, URL: "https://example.com/seat.png", Filename: "seat.png", MediaType: "image/png"},
			{Kind: a2a.PartData, Data: json.RawMessage(`{"seats":2}`), Metadata: a2a.Metadata{"schema": "seats"}},
			{Kind: a2a.PartData, Data: json.RawMessage(`[1,2]`)},
		},
		Metadata:         a2a.Metadata{"skillId": "book"},
		Extensions:       []string{"https://example.com/ext/trace/v1"},
		ReferenceTaskIDs: []string{"task-0"},
	}
}

func task10() *a2a.Task {
	agent := &a2a.Message{MessageID: "msg-agent-1", ContextID: "ctx-1", TaskID: "task-1", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("Which date?")}}
	return &a2a.Task{
		ID: "task-1", ContextID: "ctx-1",
		Status:    a2a.TaskStatus{State: a2a.TaskStateInputRequired, Message: agent, Timestamp: &ts2},
		History:   []a2a.Message{*userMessage10(), *agent},
		Artifacts: []a2a.Artifact{{ArtifactID: "art-1", Name: "quote", Description: "the fare", Parts: []a2a.Part{a2a.TextPart("EUR 120")}, Metadata: a2a.Metadata{"k": "v"}}},
		Metadata:  a2a.Metadata{"origin": "golden"},
	}
}

func card10() *a2a.AgentCard {
	return &a2a.AgentCard{
		Name: "Golden agent", Description: "d", Version: "1.2.3",
		SupportedInterfaces: []a2a.AgentInterface{
			{URL: "https://agents.example.com/a2a/golden", ProtocolBinding: a2a.BindingJSONRPC, ProtocolVersion: "1.0"},
			{URL: "https://agents.example.com/a2a/golden/rest", ProtocolBinding: a2a.BindingHTTPJSON, ProtocolVersion: "1.0"},
			{URL: "https://agents.example.com/grpc", ProtocolBinding: a2a.BindingGRPC, ProtocolVersion: "1.0"},
		},
		Capabilities:         a2a.AgentCapabilities{Streaming: a2a.Ptr(true), PushNotifications: a2a.Ptr(true), ExtendedAgentCard: a2a.Ptr(true)},
		SecuritySchemes:      map[string]a2a.SecurityScheme{"bearer": {HTTPAuth: &a2a.HTTPAuthSecurityScheme{Scheme: "Bearer"}}},
		SecurityRequirements: []a2a.SecurityRequirement{{Schemes: map[string]a2a.StringList{"bearer": {List: []string{"a2a.call"}}}}},
		DefaultInputModes:    []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Skills: []a2a.AgentSkill{{ID: "book", Name: "Book", Description: "books", Tags: []string{"travel"}}},
	}
}

// golden compares got (marshalled with indentation) with testdata/golden/name.json.
func golden(t *testing.T, name string, got any) {
	t.Helper()
	var b []byte
	switch g := got.(type) {
	case []byte:
		var buf bytes.Buffer
		if err := json.Indent(&buf, g, "", "  "); err != nil {
			t.Fatalf("%s: indent: %v", name, err)
		}
		b = buf.Bytes()
	default:
		var err error
		if b, err = json.MarshalIndent(got, "", "  "); err != nil {
			t.Fatalf("%s: marshal: %v", name, err)
		}
	}
	b = append(b, '\n')
	path := filepath.Join("testdata", "golden", name+".json")
	if *update {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v (run go test -update to write it)", name, err)
	}
	if !bytes.Equal(b, want) {
		t.Errorf("%s differs from %s:\ngot:\n%s\nwant:\n%s", name, path, b, want)
	}
}

// TestGoldenTo03 pins every 0.3 shape the bridge writes.
func TestGoldenTo03(t *testing.T) {
	tr := translator{}
	d := &Dialect{}
	cardJSON, err := json.Marshal(card10())
	if err != nil {
		t.Fatal(err)
	}
	view, err := CardJSON(cardJSON)
	if err != nil {
		t.Fatal(err)
	}
	list, err := d.Result(a2a.MethodListPushConfigs, &a2a.ListTaskPushNotificationConfigsResponse{Configs: []a2a.TaskPushNotificationConfig{
		{ID: "cfg-1", TaskID: "task-1", URL: "https://hooks.example.com/a", Token: "tok", Authentication: &a2a.AuthenticationInfo{Scheme: "Bearer", Credentials: "cred"}},
		{ID: "cfg-2", TaskID: "task-1", URL: "https://hooks.example.com/b"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	empty, err := d.Result(a2a.MethodListPushConfigs, &a2a.ListTaskPushNotificationConfigsResponse{})
	if err != nil {
		t.Fatal(err)
	}
	deleted, err := d.Result(a2a.MethodDeletePushConfig, &a2a.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		got  any
	}{
		{"out_task", tr.taskTo03(task10())},
		{"out_message", tr.messageTo03(userMessage10())},
		{"out_status_update_working", tr.eventTo03(&a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: "task-1", ContextID: "ctx-1", Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &ts1}}})},
		{"out_status_update_input_required_final", tr.eventTo03(&a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: "task-1", ContextID: "ctx-1", Status: task10().Status}})},
		{"out_status_update_completed_final", tr.eventTo03(&a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: "task-1", ContextID: "ctx-1", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}, Metadata: a2a.Metadata{"m": 1}}})},
		{"out_status_update_unknown_state", tr.eventTo03(&a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: "task-1", ContextID: "ctx-1", Status: a2a.TaskStatus{State: a2a.TaskState("TASK_STATE_PAUSED")}}})},
		{"out_artifact_update", tr.eventTo03(&a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{TaskID: "task-1", ContextID: "ctx-1", Artifact: task10().Artifacts[0], Append: true, LastChunk: true}})},
		{"out_push_config", pushTo03(&a2a.TaskPushNotificationConfig{ID: "cfg-1", TaskID: "task-1", URL: "https://hooks.example.com/a", Token: "tok", Authentication: &a2a.AuthenticationInfo{Scheme: "Bearer", Credentials: "cred"}})},
		{"out_push_config_list", list},
		{"out_push_config_list_empty", empty},
		{"out_push_config_delete", deleted},
		{"out_card_view", view},
		{"out_send_params_blocking", tr.sendTo03(&a2a.SendMessageRequest{Message: userMessage10()})},
		{"out_send_params_return_immediately_push", tr.sendTo03(&a2a.SendMessageRequest{Message: userMessage10(), Metadata: a2a.Metadata{"r": true}, Configuration: &a2a.SendMessageConfiguration{
			ReturnImmediately: true, AcceptedOutputModes: []string{"text/plain"}, HistoryLength: a2a.Ptr(int32(2)),
			TaskPushNotificationConfig: &a2a.TaskPushNotificationConfig{URL: "https://hooks.example.com/a", Token: "tok"},
		}})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if raw, ok := c.got.(json.RawMessage); ok {
				golden(t, c.name, []byte(raw))
				return
			}
			golden(t, c.name, c.got)
		})
	}
}

// TestGoldenRequestsTo10 pins the 1.0 request each 0.3 method is run as.
func TestGoldenRequestsTo10(t *testing.T) {
	cases := []struct {
		name, method, params string
		wantMethod           string
	}{
		{"in_message_send", MethodMessageSend, `{"message":{"kind":"message","messageId":"m1","role":"user","contextId":"ctx-1","parts":[
			{"kind":"text","text":"hi","metadata":{"a":1}},
			{"kind":"file","file":{"name":"t.pdf","mimeType":"application/pdf","bytes":"JVBERi0xLjc="}},
			{"kind":"file","file":{"uri":"https://example.com/x.png","mimeType":"image/png"}},
			{"kind":"data","data":{"seats": 2}},
			{"kind":"video","video":{"codec":"av1"}}],
			"referenceTaskIds":["t0"],"extensions":["https://example.com/e"],"futureField":true},
			"metadata":{"skillId":"echo"}}`, a2a.MethodSendMessage},
		{"in_message_stream_nonblocking_push", MethodMessageStream, `{"message":{"kind":"message","messageId":"m2","role":"user","taskId":"task-1","parts":[{"kind":"text","text":"more"}]},
			"configuration":{"blocking":false,"historyLength":3,"acceptedOutputModes":["text/plain"],
			"pushNotificationConfig":{"url":"https://hooks.example.com/a","token":"tok","authentication":{"schemes":["Bearer"],"credentials":"c"}}}}`, a2a.MethodSendStreamingMessage},
		{"in_message_send_blocking_true", MethodMessageSend, `{"message":{"kind":"message","messageId":"m3","role":"user","parts":[{"kind":"text","text":"x"}]},"configuration":{"blocking":true}}`, a2a.MethodSendMessage},
		{"in_tasks_get", MethodTasksGet, `{"id":"task-1","historyLength":2,"metadata":{"x":1}}`, a2a.MethodGetTask},
		{"in_tasks_cancel", MethodTasksCancel, `{"id":"task-1","metadata":{"why":"user"}}`, a2a.MethodCancelTask},
		{"in_tasks_resubscribe", MethodTasksResubscribe, `{"id":"task-1"}`, a2a.MethodSubscribeToTask},
		{"in_push_set", MethodPushConfigSet, `{"taskId":"task-1","pushNotificationConfig":{"url":"https://hooks.example.com/a","token":"tok","authentication":{"schemes":["Basic","Bearer"],"credentials":"c"}}}`, a2a.MethodCreatePushConfig},
		{"in_push_set_with_id", MethodPushConfigSet, `{"taskId":"task-1","pushNotificationConfig":{"id":"cfg-9","url":"https://hooks.example.com/a"}}`, a2a.MethodCreatePushConfig},
		{"in_push_get", MethodPushConfigGet, `{"id":"task-1","pushNotificationConfigId":"cfg-9"}`, a2a.MethodGetPushConfig},
		{"in_push_get_without_config_id", MethodPushConfigGet, `{"id":"task-1"}`, a2a.MethodGetPushConfig},
		{"in_push_list", MethodPushConfigList, `{"id":"task-1"}`, a2a.MethodListPushConfigs},
		{"in_push_delete", MethodPushConfigDelete, `{"id":"task-1","pushNotificationConfigId":"cfg-9"}`, a2a.MethodDeletePushConfig},
		{"in_authenticated_card", MethodAuthenticatedCard, ``, a2a.MethodGetExtendedAgentCard},
	}
	d := &Dialect{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, p, err := d.DecodeRPC(c.method, []byte(c.params))
			if err != nil {
				t.Fatalf("DecodeRPC: %v", err)
			}
			if m != c.wantMethod {
				t.Errorf("method %q, want %q", m, c.wantMethod)
			}
			golden(t, c.name, p)
		})
	}
}

// TestGoldenEventsTo10 pins how 0.3 results and events an agent sends are
// read.
func TestGoldenEventsTo10(t *testing.T) {
	cases := []struct{ name, event string }{
		{"in_event_task", `{"kind":"task","id":"task-1","contextId":"ctx-1","status":{"state":"input-required","timestamp":"2026-05-28T10:00:01.25Z","message":{"kind":"message","messageId":"a1","role":"agent","parts":[{"kind":"text","text":"Which date?"}]}},
			"history":[{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}]}],
			"artifacts":[{"artifactId":"art-1","name":"quote","parts":[{"kind":"text","text":"EUR 120"},{"kind":"file","file":{"uri":"https://example.com/q.pdf"}}]}],"metadata":{"m":1}}`},
		{"in_event_message", `{"kind":"message","messageId":"a2","role":"agent","contextId":"ctx-1","parts":[{"kind":"data","data":{"ok":true}}]}`},
		{"in_event_status_update_final", `{"kind":"status-update","taskId":"task-1","contextId":"ctx-1","status":{"state":"completed"},"final":true}`},
		{"in_event_status_update_unknown_state", `{"kind":"status-update","taskId":"task-1","contextId":"ctx-1","status":{"state":"paused-for-lunch"},"final":false}`},
		{"in_event_artifact_update", `{"kind":"artifact-update","taskId":"task-1","contextId":"ctx-1","artifact":{"artifactId":"art-1","parts":[{"kind":"text","text":"chunk"}]},"append":true,"lastChunk":false}`},
		{"in_event_unknown_kind", `{"kind":"heartbeat","taskId":"task-1"}`},
	}
	tr := translator{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var e Event
			if err := decode([]byte(c.event), &e); err != nil {
				t.Fatal(err)
			}
			ev, err := tr.eventTo10(&e)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, c.name, ev)
		})
	}
}
