package v03

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// TestDecodeRPCRefusesWhatHasTwoReadings: a 0.3 request is decoded
// strictly, once, like a 1.0 one; what could be read two ways, or is not a
// 0.3 request, is refused with the protocol's own error and runs nothing.
func TestDecodeRPCRefusesWhatHasTwoReadings(t *testing.T) {
	msg := func(parts string) string {
		return `{"message":{"kind":"message","messageId":"m","role":"user","parts":[` + parts + `]}}`
	}
	cases := []struct {
		name, method, params string
		want                 *a2a.Error
	}{
		{"duplicate member", MethodTasksGet, `{"id":"a","id":"b"}`, a2a.ErrInvalidParams},
		{"case-folded member", MethodTasksGet, `{"ID":"a"}`, a2a.ErrInvalidParams},
		{"case-folded nested member", MethodMessageSend, `{"message":{"kind":"message","messageId":"m","Role":"user","parts":[]}}`, a2a.ErrInvalidParams},
		{"duplicate skillId", MethodMessageSend, `{"message":{"kind":"message","messageId":"m","role":"user","parts":[],"metadata":{"skillId":"a","skillId":"b"}}}`, a2a.ErrInvalidParams},
		{"invalid UTF-8", MethodTasksGet, "{\"id\":\"\xff\"}", a2a.ErrInvalidParams},
		{"wrong type", MethodTasksGet, `{"id":7}`, a2a.ErrInvalidParams},
		{"params not an object", MethodTasksGet, `[1]`, a2a.ErrInvalidParams},
		{"unknown role", MethodMessageSend, `{"message":{"kind":"message","messageId":"m","role":"robot","parts":[]}}`, a2a.ErrInvalidParams},
		{"1.0 role name", MethodMessageSend, `{"message":{"kind":"message","messageId":"m","role":"ROLE_USER","parts":[]}}`, a2a.ErrInvalidParams},
		{"message of another kind", MethodMessageSend, `{"message":{"kind":"task","messageId":"m","role":"user","parts":[]}}`, a2a.ErrInvalidParams},
		{"no message", MethodMessageSend, `{}`, a2a.ErrInvalidParams},
		{"text part without text", MethodMessageSend, msg(`{"kind":"text"}`), a2a.ErrInvalidParams},
		{"file part without file", MethodMessageSend, msg(`{"kind":"file"}`), a2a.ErrInvalidParams},
		{"file with bytes and uri", MethodMessageSend, msg(`{"kind":"file","file":{"bytes":"AA==","uri":"https://x"}}`), a2a.ErrInvalidParams},
		{"file with neither", MethodMessageSend, msg(`{"kind":"file","file":{"name":"x"}}`), a2a.ErrInvalidParams},
		{"bytes not base64", MethodMessageSend, msg(`{"kind":"file","file":{"bytes":"%%%"}}`), a2a.ErrInvalidParams},
		{"data part without data", MethodMessageSend, msg(`{"kind":"data"}`), a2a.ErrInvalidParams},
		{"delete without config id", MethodPushConfigDelete, `{"id":"t"}`, a2a.ErrInvalidParams},
		{"unknown method", "tasks/list", `{}`, a2a.ErrMethodNotFound},
		{"1.0 method name", "SendMessage", `{}`, a2a.ErrMethodNotFound},
	}
	d := &Dialect{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, p, err := d.DecodeRPC(c.method, []byte(c.params))
			if err == nil {
				t.Fatalf("accepted: %+v", p)
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("error %v, want %v", err, c.want)
			}
		})
	}
}

// TestPushConfigsOf03CallersAreMarked: a webhook a 0.3 caller registers
// (set, or inline in message/send, over either binding) carries Version
// "0.3", which gives its deliveries the 0.3 shape (PushBody).
func TestPushConfigsOf03CallersAreMarked(t *testing.T) {
	d := &Dialect{}
	_, set, err := d.DecodeRPC(MethodPushConfigSet, []byte(`{"taskId":"t","pushNotificationConfig":{"url":"https://x.example/"}}`))
	if err != nil || set.(*a2a.TaskPushNotificationConfig).Version != Version {
		t.Fatalf("set: %+v %v", set, err)
	}
	_, send, err := d.DecodeRPC(MethodMessageSend, []byte(`{"message":{"kind":"message","messageId":"m","role":"user","parts":[]},"configuration":{"pushNotificationConfig":{"url":"https://x.example/"}}}`))
	if err != nil || send.(*a2a.SendMessageRequest).Configuration.TaskPushNotificationConfig.Version != Version {
		t.Fatalf("send: %+v %v", send, err)
	}
	_, rest, err := d.DecodeREST("POST", "/tasks/t/pushNotificationConfigs", nil, []byte(`{"name":"tasks/t/pushNotificationConfigs/c","pushNotificationConfig":{"url":"https://x.example/"}}`))
	if err != nil || rest.(*a2a.TaskPushNotificationConfig).Version != Version {
		t.Fatalf("rest: %+v %v", rest, err)
	}
	body, err := PushBody(Version, task10(), nil)
	if err != nil || !strings.Contains(string(body), `"kind":"task"`) || !strings.Contains(string(body), `"state":"input-required"`) {
		t.Fatalf("PushBody: %s %v", body, err)
	}
	if _, err := PushBody("9.9", task10(), nil); err == nil {
		t.Fatal("PushBody wrote a body for an unknown version")
	}
}

