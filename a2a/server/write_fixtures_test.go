//go:build !bridge_nofastjson

package server

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"math"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// Fixtures copied from a2a/codec_encode_task_test.go (a test of package a2a
// cannot be imported): values of every shape the hand-written encoders know.

// encodeReference is what encoding/json writes for v: the old path.
func encodeReference(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func encTime(sec int64, nsec int64) *time.Time {
	t := time.Unix(sec, nsec).In(time.FixedZone("X", 3600+1800))
	return &t
}

// encHostile holds what strings must survive: HTML characters, escapes,
// control bytes, U+2028/2029, invalid UTF-8.
const encHostile = "<a href=\"x\">&amp;</a>\\ \b\f\n\r\t\x00\x1f\x7f é \u2028\u2029 \xff\xfe \xe2\x80 end"

func encAllParts() []a2a.Part {
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

func encMetadata() a2a.Metadata {
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

func encFullMessage() *a2a.Message {
	return &a2a.Message{
		MessageID: "m-1<", ContextID: "c-1", TaskID: "t-1", Role: a2a.RoleAgent,
		Parts: encAllParts(), Metadata: encMetadata(),
		Extensions: []string{"https://e/1", encHostile}, ReferenceTaskIDs: []string{"t-0"},
	}
}

func encFullTask() *a2a.Task {
	return &a2a.Task{
		ID: "t-1", ContextID: "c-1",
		Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Message: encFullMessage(), Timestamp: encTime(1_780_000_000, 123_456_789)},
		Artifacts: []a2a.Artifact{
			{ArtifactID: "a-1", Name: "n<", Description: "d&", Parts: encAllParts(), Metadata: encMetadata(), Extensions: []string{"x"}},
			{ArtifactID: "a-2"},
			{ArtifactID: "a-3", Parts: []a2a.Part{}},
		},
		History:  []a2a.Message{*encFullMessage(), {}, {MessageID: "m-2", Role: a2a.RoleUser, Parts: []a2a.Part{}}},
		Metadata: encMetadata(),
	}
}

// encCases are values of every known shape that encode without error.
func encCases() map[string]any {
	full := encFullTask()
	return map[string]any{
		"task zero":          &a2a.Task{},
		"task nil":           (*a2a.Task)(nil),
		"task full":          full,
		"task empty slices":  &a2a.Task{ID: "t", Artifacts: []a2a.Artifact{}, History: []a2a.Message{}, Metadata: a2a.Metadata{}},
		"task states":        &a2a.Task{ID: "t", Status: a2a.TaskStatus{State: "TASK_STATE_FUTURE<>"}},
		"task state number":  &a2a.Task{ID: "t", Status: a2a.TaskStatus{State: "12"}},
		"task timestamp 0":   &a2a.Task{ID: "t", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: encTime(0, 0)}},
		"task timestamp ms":  &a2a.Task{ID: "t", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: encTime(1, 5_000_000)}},
		"task timestamp us":  &a2a.Task{ID: "t", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: encTime(-1, 5_000)}},
		"task timestamp far": &a2a.Task{ID: "t", Status: a2a.TaskStatus{Timestamp: encTime(400_000_000_000, 1)}},
		"message zero":       &a2a.Message{},
		"message nil":        (*a2a.Message)(nil),
		"message full":       encFullMessage(),
		"message role":       &a2a.Message{Role: "ROLE_OTHER&", Parts: nil},
		"message role num":   &a2a.Message{Role: "-4"},
		"send nil":           (*a2a.SendMessageResponse)(nil),
		"send empty":         &a2a.SendMessageResponse{},
		"send both":          &a2a.SendMessageResponse{Task: full, Message: encFullMessage()},
		"stream nil":         (*a2a.StreamResponse)(nil),
		"stream empty":       &a2a.StreamResponse{},
		"stream status":      &a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: "t", ContextID: "c", Status: full.Status, Metadata: encMetadata()}},
		"stream status zero": &a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{}},
		"stream artifact":    &a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{TaskID: "t", ContextID: "c", Artifact: full.Artifacts[0], Append: true, LastChunk: true, Metadata: encMetadata()}},
		"stream artifact 0":  &a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{}},
		"stream artifact lc": &a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{TaskID: "t", Artifact: a2a.Artifact{ArtifactID: "a"}, LastChunk: true}},
		"stream all":         &a2a.StreamResponse{Task: full, Message: encFullMessage(), StatusUpdate: &a2a.TaskStatusUpdateEvent{}, ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{}},
		"list nil":           (*a2a.ListTasksResponse)(nil),
		"list empty":         &a2a.ListTasksResponse{},
		"list tasks":         &a2a.ListTasksResponse{Tasks: []a2a.Task{*full, {}}, NextPageToken: encHostile, PageSize: 50, TotalSize: 2},
		"deep metadata":      &a2a.Task{ID: "t", Metadata: a2a.Metadata{"d": encDeep(encFastDepth + 20)}},
		"deep message":       &a2a.Message{Metadata: a2a.Metadata{"d": encDeep(encFastDepth * 3)}},
		"rpc result nil":     a2a.RPCReply{JSONRPC: "2.0", ID: json.RawMessage(`7`)},
	}
}

// encDeep is a value nested n maps and lists deep.
func encDeep(n int) any {
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

// encRPCError builds the envelope error writeRPCError sends for e, with
// ErrorInfo metadata and a field violation.
func encRPCError(e *a2a.Error) *a2a.RPCReplyError {
	e = e.WithMeta("taskId", "t<1>").WithViolation("id", "unknown")
	return &a2a.RPCReplyError{Code: e.Code, Message: e.Message, Data: e.Details()}
}

// encLog captures what a server logs.
func encLog() (*slog.Logger, *bytes.Buffer) {
	var buf bytes.Buffer
	h := slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}})
	return slog.New(h), &buf
}

// encBenchTask is a task as the bench agent returns it: completed, one
// history message and one artifact with one text part each.
func encBenchTask() *a2a.Task {
	ts := time.Date(2026, 5, 28, 10, 0, 1, 250_123_456, time.UTC)
	return &a2a.Task{
		ID: "5b1f0f5e-8f0c-4d61-9c1e-0e6c2f1f9a77", ContextID: "c7d2a8f4-3f0b-4b7e-8d6a-2f1e9c4b5a10",
		Status: a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: &ts},
		Artifacts: []a2a.Artifact{{ArtifactID: "0b9e2c6d-1a4f-4e8b-9f3c-7d5a6b2e1c90", Name: "echo",
			Parts: []a2a.Part{a2a.TextPart("echo: hello")}}},
		History: []a2a.Message{{MessageID: "m-1", ContextID: "c7d2a8f4-3f0b-4b7e-8d6a-2f1e9c4b5a10",
			TaskID: "5b1f0f5e-8f0c-4d61-9c1e-0e6c2f1f9a77", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hello")}}},
	}
}

// encFastDepth is the depth past which a2a's hand-written encoders hand a
// metadata value to encoding/json (maxFastDepth there).
const encFastDepth = 100
