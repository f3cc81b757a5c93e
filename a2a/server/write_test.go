//go:build !bridge_nofastjson

package server

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/internal/codectest"
)

// The server's writers (writeJSON, the SSE writer) are checked against the
// encoding/json path they had before the hand-written encoders.

// writeJSONEncodingJSON is writeJSON as it was before the hand-written
// encoders: the reference for the bytes, status and log of writeJSON.
func writeJSONEncodingJSON(s *Server, w http.ResponseWriter, status int, v any) {
	e := getEncoder()
	defer putEncoder(e)
	var body []byte
	if err := e.enc.Encode(v); err != nil {
		s.cfg.Logger.Error("a2a: encode response", "err", err)
		status = http.StatusInternalServerError
		body = []byte(`{"error":{"code":500,"status":"INTERNAL","message":"internal error"}}`)
	} else {
		body = bytes.TrimSuffix(e.buf.Bytes(), []byte("\n"))
	}
	s.setWriteDeadline(w, s.cfg.WriteTimeout)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func TestWriteJSONMatchesEncodingJSON(t *testing.T) {
	values := map[string]any{}
	for name, v := range codectest.Cases(encFastDepth) {
		values[name] = v
		values[name+" rpc"] = a2a.RPCReply{JSONRPC: "2.0", ID: json.RawMessage(`"x"`), Result: v}
	}
	values["unknown part"] = a2a.RPCReply{JSONRPC: "2.0", ID: json.RawMessage(`1`), Result: &a2a.SendMessageResponse{Task: &a2a.Task{History: []a2a.Message{{Parts: []a2a.Part{{Kind: a2a.PartUnknown}}}}}}}
	values["NaN"] = &a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{Metadata: a2a.Metadata{"x": math.NaN()}}}
	values["bad id"] = a2a.RPCReply{JSONRPC: "2.0", ID: json.RawMessage(`[`), Result: &a2a.Task{}}
	values["rpc error"] = a2a.RPCReply{JSONRPC: "2.0", ID: nullID, Error: codectest.RPCError(a2a.ErrTaskNotFound)}
	values["other type"] = &a2a.Empty{}
	values["rest error"] = restError{Error: restStatus{Code: 404, Status: "NOT_FOUND", Message: "<x>"}}
	for name, v := range values {
		logFast, bufFast := encLog()
		logRef, bufRef := encLog()
		fast := &Server{cfg: Config{Logger: logFast, WriteTimeout: time.Second}}
		ref := &Server{cfg: Config{Logger: logRef, WriteTimeout: time.Second}}
		got, want := httptest.NewRecorder(), httptest.NewRecorder()
		fast.writeJSON(got, http.StatusAccepted, v)
		writeJSONEncodingJSON(ref, want, http.StatusAccepted, v)
		if got.Code != want.Code || !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) || got.Header().Get("Content-Type") != want.Header().Get("Content-Type") {
			t.Errorf("%s: got %d %s\nwant %d %s", name, got.Code, got.Body, want.Code, want.Body)
		}
		if bufFast.String() != bufRef.String() {
			t.Errorf("%s: logged\n%s\nwant\n%s", name, bufFast, bufRef)
		}
	}
}

// encFlushRecorder is a ResponseWriter that can flush, for sseWriter.
type encFlushRecorder struct{ *httptest.ResponseRecorder }

func TestSSESendMatchesEncodingJSON(t *testing.T) {
	events := []any{}
	for _, v := range codectest.Cases(encFastDepth) {
		if ev, ok := v.(*a2a.StreamResponse); ok {
			events = append(events, ev, a2a.RPCReply{JSONRPC: "2.0", ID: json.RawMessage(`3`), Result: ev})
		}
	}
	events = append(events,
		a2a.RPCReply{JSONRPC: "2.0", ID: json.RawMessage(`3`), Error: &a2a.RPCReplyError{Code: -32603, Message: "internal error"}},
		restError{Error: restStatus{Code: 500, Status: "INTERNAL", Message: "x"}},
		&a2a.StreamResponse{Message: &a2a.Message{Parts: []a2a.Part{{Kind: a2a.PartUnknown}}}},
		a2a.RPCReply{JSONRPC: "2.0", ID: json.RawMessage(`3`), Result: &a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{Metadata: a2a.Metadata{"x": math.Inf(1)}}}},
	)
	for i, v := range events {
		rec := httptest.NewRecorder()
		sw := newSSEWriter(encFlushRecorder{rec}, 0, 0)
		err := sw.send(v)
		want, wantErr := codectest.Reference(v)
		switch {
		case wantErr != nil:
			if err == nil || err.Error() != wantErr.Error() {
				t.Errorf("event %d (%T): err %v, want %v", i, v, err, wantErr)
			}
			if rec.Body.Len() != 0 || sw.started() {
				t.Errorf("event %d: a failed event wrote %q", i, rec.Body)
			}
		case err != nil:
			t.Errorf("event %d (%T): %v", i, v, err)
		default:
			if w := "data: " + string(want) + "\n\n"; rec.Body.String() != w {
				t.Errorf("event %d (%T):\n got %q\nwant %q", i, v, rec.Body, w)
			}
		}
		sw.close()
	}
}

