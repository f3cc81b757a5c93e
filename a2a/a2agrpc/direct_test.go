package a2agrpc

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	pb "github.com/a2a-mcp-bridge/bridge/a2a/a2apb"
)

// The direct conversions give what the ProtoJSON route gives, both ways.

func directSamples(t testing.TB) []any {
	now := time.Date(2026, 12, 2, 14, 0, 0, 123456789, time.UTC)
	data, err := a2a.DataPart(map[string]any{"tool": "echo", "arguments": map[string]any{"n": 1.5, "list": []any{"a", true, nil}}})
	if err != nil {
		t.Fatal(err)
	}
	data.Metadata = a2a.Metadata{"k": "v"}
	msg := a2a.Message{MessageID: "m1", ContextID: "c1", TaskID: "t1", Role: a2a.RoleAgent, Extensions: []string{"https://x.example/ext"}, ReferenceTaskIDs: []string{"t0"},
		Parts:    []a2a.Part{a2a.TextPart("héllo"), a2a.RawPart([]byte{0, 1, 2, 255}, "image/png", "x.png"), a2a.URLPart("https://files.example/x", "text/plain", ""), data},
		Metadata: a2a.Metadata{"skillId": "echo", "nested": map[string]any{"a": []any{1.0, "b"}}}}
	task := &a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateInputRequired, Message: &msg, Timestamp: &now},
		Artifacts: []a2a.Artifact{{ArtifactID: "a1", Name: "n", Description: "d", Parts: []a2a.Part{a2a.TextPart("x")}, Metadata: a2a.Metadata{"m": 1.0}, Extensions: []string{"e"}}},
		History:   []a2a.Message{msg, {MessageID: "m2", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("bad \xff utf-8")}}}, Metadata: a2a.Metadata{"x": false}}
	return []any{
		task,
		&a2a.Task{ID: "bare", Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted}},
		&a2a.SendMessageResponse{Task: task},
		&a2a.SendMessageResponse{Message: &msg},
		&a2a.StreamResponse{Task: task},
		&a2a.StreamResponse{Message: &msg},
		&a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &now}, Metadata: a2a.Metadata{"p": "q"}}},
		&a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{TaskID: "t1", ContextID: "c1", Append: true, LastChunk: true, Artifact: task.Artifacts[0]}},
		&a2a.SendMessageRequest{Tenant: "echo", Message: &msg, Metadata: a2a.Metadata{"r": "s"}, Configuration: &a2a.SendMessageConfiguration{
			AcceptedOutputModes: []string{"text/plain"}, HistoryLength: a2a.Ptr[int32](3), ReturnImmediately: true,
			TaskPushNotificationConfig: &a2a.TaskPushNotificationConfig{URL: "https://hooks.example/", Token: "tok", Authentication: &a2a.AuthenticationInfo{Scheme: "Bearer", Credentials: "c"}}}},
		&a2a.GetTaskRequest{Tenant: "a", ID: "t1", HistoryLength: a2a.Ptr[int32](0)},
		&a2a.CancelTaskRequest{ID: "t1", Metadata: a2a.Metadata{"why": "test"}},
		&a2a.SubscribeToTaskRequest{Tenant: "a", ID: "t1"},
	}
}

func pbFor(v any) proto.Message {
	switch v.(type) {
	case *a2a.Task:
		return new(pb.Task)
	case *a2a.SendMessageResponse:
		return new(pb.SendMessageResponse)
	case *a2a.StreamResponse:
		return new(pb.StreamResponse)
	case *a2a.SendMessageRequest:
		return new(pb.SendMessageRequest)
	case *a2a.GetTaskRequest:
		return new(pb.GetTaskRequest)
	case *a2a.CancelTaskRequest:
		return new(pb.CancelTaskRequest)
	case *a2a.SubscribeToTaskRequest:
		return new(pb.SubscribeToTaskRequest)
	}
	return nil
}

// sameJSON reports whether a and b encode to the same JSON value.
func sameJSON(t testing.TB, a, b any) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	var va, vb any
	if json.Unmarshal(ja, &va) != nil || json.Unmarshal(jb, &vb) != nil {
		t.Fatalf("not JSON: %s / %s", ja, jb)
	}
	return reflect.DeepEqual(va, vb)
}

func TestDirectConversionMatchesProtoJSON(t *testing.T) {
	for _, v := range directSamples(t) {
		direct, viaJSON := pbFor(v), pbFor(v)
		ok, err := toPB(v, direct)
		if !ok || err != nil {
			t.Fatalf("%T: not converted directly (%v)", v, err)
		}
		if err := encodeMessageJSON(v, viaJSON); err != nil {
			t.Fatalf("%T: ProtoJSON route: %v", v, err)
		}
		if !proto.Equal(direct, viaJSON) {
			t.Fatalf("%T: direct\n%v\nProtoJSON\n%v", v, direct, viaJSON)
		}
		// Back: the client's direction, for the response types.
		back := reflect.New(reflect.TypeOf(v).Elem()).Interface()
		if !fromPB(direct, back) {
			switch v.(type) {
			case *a2a.Task, *a2a.SendMessageResponse, *a2a.StreamResponse:
				t.Fatalf("%T: not converted back directly", v)
			}
			continue
		}
		backJSON := reflect.New(reflect.TypeOf(v).Elem()).Interface()
		if err := decodeMessageJSON(direct, backJSON); err != nil {
			t.Fatal(err)
		}
		if !sameJSON(t, back, backJSON) {
			a, _ := json.Marshal(back)
			b, _ := json.Marshal(backJSON)
			t.Fatalf("%T back: direct %s\nProtoJSON %s", v, a, b)
		}
	}
}

// FuzzDirectConversion: for any response message, the direct decoding and
// the ProtoJSON route agree, and so do the direct and ProtoJSON encodings
// of what was decoded.
func FuzzDirectConversion(f *testing.F) {
	for _, v := range directSamples(f) {
		m := pbFor(v)
		if err := encodeMessageJSON(v, m); err != nil {
			f.Fatal(err)
		}
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(0), b)
		f.Add(uint8(1), b)
		f.Add(uint8(2), b)
	}
	f.Fuzz(func(t *testing.T, which uint8, b []byte) {
		var m proto.Message
		var v, w any
		switch which % 3 {
		case 0:
			m, v, w = new(pb.Task), new(a2a.Task), new(a2a.Task)
		case 1:
			m, v, w = new(pb.SendMessageResponse), new(a2a.SendMessageResponse), new(a2a.SendMessageResponse)
		default:
			m, v, w = new(pb.StreamResponse), new(a2a.StreamResponse), new(a2a.StreamResponse)
		}
		if proto.Unmarshal(b, m) != nil {
			return
		}
		if decodeMessageJSON(m, w) != nil {
			return // the route refuses it; the direct decoding may differ, the caller falls back
		}
		if fromPB(m, v) && !sameJSON(t, v, w) {
			a, _ := json.Marshal(v)
			c, _ := json.Marshal(w)
			t.Fatalf("decoded directly %s\nby ProtoJSON %s", a, c)
		}
		direct, viaJSON := pbFor(w), pbFor(w)
		if ok, _ := toPB(w, direct); !ok {
			return
		}
		if encodeMessageJSON(w, viaJSON) != nil {
			return
		}
		if !proto.Equal(direct, viaJSON) {
			t.Fatalf("encoded directly\n%v\nby ProtoJSON\n%v", direct, viaJSON)
		}
	})
}
