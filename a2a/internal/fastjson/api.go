//go:build !bridge_nofastjson

package fastjson

import (
	"encoding/json"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// Enabled reports whether the hand-written paths are compiled in (false
// under the bridge_nofastjson build tag).
const Enabled = true

// DecodeRPCResponse is a2a.DecodeRPCResponse, by the hand-written decoder
// when the body is in the canonical form a server writes (decode.go).
func DecodeRPCResponse[T any](data []byte) (*a2a.RPCResponse[T], error) {
	if env, ok := fastDecodeRPCResponse[T](data); ok {
		return env, nil
	}
	return a2a.DecodeRPCResponse[T](data)
}

// EncodeRPCRequest is a2a.EncodeRPCRequest, with the SendMessage params a
// proxy sends on every call appended by hand (no reflection, no
// intermediate buffers); any other params, and any value the appenders
// refuse, go through encoding/json, which then gives its usual bytes or
// error.
func EncodeRPCRequest(id int64, method string, params any) ([]byte, error) {
	if p, ok := params.(*a2a.SendMessageRequest); ok && p != nil {
		if b, ok := appendClientSendRequest(make([]byte, 0, 512), id, method, p); ok {
			return b, nil
		}
	}
	return a2a.EncodeRPCRequest(id, method, params)
}

// Marshal is json.Marshal, by the hand-written encoders for the values
// AppendKnown knows.
func Marshal(v any) ([]byte, error) {
	if b, err := AppendKnown(nil, v); err == nil {
		return b, nil
	}
	return json.Marshal(v)
}

// Unmarshal is json.Unmarshal, by the hand-written decoder for a *Task,
// *Message, *StreamResponse or *SendMessageResponse in canonical form.
func Unmarshal(b []byte, v any) error {
	d := fastDec{b: b}
	switch x := v.(type) {
	case *a2a.Task:
		var t a2a.Task
		if d.task(&t) && d.end() {
			*x = t
			return nil
		}
	case *a2a.Message:
		var m a2a.Message
		if d.message(&m) && d.end() {
			*x = m
			return nil
		}
	case *a2a.StreamResponse:
		var r a2a.StreamResponse
		if d.streamResponse(&r) && d.end() {
			*x = r
			return nil
		}
	case *a2a.SendMessageResponse:
		var r a2a.SendMessageResponse
		if d.sendMessageResponse(&r) && d.end() {
			*x = r
			return nil
		}
	}
	return json.Unmarshal(b, v)
}

// SetRequestPathOffForTests turns the request fast path off (or back on),
// so that tests can compare the server's answers with and without it.
func SetRequestPathOffForTests(off bool) { fastRequestOff.Store(off) }
