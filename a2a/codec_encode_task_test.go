package a2a

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The hand-written encoders of codec_encode_task.go are checked against
// encoding/json: for every value, appendKnown must give the bytes a
// json.Encoder (HTML escaping on, as in getEncoder) writes, without its
// newline, and must fail exactly when the encoder fails. writeJSON and the
// SSE writer are checked against the encoding/json path they had before.

// encodeReference is what encoding/json writes for v: the old path.
func encodeReference(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// checkAppendMatches fails t when appendKnown disagrees with encoding/json
// on v (bytes, or whether and how it fails).
func checkAppendMatches(t *testing.T, name string, v any) {
	t.Helper()
	want, wantErr := encodeReference(v)
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
	case RPCReply:
		checkAppendMatches(t, name, x)
		return
	case *Task:
		if all {
			shapes = append(shapes, &SendMessageResponse{Task: x}, &StreamResponse{Task: x})
			if x != nil {
				shapes = append(shapes, &ListTasksResponse{Tasks: []Task{*x, *x}, NextPageToken: "n<1>", PageSize: 2, TotalSize: -3})
			}
		}
	case *Message:
		if all {
			shapes = append(shapes, &SendMessageResponse{Message: x}, &StreamResponse{Message: x})
		}
	}
	for i, s := range shapes {
		checkAppendMatches(t, fmt.Sprintf("%s/%d/%T", name, i, s), s)
		env := RPCReply{JSONRPC: "2.0", ID: json.RawMessage(`"req-1"`), Result: s}
		checkAppendMatches(t, fmt.Sprintf("%s/%d/rpc", name, i), env)
	}
}

func encTime(sec int64, nsec int64) *time.Time {
	t := time.Unix(sec, nsec).In(time.FixedZone("X", 3600+1800))
	return &t
}

// encHostile holds what strings must survive: HTML characters, escapes,
// control bytes, U+2028/2029, invalid UTF-8.
const encHostile = "<a href=\"x\">&amp;</a>\\ \b\f\n\r\t\x00\x1f\x7f é \u2028\u2029 \xff\xfe \xe2\x80 end"

func encAllParts() []Part {
	return []Part{
		TextPart(""),
		TextPart(encHostile),
		{Kind: PartText, Text: "t", Metadata: Metadata{"k": "v"}, Filename: "f<1>.txt", MediaType: "text/plain"},
		RawPart([]byte{0, 1, 2, 0xff, '<'}, "application/octet-stream", "b.bin"),
		RawPart(nil, "", ""),
		URLPart("https://example.com/a?b=1&c=<2>", "image/png", "a.png"),
		{Kind: PartData, Data: json.RawMessage(`{"a":[1,2.5,"x<y"],"b":null}`)},
		{Kind: PartData, Data: json.RawMessage(" { \"a\" : [ 1 , true ] } ")},
		{Kind: PartData, Data: json.RawMessage(`"\u2028 line"`)},
		{Kind: PartData, Data: json.RawMessage("\"\u2028 raw\"")},
		{Kind: PartData},
		{Kind: PartData, Data: json.RawMessage(`null`)},
		{Kind: PartData, Data: json.RawMessage(`12e-3`)},
	}
}

func encMetadata() Metadata {
	return Metadata{
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
		"ptr":      Ptr(3),
		"Z":        1,
		"a":        2,
		"é":        3,
		"aa":       4,
	}
}

func encFullMessage() *Message {
	return &Message{
		MessageID: "m-1<", ContextID: "c-1", TaskID: "t-1", Role: RoleAgent,
		Parts: encAllParts(), Metadata: encMetadata(),
		Extensions: []string{"https://e/1", encHostile}, ReferenceTaskIDs: []string{"t-0"},
	}
}

func encFullTask() *Task {
	return &Task{
		ID: "t-1", ContextID: "c-1",
		Status: TaskStatus{State: TaskStateWorking, Message: encFullMessage(), Timestamp: encTime(1_780_000_000, 123_456_789)},
		Artifacts: []Artifact{
			{ArtifactID: "a-1", Name: "n<", Description: "d&", Parts: encAllParts(), Metadata: encMetadata(), Extensions: []string{"x"}},
			{ArtifactID: "a-2"},
			{ArtifactID: "a-3", Parts: []Part{}},
		},
		History:  []Message{*encFullMessage(), {}, {MessageID: "m-2", Role: RoleUser, Parts: []Part{}}},
		Metadata: encMetadata(),
	}
}