// TestAppendKnownGrowsPooledBuffer: a response larger than the pooled
// buffer is written whole and leaves the grown buffer to the encoder.
func TestAppendKnownGrowsPooledBuffer(t *testing.T) {
	e := &jsonEncoder{}
	e.enc = json.NewEncoder(&e.buf)
	big := &a2a.Task{ID: strings.Repeat("x", 10_000)}
	b, ok := e.appendKnown("data: ", big, "\n\n")
	want, _ := codectest.Reference(big)
	if !ok || string(b) != "data: "+string(want)+"\n\n" {
		t.Fatalf("ok %v, got %d bytes", ok, len(b))
	}
	if e.buf.Cap() < len(b) || e.buf.Len() != 0 {
		t.Errorf("buffer cap %d len %d after a %d-byte event", e.buf.Cap(), e.buf.Len(), len(b))
	}
	// The encoding/json path still works on the swapped buffer.
	e.buf.Reset()
	if err := e.enc.Encode(big); err != nil || !bytes.Equal(bytes.TrimSuffix(e.buf.Bytes(), []byte("\n")), want) {
		t.Errorf("encoder after swap: %v", err)
	}
}

// encDiscard is a ResponseWriter that keeps nothing, for the benchmarks.
type encDiscard struct {
	h http.Header
	n int
}

func (d *encDiscard) Header() http.Header { return d.h }

func (d *encDiscard) WriteHeader(int) {}

func (d *encDiscard) Flush() {}

func (d *encDiscard) Write(b []byte) (int, error) { d.n += len(b); return len(b), nil }

// SetWriteDeadline is there as on a server's connection, so that setting
// the deadline costs in the benchmarks what it costs on a real response.
func (d *encDiscard) SetWriteDeadline(time.Time) error { return nil }

// BenchmarkWriteJSONTask is the JSON-RPC SendMessage answer of the bench
// agent written by writeJSON, against the encoding/json path it replaced:
//
//	taskset -c 1 go test ./a2a -run '^$' -bench 'WriteJSONTask|SSESendEvent' -count 6
func BenchmarkWriteJSONTask(b *testing.B) {
	s := &Server{cfg: Config{Logger: slog.Default()}}
	var v any = a2a.RPCReply{JSONRPC: "2.0", ID: json.RawMessage(`1`), Result: &a2a.SendMessageResponse{Task: encBenchTask()}}
	w := &encDiscard{h: http.Header{}}
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			writeJSONEncodingJSON(s, w, http.StatusOK, v)
		}
	})
	b.Run("appended", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s.writeJSON(w, http.StatusOK, v)
		}
	})
}

// encNoFast encodes as jsonrpcResponse does but has no fast encoder.
type encNoFast struct{ a2a.RPCReply }

// BenchmarkSSESendEvent is the final status event of a stream through
// sseWriter.send, against the encoding/json path.
func BenchmarkSSESendEvent(b *testing.B) {
	task := encBenchTask()
	env := a2a.RPCReply{JSONRPC: "2.0", ID: json.RawMessage(`1`), Result: &a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{
		TaskID: task.ID, ContextID: task.ContextID, Status: task.Status}}}
	for _, c := range []struct {
		name string
		ev   any
	}{{"encoding_json", encNoFast{env}}, {"appended", env}} {
		b.Run(c.name, func(b *testing.B) {
			sw := newSSEWriter(&encDiscard{h: http.Header{}}, 0, 0)
			b.ReportAllocs()
			for b.Loop() {
				if err := sw.send(c.ev); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
