//go:build !bridge_nofastjson

package fastjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/internal/codectest"
)

// The hand-written encoders of codec_encode_task.go are checked against
// encoding/json: for every value, appendKnown must give the bytes a
// json.Encoder (HTML escaping on, as in getEncoder) writes, without its
// newline, and must fail exactly when the encoder fails. writeJSON and the
// SSE writer are checked against the encoding/json path they had before.

// checkAppendMatches fails t when appendKnown disagrees with encoding/json
// on v (bytes, or whether and how it fails).
func checkAppendMatches(t *testing.T, name string, v any) {
	t.Helper()
	want, wantErr := codectest.Reference(v)
	prefix := []byte("prefix:")
	got, err := AppendKnown(prefix[:len(prefix):len(prefix)], v)
	if errors.Is(err, errNotKnown) {
		t.Fatalf("%s: %T has no fast encoder", name, v)
	}
	switch {
	case wantErr != nil && err == nil:
		t.Errorf("%s: encoding/json fails (%v) but the fast encoder wrote %s", name, wantErr, got)
	case wantErr == nil && err != nil:
		t.Errorf("%s: fast encoder fails (%v) but encoding/json wrote %s", name, err, want)
	case wantErr != nil:
		if err.Error() != wantErr.Error() {
			t.Errorf("%s: error\n got %v\nwant %v", name, err, wantErr)
		}
	case !bytes.HasPrefix(got, prefix) || !bytes.Equal(got[len(prefix):], want):
		t.Errorf("%s:\n got %s\nwant prefix:%s", name, got, want)
	}
}

// checkAllShapes checks v alone and as a JSON-RPC result, for every
// response shape that can carry it.
func checkAllShapes(t *testing.T, name string, v any) {
	t.Helper()
	checkShapes(t, name, v, true)
}

// checkShapes is checkAllShapes; with all false, v is checked alone and
// as a JSON-RPC result only (the fuzz target's cheaper check: the other
// shapes only wrap the same appenders).
func checkShapes(t *testing.T, name string, v any, all bool) {
	t.Helper()
	shapes := []any{v}
	switch x := v.(type) {
	case a2a.RPCReply:
		checkAppendMatches(t, name, x)
		return
	case *a2a.Task:
		if all {
			shapes = append(shapes, &a2a.SendMessageResponse{Task: x}, &a2a.StreamResponse{Task: x})
			if x != nil {
				shapes = append(shapes, &a2a.ListTasksResponse{Tasks: []a2a.Task{*x, *x}, NextPageToken: "n<1>", PageSize: 2, TotalSize: -3})
			}
		}
	case *a2a.Message:
		if all {
			shapes = append(shapes, &a2a.SendMessageResponse{Message: x}, &a2a.StreamResponse{Message: x})
		}
	}
	for i, s := range shapes {
		checkAppendMatches(t, fmt.Sprintf("%s/%d/%T", name, i, s), s)
		env := a2a.RPCReply{JSONRPC: "2.0", ID: json.RawMessage(`"req-1"`), Result: s}
		checkAppendMatches(t, fmt.Sprintf("%s/%d/rpc", name, i), env)
	}
}

// encHostile holds what strings must survive: HTML characters, escapes,
// control bytes, U+2028/2029, invalid UTF-8.
const encHostile = "<a href=\"x\">&amp;</a>\\ \b\f\n\r\t\x00\x1f\x7f é \u2028\u2029 \xff\xfe \xe2\x80 end"

func TestAppendKnownMatchesEncodingJSON(t *testing.T) {
	for name, v := range codectest.Cases(maxFastDepth) {
		checkAllShapes(t, name, v)
	}
}

