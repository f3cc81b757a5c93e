// Package codectest holds the A2A values of every shape the hand-written
// encoders know, shared by the tests of a2a/internal/fastjson (the encoders
// against encoding/json) and of a2a/server (the writers on both paths).
package codectest

import (
	"bytes"
	"encoding/json"
	"math"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// Reference is what encoding/json writes for v (HTML escaping on, no
// trailing newline): the standard-library path the fast encoders must equal.
func Reference(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func Time(sec int64, nsec int64) *time.Time {
	t := time.Unix(sec, nsec).In(time.FixedZone("X", 3600+1800))
	return &t
}

// encHostile holds what strings must survive: HTML characters, escapes,
// control bytes, U+2028/2029, invalid UTF-8.
const encHostile = "<a href=\"x\">&amp;</a>\\ \b\f\n\r\t\x00\x1f\x7f é \u2028\u2029 \xff\xfe \xe2\x80 end"

func AllParts() []a2a.Part {
	return []a2a.Part{
		a2a.TextPart(""),
		a2a.TextPart(encHostile),
		{Kind: a2a.PartText, Text: "t", Metadata: a2a.Metadata{"k": "v"}, Filename: "f<1>.txt", MediaType: "text/plain"},
		a2a.RawPart([]byte{0, 1, 2, 0xff, '<'}, "application/octet-stream", "b.bin"),
		a2a.RawPart(nil, "", ""),
		a2a.URLPart("https://example.com/a?b=1&c=<2>", "image/png", "a.png"),
		{Kind: a2a.PartData, Data: json.RawMessage(`{"a":[1,2.5,"x<y"],"b":null}`)},
		{Kind: a2a.PartData, Data: json.RawMessage(" { \"a\" : [ 1 , true ] } ")},
		{Kind: a2a.PartData, Data: json.RawMessage(`"\u2028 line"`)},
		{Kind: a2a.PartData, Data: json.RawMessage("\"\u2028 raw\"")},
		{Kind: a2a.PartData},
		{Kind: a2a.PartData, Data: json.RawMessage(`null`)},
		{Kind: a2a.PartData, Data: json.RawMessage(`12e-3`)},
	}
}

func Metadata() a2a.Metadata {
	return a2a.Metadata{
		"s":        encHostile,
		encHostile: "key",
		"":         "",
		"n":        nil,
		"b":        true,
		"f":        false,
		"floats":   []any{0.0, math.Copysign(0, -1), 1.0, -2.5, 1e-7, 1e-6, 123456789.125, 1e20, 1e21, 1.7976931348623157e308, 5e-324, float32(1e-7), float32(3.14), float32(1e21)},
		"ints":     []any{0, -1, int64(math.MaxInt64), int32(math.MinInt32), uint64(math.MaxUint64), int8(-8), uint(7)},
		"nested":   map[string]any{"z": map[string]any{"y": []any{map[string]any{}, []any{}, nil}}, "a": []any(nil), "m": map[string]any(nil)},
		"typed":    map[string]string{"b": "2", "a": "1<"},
		"list":     []string{"x", "y"},
		"bytes":    []byte("raw"),
		"number":   json.Number("12.50"),
		"raw":      json.RawMessage(` {"x" : 1} `),
		"time":     time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC),
		"struct":   struct{ A string }{"<>"},
		"ptr":      a2a.Ptr(3),
		"Z":        1,
		"a":        2,
		"é":        3,
		"aa":       4,
	}
}

func FullMessage() *a2a.Message {
	return &a2a.Message{
		MessageID: "m-1<", ContextID: "c-1", TaskID: "t-1", Role: a2a.RoleAgent,
		Parts: AllParts(), Metadata: Metadata(),
		Extensions: []string{"https://e/1", encHostile}, ReferenceTaskIDs: []string{"t-0"},
	}
}

func FullTask() *a2a.Task {
	return &a2a.Task{
		ID: "t-1", ContextID: "c-1",
		Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Message: FullMessage(), Timestamp: Time(1_780_000_000, 123_456_789)},
		Artifacts: []a2a.Artifact{
			{ArtifactID: "a-1", Name: "n<", Description: "d&", Parts: AllParts(), Metadata: Metadata(), Extensions: []string{"x"}},
			{ArtifactID: "a-2"},
			{ArtifactID: "a-3", Parts: []a2a.Part{}},
		},
		History:  []a2a.Message{*FullMessage(), {}, {MessageID: "m-2", Role: a2a.RoleUser, Parts: []a2a.Part{}}},
		Metadata: Metadata(),
	}
}