// encCases are values of every known shape that encode without error.
func encCases() map[string]any {
	full := encFullTask()
	return map[string]any{
		"task zero":          &Task{},
		"task nil":           (*Task)(nil),
		"task full":          full,
		"task empty slices":  &Task{ID: "t", Artifacts: []Artifact{}, History: []Message{}, Metadata: Metadata{}},
		"task states":        &Task{ID: "t", Status: TaskStatus{State: "TASK_STATE_FUTURE<>"}},
		"task state number":  &Task{ID: "t", Status: TaskStatus{State: "12"}},
		"task timestamp 0":   &Task{ID: "t", Status: TaskStatus{State: TaskStateCompleted, Timestamp: encTime(0, 0)}},
		"task timestamp ms":  &Task{ID: "t", Status: TaskStatus{State: TaskStateCompleted, Timestamp: encTime(1, 5_000_000)}},
		"task timestamp us":  &Task{ID: "t", Status: TaskStatus{State: TaskStateCompleted, Timestamp: encTime(-1, 5_000)}},
		"task timestamp far": &Task{ID: "t", Status: TaskStatus{Timestamp: encTime(400_000_000_000, 1)}},
		"message zero":       &Message{},
		"message nil":        (*Message)(nil),
		"message full":       encFullMessage(),
		"message role":       &Message{Role: "ROLE_OTHER&", Parts: nil},
		"message role num":   &Message{Role: "-4"},
		"send nil":           (*SendMessageResponse)(nil),
		"send empty":         &SendMessageResponse{},
		"send both":          &SendMessageResponse{Task: full, Message: encFullMessage()},
		"stream nil":         (*StreamResponse)(nil),
		"stream empty":       &StreamResponse{},
		"stream status":      &StreamResponse{StatusUpdate: &TaskStatusUpdateEvent{TaskID: "t", ContextID: "c", Status: full.Status, Metadata: encMetadata()}},
		"stream status zero": &StreamResponse{StatusUpdate: &TaskStatusUpdateEvent{}},
		"stream artifact":    &StreamResponse{ArtifactUpdate: &TaskArtifactUpdateEvent{TaskID: "t", ContextID: "c", Artifact: full.Artifacts[0], Append: true, LastChunk: true, Metadata: encMetadata()}},
		"stream artifact 0":  &StreamResponse{ArtifactUpdate: &TaskArtifactUpdateEvent{}},
		"stream artifact lc": &StreamResponse{ArtifactUpdate: &TaskArtifactUpdateEvent{TaskID: "t", Artifact: Artifact{ArtifactID: "a"}, LastChunk: true}},
		"stream all":         &StreamResponse{Task: full, Message: encFullMessage(), StatusUpdate: &TaskStatusUpdateEvent{}, ArtifactUpdate: &TaskArtifactUpdateEvent{}},
		"list nil":           (*ListTasksResponse)(nil),
		"list empty":         &ListTasksResponse{},
		"list tasks":         &ListTasksResponse{Tasks: []Task{*full, {}}, NextPageToken: encHostile, PageSize: 50, TotalSize: 2},
		"deep metadata":      &Task{ID: "t", Metadata: Metadata{"d": encDeep(maxFastDepth + 20)}},
		"deep message":       &Message{Metadata: Metadata{"d": encDeep(maxFastDepth * 3)}},
		"rpc result nil":     RPCReply{JSONRPC: "2.0", ID: json.RawMessage(`7`)},
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

func TestAppendKnownMatchesEncodingJSON(t *testing.T) {
	for name, v := range encCases() {
		checkAllShapes(t, name, v)
	}
}

// TestAppendKnownErrorsMatchEncodingJSON: what encoding/json cannot encode
// the fast encoder must refuse too, with the same error.
func TestAppendKnownErrorsMatchEncodingJSON(t *testing.T) {
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	badParts := []Part{{Kind: PartUnknown}}
	cases := map[string]any{
		"unknown part in history":  &Task{History: []Message{{Parts: badParts}}},
		"unknown part in artifact": &Task{Artifacts: []Artifact{{Parts: badParts}}},
		"unknown part in status":   &Task{Status: TaskStatus{Message: &Message{Parts: badParts}}},
		"invalid data":             &Message{Parts: []Part{{Kind: PartData, Data: json.RawMessage(`{"a":`)}}},
		"invalid spaced data":      &Message{Parts: []Part{{Kind: PartData, Data: json.RawMessage(` [1, `)}}},
		"NaN in task metadata":     &Task{Metadata: Metadata{"x": math.NaN()}},
		"Inf in message metadata":  &Message{Metadata: Metadata{"x": []any{math.Inf(-1)}}},
		"float32 Inf":              &Task{Metadata: Metadata{"x": float32(math.Inf(1))}},
		"chan in metadata":         &Task{Metadata: Metadata{"a": 1, "c": make(chan int)}},
		"func in part metadata":    &Message{Parts: []Part{{Metadata: Metadata{"f": func() {}}}}},
		"bad json.Number":          &Task{Metadata: Metadata{"n": json.Number("1x")}},
		"bad raw in metadata":      &Task{Metadata: Metadata{"r": json.RawMessage(`{`)}},
		"cycle in task metadata":   &Task{Metadata: Metadata{"c": cyclic}},
		"cycle in event metadata":  &StreamResponse{StatusUpdate: &TaskStatusUpdateEvent{Metadata: cyclic}},
		"bad role":                 &StreamResponse{Message: &Message{Role: "007"}},
		"bad state":                &StreamResponse{ArtifactUpdate: &TaskArtifactUpdateEvent{Artifact: Artifact{Parts: badParts}}},
		"bad status state":         &SendMessageResponse{Task: &Task{Status: TaskStatus{State: "01"}}},
		"bad list":                 &ListTasksResponse{Tasks: []Task{{History: []Message{{Parts: badParts}}}}},
	}
	for name, v := range cases {
		if _, err := encodeReference(v); err == nil {
			t.Fatalf("%s: encoding/json encodes it; the case tests nothing", name)
		}
		checkAllShapes(t, name, v)
	}
	for name, id := range map[string]json.RawMessage{
		"invalid id": json.RawMessage(`{`),
		"empty id":   {},
	} {
		checkAppendMatches(t, name, RPCReply{JSONRPC: "2.0", ID: id, Result: &Task{}})
	}
}

func TestAppendKnownEnvelope(t *testing.T) {
	task := encFullTask()
	ids := []json.RawMessage{nil, json.RawMessage(`null`), json.RawMessage(`1`), json.RawMessage(`-1.5e3`),
		json.RawMessage(`"a<b>&c"`), json.RawMessage(`"<"`), json.RawMessage(`">"`), json.RawMessage(`"&"`), json.RawMessage("\t1"), json.RawMessage("\"\u2028\""), json.RawMessage(`"\u00e9"`), json.RawMessage(` "spaced" `)}
	errs := []*RPCReplyError{nil, {Code: -32001, Message: "task <t> not found"},
		encRPCError(ErrTaskNotFound),
		{Code: -32602, Message: "bad", Data: []map[string]any{nil, {}, {"@type": "x", "fieldViolations": []map[string]string{{"field": "a"}}}}}}
	for i, id := range ids {
		for j, e := range errs {
			checkAppendMatches(t, fmt.Sprintf("id %d error %d", i, j), RPCReply{JSONRPC: "2.0", ID: id, Error: e})
			checkAppendMatches(t, fmt.Sprintf("id %d error %d result", i, j), RPCReply{JSONRPC: "2.0", ID: id, Result: task, Error: e})
		}
	}
	if _, err := AppendKnown(nil, RPCReply{JSONRPC: "2.0", ID: nullID, Result: &Empty{}}); !errors.Is(err, errNotKnown) {
		t.Errorf("envelope of an unknown result: err %v, want errNotKnown", err)
	}
	if _, err := AppendKnown(nil, Task{}); !errors.Is(err, errNotKnown) {
		t.Errorf("task by value: err %v, want errNotKnown", err)
	}
}

// encRPCError builds the envelope error writeRPCError sends for e, with
// ErrorInfo metadata and a field violation.
func encRPCError(e *Error) *RPCReplyError {
	e = e.WithMeta("taskId", "t<1>").WithViolation("id", "unknown")
	return &RPCReplyError{Code: e.Code, Message: e.Message, Data: e.Details()}
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
			want, _ := protoTime(tz).MarshalJSON()
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
		var task Task
		if json.Unmarshal(doc, &task) == nil {
			checkShapes(t, "doc task", &task, false)
		}
		var msg Message
		if json.Unmarshal(doc, &msg) == nil {
			checkShapes(t, "doc message", &msg, false)
		}
		var ev StreamResponse
		if json.Unmarshal(doc, &ev) == nil {
			checkShapes(t, "doc event", &ev, false)
		}
		var send SendMessageResponse
		if json.Unmarshal(doc, &send) == nil {
			checkShapes(t, "doc send", &send, false)
		}
		var list ListTasksResponse
		if json.Unmarshal(doc, &list) == nil {
			checkShapes(t, "doc list", &list, false)
		}
		var meta Metadata
		if json.Unmarshal(doc, &meta) != nil {
			meta = nil
		}
		built := encFuzzTask(doc, s, x, nanos, flags, meta)
		checkShapes(t, "built task", built, false)
		checkShapes(t, "built event", &StreamResponse{StatusUpdate: &TaskStatusUpdateEvent{TaskID: s, ContextID: s, Status: built.Status, Metadata: built.Metadata}}, false)
		checkShapes(t, "built artifact", &StreamResponse{ArtifactUpdate: &TaskArtifactUpdateEvent{TaskID: s, Artifact: built.Artifacts[0], Append: flags&1 != 0, LastChunk: flags&2 != 0, Metadata: meta}}, false)
		checkAppendMatches(t, "built id", RPCReply{JSONRPC: s, ID: json.RawMessage(doc), Result: built})
	})
}