// TestAppendKnownErrorsMatchEncodingJSON: what encoding/json cannot encode
// the fast encoder must refuse too, with the same error.
func TestAppendKnownErrorsMatchEncodingJSON(t *testing.T) {
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	badParts := []a2a.Part{{Kind: a2a.PartUnknown}}
	cases := map[string]any{
		"unknown part in history":  &a2a.Task{History: []a2a.Message{{Parts: badParts}}},
		"unknown part in artifact": &a2a.Task{Artifacts: []a2a.Artifact{{Parts: badParts}}},
		"unknown part in status":   &a2a.Task{Status: a2a.TaskStatus{Message: &a2a.Message{Parts: badParts}}},
		"invalid data":             &a2a.Message{Parts: []a2a.Part{{Kind: a2a.PartData, Data: json.RawMessage(`{"a":`)}}},
		"invalid spaced data":      &a2a.Message{Parts: []a2a.Part{{Kind: a2a.PartData, Data: json.RawMessage(` [1, `)}}},
		"NaN in task metadata":     &a2a.Task{Metadata: a2a.Metadata{"x": math.NaN()}},
		"Inf in message metadata":  &a2a.Message{Metadata: a2a.Metadata{"x": []any{math.Inf(-1)}}},
		"float32 Inf":              &a2a.Task{Metadata: a2a.Metadata{"x": float32(math.Inf(1))}},
		"chan in metadata":         &a2a.Task{Metadata: a2a.Metadata{"a": 1, "c": make(chan int)}},
		"func in part metadata":    &a2a.Message{Parts: []a2a.Part{{Metadata: a2a.Metadata{"f": func() {}}}}},
		"bad json.Number":          &a2a.Task{Metadata: a2a.Metadata{"n": json.Number("1x")}},
		"bad raw in metadata":      &a2a.Task{Metadata: a2a.Metadata{"r": json.RawMessage(`{`)}},
		"cycle in task metadata":   &a2a.Task{Metadata: a2a.Metadata{"c": cyclic}},
		"cycle in event metadata":  &a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{Metadata: cyclic}},
		"bad role":                 &a2a.StreamResponse{Message: &a2a.Message{Role: "007"}},
		"bad state":                &a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{Artifact: a2a.Artifact{Parts: badParts}}},
		"bad status state":         &a2a.SendMessageResponse{Task: &a2a.Task{Status: a2a.TaskStatus{State: "01"}}},
		"bad list":                 &a2a.ListTasksResponse{Tasks: []a2a.Task{{History: []a2a.Message{{Parts: badParts}}}}},
	}
	for name, v := range cases {
		if _, err := codectest.Reference(v); err == nil {
			t.Fatalf("%s: encoding/json encodes it; the case tests nothing", name)
		}
		checkAllShapes(t, name, v)
	}
	for name, id := range map[string]json.RawMessage{
		"invalid id": json.RawMessage(`{`),
		"empty id":   {},
	} {
		checkAppendMatches(t, name, a2a.RPCReply{JSONRPC: "2.0", ID: id, Result: &a2a.Task{}})
	}
}

func TestAppendKnownEnvelope(t *testing.T) {
	task := codectest.FullTask()
	ids := []json.RawMessage{nil, json.RawMessage(`null`), json.RawMessage(`1`), json.RawMessage(`-1.5e3`),
		json.RawMessage(`"a<b>&c"`), json.RawMessage(`"<"`), json.RawMessage(`">"`), json.RawMessage(`"&"`), json.RawMessage("\t1"), json.RawMessage("\"\u2028\""), json.RawMessage(`"\u00e9"`), json.RawMessage(` "spaced" `)}
	errs := []*a2a.RPCReplyError{nil, {Code: -32001, Message: "task <t> not found"},
		codectest.RPCError(a2a.ErrTaskNotFound),
		{Code: -32602, Message: "bad", Data: []map[string]any{nil, {}, {"@type": "x", "fieldViolations": []map[string]string{{"field": "a"}}}}}}
	for i, id := range ids {
		for j, e := range errs {
			checkAppendMatches(t, fmt.Sprintf("id %d error %d", i, j), a2a.RPCReply{JSONRPC: "2.0", ID: id, Error: e})
			checkAppendMatches(t, fmt.Sprintf("id %d error %d result", i, j), a2a.RPCReply{JSONRPC: "2.0", ID: id, Result: task, Error: e})
		}
	}
	if _, err := AppendKnown(nil, a2a.RPCReply{JSONRPC: "2.0", ID: json.RawMessage("null"), Result: &a2a.Empty{}}); !errors.Is(err, errNotKnown) {
		t.Errorf("envelope of an unknown result: err %v, want errNotKnown", err)
	}
	if _, err := AppendKnown(nil, a2a.Task{}); !errors.Is(err, errNotKnown) {
		t.Errorf("task by value: err %v, want errNotKnown", err)
	}
}

