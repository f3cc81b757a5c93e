//go:build !bridge_nofastjson

package fastjson

import (
	"encoding/json"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/internal/codectest"
)

// BenchmarkJSON measures the hot shapes three ways: impl=fast (the
// hand-written paths of this package), impl=v1 (encoding/json through
// package a2a: what the bridge_nofastjson build runs) and impl=v2
// (github.com/go-json-experiment/json with the options of v2_test.go;
// v2strict adds the strictjson check the request view needs for
// case-folded names). The figures are in docs/performance.md:
//
//	go test ./a2a/internal/fastjson -run '^$' -bench '^BenchmarkJSON$' -benchmem -count 5 | benchstat -col /impl -
func BenchmarkJSON(b *testing.B) {
	b.Run("shape=read-send-request", func(b *testing.B) {
		body := []byte(fastReqBenchBody)
		check := func(b *testing.B, r *a2a.SendMessageRequest) {
			if r.Message == nil || len(r.Message.Parts) != 1 {
				b.Fatal(r)
			}
		}
		b.Run("impl=fast", func(b *testing.B) {
			fastReqBench(b, ReadRPCRequest, ReadParams)
		})
		b.Run("impl=v1", func(b *testing.B) {
			fastReqBench(b, a2a.ParseRPCRequest, a2a.DecodeParams)
		})
		b.Run("impl=v2", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				r, err := v2ReadSendRequest(body)
				if err != nil {
					b.Fatal(err)
				}
				check(b, r)
			}
		})
		b.Run("impl=v2strict", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				r, err := v2ReadSendRequestStrict(body)
				if err != nil {
					b.Fatal(err)
				}
				check(b, r)
			}
		})
	})
	b.Run("shape=decode-send-response", func(b *testing.B) {
		body := []byte(fastBenchSendBody)
		for _, c := range []struct {
			impl string
			f    func([]byte) (*a2a.RPCResponse[a2a.SendMessageResponse], error)
		}{
			{"fast", DecodeRPCResponse[a2a.SendMessageResponse]},
			{"v1", a2a.DecodeRPCResponse[a2a.SendMessageResponse]},
			{"v2", v2DecodeRPCResponse[a2a.SendMessageResponse]},
			{"v2strict", v2DecodeSendResponseStrict},
		} {
			b.Run("impl="+c.impl, func(b *testing.B) {
				b.SetBytes(int64(len(body)))
				b.ReportAllocs()
				for b.Loop() {
					env, err := c.f(body)
					if err != nil || env.Result == nil || env.Result.Task == nil {
						b.Fatal(env, err)
					}
				}
			})
		}
	})
	task := benchTask(b)
	encodes := []struct {
		shape string
		v     any
	}{
		{"encode-send-reply", a2a.RPCReply{JSONRPC: "2.0", ID: json.RawMessage(`1`), Result: &a2a.SendMessageResponse{Task: task}}},
		{"encode-task", task},
		{"encode-message", &task.History[0]},
		{"encode-status-event", a2a.RPCReply{JSONRPC: "2.0", ID: json.RawMessage(`1`), Result: &a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: task.ID, ContextID: task.ContextID, Status: task.Status}}}},
		{"encode-full-task", codectest.FullTask()},
	}
	for _, e := range encodes {
		b.Run("shape="+e.shape, func(b *testing.B) {
			for _, c := range []struct {
				impl string
				f    func(any) ([]byte, error)
			}{
				{"fast", func(v any) ([]byte, error) { return AppendKnown(make([]byte, 0, 1024), v) }},
				{"v1", json.Marshal},
				{"v2", v2Marshal},
			} {
				b.Run("impl="+c.impl, func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						out, err := c.f(e.v)
						if err != nil || len(out) == 0 {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
	b.Run("shape=encode-send-request", func(b *testing.B) {
		p := &a2a.SendMessageRequest{Message: &a2a.Message{MessageID: "wrk-1", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hello from the benchmark")}}}
		for _, c := range []struct {
			impl string
			f    func(int64, string, any) ([]byte, error)
		}{
			{"fast", EncodeRPCRequest},
			{"v1", a2a.EncodeRPCRequest},
			{"v2", v2EncodeRPCRequest},
		} {
			b.Run("impl="+c.impl, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					out, err := c.f(1, a2a.MethodSendMessage, p)
					if err != nil || len(out) == 0 {
						b.Fatal(err)
					}
				}
			})
		}
	})
}

// benchTask is the task the benchmark's upstream answers with.
func benchTask(tb testing.TB) *a2a.Task {
	tb.Helper()
	env, err := a2a.DecodeRPCResponse[a2a.SendMessageResponse]([]byte(fastBenchSendBody))
	if err != nil || env.Result == nil || env.Result.Task == nil {
		tb.Fatal(env, err)
	}
	return env.Result.Task
}