func encFuzzTask(doc []byte, s string, x float64, nanos int64, flags uint16, meta Metadata) *Task {
	part := Part{Kind: PartKind(flags>>2) % (PartUnknown + 1), Text: s, Raw: doc, URL: s, Data: doc, Filename: s, MediaType: s}
	if flags&4 != 0 {
		part.Metadata = meta
	}
	md := Metadata{s: x, "s": s, "f32": float32(x), "l": []any{x, s, nil, flags&8 != 0, map[string]any{s: []any{}}}, "m": meta}
	ts := time.Unix(0, nanos).In(time.FixedZone("Z", int(int16(flags))*60))
	msg := Message{MessageID: s, ContextID: s, TaskID: s, Role: Role(s), Parts: []Part{part, TextPart(s)}, Metadata: md, Extensions: []string{s}, ReferenceTaskIDs: []string{s, ""}}
	task := &Task{
		ID: s, ContextID: s,
		Status:    TaskStatus{State: TaskState(s), Timestamp: &ts},
		Artifacts: []Artifact{{ArtifactID: s, Name: s, Description: s, Parts: []Part{part}, Metadata: meta, Extensions: []string{s}}},
		History:   []Message{msg},
		Metadata:  md,
	}
	if flags&16 != 0 {
		task.Status.Message = &msg
		task.Status.State = TaskStateCompleted
		task.History[0].Role = RoleUser
	}
	if flags&32 != 0 {
		task.Status.Timestamp = nil
	}
	if flags&64 != 0 {
		task.Artifacts = append(task.Artifacts, Artifact{})
	}
	return task
}

// encBenchTask is a task as the bench agent returns it: completed, one
// history message and one artifact with one text part each.
func encBenchTask() *Task {
	ts := time.Date(2026, 5, 28, 10, 0, 1, 250_123_456, time.UTC)
	return &Task{
		ID: "5b1f0f5e-8f0c-4d61-9c1e-0e6c2f1f9a77", ContextID: "c7d2a8f4-3f0b-4b7e-8d6a-2f1e9c4b5a10",
		Status: TaskStatus{State: TaskStateCompleted, Timestamp: &ts},
		Artifacts: []Artifact{{ArtifactID: "0b9e2c6d-1a4f-4e8b-9f3c-7d5a6b2e1c90", Name: "echo",
			Parts: []Part{TextPart("echo: hello")}}},
		History: []Message{{MessageID: "m-1", ContextID: "c7d2a8f4-3f0b-4b7e-8d6a-2f1e9c4b5a10",
			TaskID: "5b1f0f5e-8f0c-4d61-9c1e-0e6c2f1f9a77", Role: RoleUser, Parts: []Part{TextPart("hello")}}},
	}
}