func TestAppendProtoTime(t *testing.T) {
	zones := []*time.Location{time.UTC, time.FixedZone("W", -7*3600-59), time.FixedZone("E", 14*3600)}
	times := []time.Time{{}, time.Unix(0, 0), time.Unix(-62135596801, 999_999_999), time.Unix(253402300800, 1_000),
		time.Date(2026, 5, 28, 10, 0, 1, 250_000_000, time.UTC), time.Date(-5, 1, 1, 0, 0, 0, 1, time.UTC), time.Now()}
	var seed uint64 = 0xD1B54A32D192ED03
	for i := range 5000 {
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		// Seconds from year -300 to 12000, nanoseconds of each precision.
		sec := int64(seed%(380_000_000_000)) - 71_000_000_000
		ns := int64(seed>>40) % 1_000_000_000
		switch i % 4 {
		case 0:
			ns = 0
		case 1:
			ns -= ns % 1_000_000
		case 2:
			ns -= ns % 1_000
		}
		times = append(times, time.Unix(sec, ns))
	}
	for _, tm := range times {
		for _, z := range zones {
			tz := tm.In(z)
			// The timestamp as TaskStatus.MarshalJSON writes it.
			st, _ := a2a.TaskStatus{Timestamp: &tz}.MarshalJSON()
			want := st[len(`{"state":"TASK_STATE_UNSPECIFIED","timestamp":`) : len(st)-1]
			if got := appendProtoTime(nil, tz); !bytes.Equal(got, want) {
				t.Errorf("%v: got %s want %s", tz, got, want)
			}
		}
	}
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	var cases []string
	for b := range 256 {
		cases = append(cases, string([]byte{byte(b)}), "a"+string([]byte{byte(b)})+"z")
	}
	for _, r := range []rune{0x7f, 0x80, 0x7ff, 0x800, 0x2027, 0x2028, 0x2029, 0x202a, 0xfffd, 0xffff, 0x10000, 0x10ffff} {
		cases = append(cases, string(r), "x"+string(r)+"<")
	}
	cases = append(cases, encHostile, "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x80\xa8", "\xe2\x80")
	for _, c := range cases {
		want, _ := json.Marshal(c)
		if got := appendString(nil, c); !bytes.Equal(got, want) {
			t.Errorf("%q: got %s want %s", c, got, want)
		}
	}
}

func TestAppendFloatMatchesEncodingJSON(t *testing.T) {
	var seed uint64 = 0x9E3779B97F4A7C15
	next := func() uint64 { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; return seed }
	check := func(v any) {
		want, wantErr := json.Marshal(v)
		got, err := appendValue(nil, v, 0)
		if (err != nil) != (wantErr != nil) || !bytes.Equal(got, want) {
			t.Fatalf("%T %v: got %s (%v) want %s (%v)", v, v, got, err, want, wantErr)
		}
	}
	for range 20000 {
		b := next()
		check(math.Float64frombits(b))
		check(math.Float32frombits(uint32(b)))
	}
	for _, f := range []float64{1e-6, 1e-6 - 1e-22, 1e21, 1e21 - 65536, 1e-7, 0.1, 100, 1e100, -1e-300} {
		check(f)
		check(float32(f))
	}
}

// encGoldenSeeds are the golden files of the response shapes.
func encGoldenSeeds(f *testing.F) [][]byte {
	var out [][]byte
	for _, pat := range []string{"task*.json", "message*.json", "send_message_response*.json", "stream_response*.json", "list_tasks_response*.json"} {
		files, err := filepath.Glob(filepath.Join("testdata", "golden", pat))
		if err != nil {
			f.Fatal(err)
		}
		for _, name := range files {
			b, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			out = append(out, b)
		}
	}
	return out
}