// TestUnknownStateNeverSucceeds: no state an agent may send is read as
// success unless it is "completed".
func TestUnknownStateNeverSucceeds(t *testing.T) {
	for _, s := range []string{"", "unknown", "COMPLETED", "Completed", "completed ", "TASK_STATE_COMPLETED", "succeeded", "done", "paused", "3"} {
		st := StateTo10(s)
		if st.Succeeded() || st.Terminal() {
			t.Errorf("state %q read as %s", s, st)
		}
	}
	for s03, want := range map[string]a2a.TaskState{"completed": a2a.TaskStateCompleted, "input-required": a2a.TaskStateInputRequired, "auth-required": a2a.TaskStateAuthRequired, "canceled": a2a.TaskStateCanceled} {
		if got := StateTo10(s03); got != want {
			t.Errorf("%q → %s, want %s", s03, got, want)
		}
		if back := StateTo03(want); back != s03 {
			t.Errorf("%s → %q, want %q", want, back, s03)
		}
	}
}

// TestUnknownPartsAndEventsAreSkipped: forward compatibility in both
// directions.
func TestUnknownPartsAndEventsAreSkipped(t *testing.T) {
	tr := translator{}
	m, err := tr.messageTo10(&Message{Kind: KindMessage, MessageID: "m", Role: "agent", Parts: []Part{{Kind: "hologram"}, {Kind: KindText, Text: new(string)}}}, false)
	if err != nil || len(m.Parts) != 1 || m.Parts[0].Kind != a2a.PartText {
		t.Fatalf("0.3 → 1.0: %+v, %v", m, err)
	}
	out := tr.partsTo03([]a2a.Part{{Kind: a2a.PartUnknown}, a2a.TextPart("x")})
	if len(out) != 1 || out[0].Kind != KindText {
		t.Fatalf("1.0 → 0.3: %+v", out)
	}
	if ev := tr.eventTo03(&a2a.StreamResponse{}); ev != nil {
		t.Fatalf("an unknown 1.0 event became %+v", ev)
	}
	ev, err := tr.eventTo10(&Event{Kind: "heartbeat"})
	if ev != nil || err != nil {
		t.Fatalf("an unknown 0.3 event became %+v, %v", ev, err)
	}
}

// FuzzDecodeRPC: the 0.3 request decoders never panic, and what they
// accept is a 1.0 request that encodes.
func FuzzDecodeRPC(f *testing.F) {
	methods := []string{MethodMessageSend, MethodMessageStream, MethodTasksGet, MethodTasksCancel, MethodTasksResubscribe,
		MethodPushConfigSet, MethodPushConfigGet, MethodPushConfigList, MethodPushConfigDelete, MethodAuthenticatedCard}
	for i, seed := range []string{
		`{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"hi"},{"kind":"file","file":{"bytes":"AA=="}},{"kind":"data","data":{"a":1}}]},"configuration":{"blocking":false,"pushNotificationConfig":{"url":"https://x","authentication":{"schemes":["Bearer"]}}}}`,
		`{"id":"t","historyLength":2}`, `{"id":"t","pushNotificationConfigId":"c"}`,
		`{"taskId":"t","pushNotificationConfig":{"url":"https://x"}}`, `{}`, `null`, `{"id":"a","id":"b"}`,
	} {
		f.Add(uint8(i), []byte(seed))
	}
	d := &Dialect{}
	f.Fuzz(func(t *testing.T, m uint8, params []byte) {
		method := methods[int(m)%len(methods)]
		m10, p, err := d.DecodeRPC(method, params)
		if err != nil {
			if a2a.AsError(err) == a2a.ErrInternal {
				t.Fatalf("%s: internal error %v", method, err)
			}
			return
		}
		if m10 == "" || p == nil {
			t.Fatalf("%s: accepted with no 1.0 call", method)
		}
		if _, err := json.Marshal(p); err != nil {
			t.Fatalf("%s: the 1.0 request does not encode: %v", method, err)
		}
	})
}

// FuzzEventTo10: a 0.3 agent's answers and events, however malformed,
// never panic the reader, and an event read is never successful unless
// the agent said "completed".
func FuzzEventTo10(f *testing.F) {
	for _, seed := range []string{
		`{"kind":"task","id":"t","contextId":"c","status":{"state":"completed"},"artifacts":[{"artifactId":"a","parts":[{"kind":"text","text":"x"}]}]}`,
		`{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"working"},"final":false}`,
		`{"kind":"artifact-update","taskId":"t","artifact":{"artifactId":"a","parts":[{"kind":"file","file":{"uri":"https://x"}}]}}`,
		`{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"data","data":{"k":[1]}}]}`,
		`{"kind":"nope"}`, `{"kind":"task","status":{"state":"weird"}}`,
	} {
		f.Add([]byte(seed))
	}
	tr := translator{}
	f.Fuzz(func(t *testing.T, b []byte) {
		var e Event
		if err := decode(b, &e); err != nil {
			return
		}
		ev, err := tr.eventTo10(&e)
		if err != nil || ev == nil {
			return
		}
		if _, err := json.Marshal(ev); err != nil {
			t.Fatalf("the 1.0 event does not encode: %v", err)
		}
		said := ""
		if e.Status != nil {
			said = e.Status.State
		}
		var st a2a.TaskState
		switch {
		case ev.Task != nil:
			st = ev.Task.Status.State
		case ev.StatusUpdate != nil:
			st = ev.StatusUpdate.Status.State
		default:
			return
		}
		if st.Succeeded() && said != "completed" {
			t.Fatalf("state %q read as success", said)
		}
	})
}
