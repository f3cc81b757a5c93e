package a2a

import (
	"encoding/json"
	"strconv"
)

// The JSON-RPC 2.0 envelopes as a client writes and reads them: the
// request it sends, and the response it decodes, whose error member
// (ErrorBody) is also the error body of the HTTP+JSON binding. The server's
// side of the binding lives in package server.

// RPCRequest is a JSON-RPC 2.0 request sent by the client.
type RPCRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// RPCResponse is a JSON-RPC 2.0 response, as a client reads it, with a
// result of type T.
type RPCResponse[T any] struct {
	ID     json.RawMessage `json:"id"`
	Result *T              `json:"result"`
	Error  *ErrorBody      `json:"error"`
}

// rpcResponseIn is a JSON-RPC response whose result is read in its wire
// form W, in the same pass as the envelope.
type rpcResponseIn[W any] struct {
	ID     json.RawMessage `json:"id"`
	Result *W              `json:"result"`
	Error  *ErrorBody      `json:"error"`
}

// DecodeRPCResponse decodes a JSON-RPC response with a result of type T.
// The results of the hot calls (a send's answer, a task, a stream event)
// are read by the fast decoder of codec_fastdecode.go when the body is in
// the canonical form a server writes; it declines anything else, which is
// then read by slowDecodeRPCResponse. Either way the result and the errors
// are the same.
func DecodeRPCResponse[T any](data []byte) (*RPCResponse[T], error) {
	if env, ok := fastDecodeRPCResponse[T](data); ok {
		return env, nil
	}
	return slowDecodeRPCResponse[T](data)
}

// slowDecodeRPCResponse decodes a JSON-RPC response with encoding/json.
// The results of the hot calls are read in one pass with the envelope:
// decoding into T itself would scan the result a second time in T's
// UnmarshalJSON.
func slowDecodeRPCResponse[T any](data []byte) (*RPCResponse[T], error) {
	switch any((*T)(nil)).(type) {
	case *SendMessageResponse:
		return decodeRPCResponseIn[T](data, func(w *sendMessageResponseIn, r *SendMessageResponse) error { return w.response(r) })
	case *Task:
		return decodeRPCResponseIn[T](data, func(w *taskIn, t *Task) error { return w.task(t) })
	case *StreamResponse:
		return decodeRPCResponseIn[T](data, func(w *streamIn, r *StreamResponse) error { return w.stream(r) })
	}
	var env RPCResponse[T]
	if err := UnmarshalStrict(data, &env); err != nil {
		return nil, err
	}
	return &env, nil
}

// decodeRPCResponseIn decodes the envelope with the result in its wire
// form W and converts the result into V, which is T.
func decodeRPCResponseIn[T, W, V any](data []byte, conv func(*W, *V) error) (*RPCResponse[T], error) {
	var in rpcResponseIn[W]
	if err := UnmarshalStrict(data, &in); err != nil {
		return nil, err
	}
	env := &RPCResponse[T]{ID: in.ID, Error: in.Error}
	if in.Result != nil {
		v := new(V)
		if err := conv(in.Result, v); err != nil {
			return nil, err
		}
		env.Result = any(v).(*T)
	}
	return env, nil
}

// ErrorBody is the error member of both bindings: JSON-RPC
// {code, message, data[]} and google.rpc.Status {code, status, message,
// details[]}.
type ErrorBody struct {
	Code    int             `json:"code"`
	Status  string          `json:"status"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
	Details json.RawMessage `json:"details"`
}

// ToError maps the wire error to an *Error. JSON-RPC codes are negative;
// REST codes are HTTP statuses, and the response's status wins over the
// body's when the response is an error.
func (w *ErrorBody) ToError(httpStatus int) *Error {
	raw := w.Details
	if len(raw) == 0 {
		raw = w.Data
	}
	var details []map[string]any
	if len(raw) > 0 && json.Unmarshal(raw, &details) != nil {
		details = nil // data of another shape: ignored
	}
	if w.Code < 0 {
		return ErrorFromWire(w.Code, httpStatus, w.Message, details)
	}
	status := httpStatus
	if status/100 == 2 || status == 0 {
		status = w.Code
	}
	return ErrorFromWire(0, status, w.Message, details)
}

// EncodeRPCRequest returns the body json.Marshal writes for
// RPCRequest{"2.0", id, method, params}. The SendMessage params a
// proxy sends on every call are appended by hand (no reflection, no
// intermediate buffers); any other params, and any value the appenders
// refuse, go through json.Marshal, which then gives its usual bytes or
// error.
func EncodeRPCRequest(id int64, method string, params any) ([]byte, error) {
	if p, ok := params.(*SendMessageRequest); ok && p != nil {
		if b, ok := appendClientSendRequest(make([]byte, 0, 512), id, method, p); ok {
			return b, nil
		}
	}
	return json.Marshal(RPCRequest{JSONRPC: "2.0", ID: id, Method: method, Params: params})
}

// appendClientSendRequest appends the request with SendMessageRequest
// params; ok is false when it cannot (a push config, which it leaves to
// json.Marshal, or a value the appenders refuse).
func appendClientSendRequest(dst []byte, id int64, method string, p *SendMessageRequest) (_ []byte, ok bool) {
	cfg := p.Configuration
	if cfg != nil && cfg.TaskPushNotificationConfig != nil {
		return dst, false
	}
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = strconv.AppendInt(dst, id, 10)
	dst = append(dst, `,"method":`...)
	dst = appendString(dst, method)
	dst = append(dst, `,"params":{`...)
	if p.Tenant != "" {
		dst = append(dst, `"tenant":`...)
		dst = appendString(dst, p.Tenant)
		dst = append(dst, ',')
	}
	dst = append(dst, `"message":`...)
	if p.Message == nil {
		dst = append(dst, "null"...)
	} else {
		var err error
		if dst, err = appendMessage(dst, p.Message); err != nil {
			return dst, false
		}
	}
	if cfg != nil {
		dst = append(dst, `,"configuration":{`...)
		n := len(dst)
		dst = appendStrings(dst, `"acceptedOutputModes":`, cfg.AcceptedOutputModes)
		if cfg.HistoryLength != nil {
			if len(dst) > n {
				dst = append(dst, ',')
			}
			dst = append(dst, `"historyLength":`...)
			dst = strconv.AppendInt(dst, int64(*cfg.HistoryLength), 10)
		}
		if cfg.ReturnImmediately {
			if len(dst) > n {
				dst = append(dst, ',')
			}
			dst = append(dst, `"returnImmediately":true`...)
		}
		dst = append(dst, '}')
	}
	var err error
	if dst, err = appendMetadata(dst, `,"metadata":`, p.Metadata); err != nil {
		return dst, false
	}
	return append(dst, "}}"...), true
}