// FuzzAppendTaskMatchesEncodingJSON checks the fast encoders against
// encoding/json on values decoded from doc (every response shape it
// decodes as) and on a task built from the other arguments, which reach
// what decoding cannot produce: invalid UTF-8, any float, any timestamp,
// unknown enums, raw data that is no JSON.
//
//	go test ./a2a -run '^$' -fuzz FuzzAppendTaskMatchesEncodingJSON
func FuzzAppendTaskMatchesEncodingJSON(f *testing.F) {
	for i, doc := range encGoldenSeeds(f) {
		f.Add(doc, encHostile, 1.5, int64(i)*1_000_123_457, uint16(i))
	}
	f.Add([]byte(`{"a":[1,2]}`), "\xff<", math.Inf(1), int64(-1), uint16(0xffff))
	f.Add([]byte(` {"a" : "\u2028"} `), "42", 1e21, int64(1)<<62, uint16(0x5a5a))
	f.Fuzz(func(t *testing.T, doc []byte, s string, x float64, nanos int64, flags uint16) {
		var task a2a.Task
		if json.Unmarshal(doc, &task) == nil {
			checkShapes(t, "doc task", &task, false)
		}
		var msg a2a.Message
		if json.Unmarshal(doc, &msg) == nil {
			checkShapes(t, "doc message", &msg, false)
		}
		var ev a2a.StreamResponse
		if json.Unmarshal(doc, &ev) == nil {
			checkShapes(t, "doc event", &ev, false)
		}
		var send a2a.SendMessageResponse
		if json.Unmarshal(doc, &send) == nil {
			checkShapes(t, "doc send", &send, false)
		}
		var list a2a.ListTasksResponse
		if json.Unmarshal(doc, &list) == nil {
			checkShapes(t, "doc list", &list, false)
		}
		var meta a2a.Metadata
		if json.Unmarshal(doc, &meta) != nil {
			meta = nil
		}
		built := encFuzzTask(doc, s, x, nanos, flags, meta)
		checkShapes(t, "built task", built, false)
		checkShapes(t, "built event", &a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: s, ContextID: s, Status: built.Status, Metadata: built.Metadata}}, false)
		checkShapes(t, "built artifact", &a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{TaskID: s, Artifact: built.Artifacts[0], Append: flags&1 != 0, LastChunk: flags&2 != 0, Metadata: meta}}, false)
		checkAppendMatches(t, "built id", a2a.RPCReply{JSONRPC: s, ID: json.RawMessage(doc), Result: built})
	})
}

func encFuzzTask(doc []byte, s string, x float64, nanos int64, flags uint16, meta a2a.Metadata) *a2a.Task {
	part := a2a.Part{Kind: a2a.PartKind(flags>>2) % (a2a.PartUnknown + 1), Text: s, Raw: doc, URL: s, Data: doc, Filename: s, MediaType: s}
	if flags&4 != 0 {
		part.Metadata = meta
	}
	md := a2a.Metadata{s: x, "s": s, "f32": float32(x), "l": []any{x, s, nil, flags&8 != 0, map[string]any{s: []any{}}}, "m": meta}
	ts := time.Unix(0, nanos).In(time.FixedZone("Z", int(int16(flags))*60))
	msg := a2a.Message{MessageID: s, ContextID: s, TaskID: s, Role: a2a.Role(s), Parts: []a2a.Part{part, a2a.TextPart(s)}, Metadata: md, Extensions: []string{s}, ReferenceTaskIDs: []string{s, ""}}
	task := &a2a.Task{
		ID: s, ContextID: s,
		Status:    a2a.TaskStatus{State: a2a.TaskState(s), Timestamp: &ts},
		Artifacts: []a2a.Artifact{{ArtifactID: s, Name: s, Description: s, Parts: []a2a.Part{part}, Metadata: meta, Extensions: []string{s}}},
		History:   []a2a.Message{msg},
		Metadata:  md,
	}
	if flags&16 != 0 {
		task.Status.Message = &msg
		task.Status.State = a2a.TaskStateCompleted
		task.History[0].Role = a2a.RoleUser
	}
	if flags&32 != 0 {
		task.Status.Timestamp = nil
	}
	if flags&64 != 0 {
		task.Artifacts = append(task.Artifacts, a2a.Artifact{})
	}
	return task
}