// Cases are values of every known shape that encode without error.
func Cases(fastDepth int) map[string]any {
	full := FullTask()
	return map[string]any{
		"task zero":          &a2a.Task{},
		"task nil":           (*a2a.Task)(nil),
		"task full":          full,
		"task empty slices":  &a2a.Task{ID: "t", Artifacts: []a2a.Artifact{}, History: []a2a.Message{}, Metadata: a2a.Metadata{}},
		"task states":        &a2a.Task{ID: "t", Status: a2a.TaskStatus{State: "TASK_STATE_FUTURE<>"}},
		"task state number":  &a2a.Task{ID: "t", Status: a2a.TaskStatus{State: "12"}},
		"task timestamp 0":   &a2a.Task{ID: "t", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: Time(0, 0)}},
		"task timestamp ms":  &a2a.Task{ID: "t", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: Time(1, 5_000_000)}},
		"task timestamp us":  &a2a.Task{ID: "t", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: Time(-1, 5_000)}},
		"task timestamp far": &a2a.Task{ID: "t", Status: a2a.TaskStatus{Timestamp: Time(400_000_000_000, 1)}},
		"message zero":       &a2a.Message{},
		"message nil":        (*a2a.Message)(nil),
		"message full":       FullMessage(),
		"message role":       &a2a.Message{Role: "ROLE_OTHER&", Parts: nil},
		"message role num":   &a2a.Message{Role: "-4"},
		"send nil":           (*a2a.SendMessageResponse)(nil),
		"send empty":         &a2a.SendMessageResponse{},
		"send both":          &a2a.SendMessageResponse{Task: full, Message: FullMessage()},
		"stream nil":         (*a2a.StreamResponse)(nil),
		"stream empty":       &a2a.StreamResponse{},
		"stream status":      &a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: "t", ContextID: "c", Status: full.Status, Metadata: Metadata()}},
		"stream status zero": &a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{}},
		"stream artifact":    &a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{TaskID: "t", ContextID: "c", Artifact: full.Artifacts[0], Append: true, LastChunk: true, Metadata: Metadata()}},
		"stream artifact 0":  &a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{}},
		"stream artifact lc": &a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{TaskID: "t", Artifact: a2a.Artifact{ArtifactID: "a"}, LastChunk: true}},
		"stream all":         &a2a.StreamResponse{Task: full, Message: FullMessage(), StatusUpdate: &a2a.TaskStatusUpdateEvent{}, ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{}},
		"list nil":           (*a2a.ListTasksResponse)(nil),
		"list empty":         &a2a.ListTasksResponse{},
		"list tasks":         &a2a.ListTasksResponse{Tasks: []a2a.Task{*full, {}}, NextPageToken: encHostile, PageSize: 50, TotalSize: 2},
		"deep metadata":      &a2a.Task{ID: "t", Metadata: a2a.Metadata{"d": Deep(fastDepth + 20)}},
		"deep message":       &a2a.Message{Metadata: a2a.Metadata{"d": Deep(fastDepth * 3)}},
		"rpc result nil":     a2a.RPCReply{JSONRPC: "2.0", ID: json.RawMessage(`7`)},
	}
}

// Deep is a value nested n maps and lists deep.
func Deep(n int) any {
	var v any = "leaf"
	for i := range n {
		if i%2 == 0 {
			v = map[string]any{"k": v, "b": i}
		} else {
			v = []any{i, v}
		}
	}
	return v
}

// RPCError builds the envelope error writeRPCError sends for e, with
// ErrorInfo metadata and a field violation.
func RPCError(e *a2a.Error) *a2a.RPCReplyError {
	e = e.WithMeta("taskId", "t<1>").WithViolation("id", "unknown")
	return &a2a.RPCReplyError{Code: e.Code, Message: e.Message, Data: e.Details()}
}
