package a2a

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/a2a-mcp-bridge/bridge/internal/strictjson"
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

// DecodeRPCResponse decodes a JSON-RPC response with a result of type T,
// strictly (UnmarshalStrict), with encoding/json. The results of the hot
// calls (a send's answer, a task, a stream event) are read in one pass with
// the envelope: decoding into T itself would scan the result a second time
// in T's UnmarshalJSON. (a2a/internal/fastjson reads the canonical form of
// these faster, with the same results and errors.)
func DecodeRPCResponse[T any](data []byte) (*RPCResponse[T], error) {
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

// EncodeRPCRequest returns the body of a JSON-RPC request,
// RPCRequest{"2.0", id, method, params}, as json.Marshal writes it.
// (a2a/internal/fastjson appends the SendMessage params by hand, to the
// same bytes.)
func EncodeRPCRequest(id int64, method string, params any) ([]byte, error) {
	return json.Marshal(RPCRequest{JSONRPC: "2.0", ID: id, Method: method, Params: params})
}

// RPCEnvelope is a JSON-RPC 2.0 request envelope as received.
type RPCEnvelope struct {
	JSONRPC *string         `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// RPCReply is a JSON-RPC 2.0 response envelope.
type RPCReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *RPCReplyError  `json:"error,omitempty"`
}

type RPCReplyError struct {
	Code    int              `json:"code"`
	Message string           `json:"message"`
	Data    []map[string]any `json:"data,omitempty"`
}

var nullID = json.RawMessage("null")

// ParseRPCRequest decodes and validates an envelope. It returns the id to
// answer with even when the request is invalid.
func ParseRPCRequest(body []byte) (*RPCEnvelope, json.RawMessage, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil, nullID, ErrInvalidRequest.With("empty request body")
	}
	// One reading of the whole body (strictjson): a member of the envelope
	// spelled in another case ("Method"), a duplicate member anywhere (two
	// "method"s, two "id"s, two "tool"s in a data part) or invalid UTF-8
	// would let readers disagree on what was asked, so none is served.
	if err := envelopeSchema.Check(trimmed); err != nil {
		return nil, nullID, envelopeError(err)
	}
	if trimmed[0] == '[' {
		return nil, nullID, ErrInvalidRequest.With("JSON-RPC batches are not supported")
	}
	if trimmed[0] != '{' {
		return nil, nullID, ErrInvalidRequest.With("request must be a JSON object")
	}
	var req RPCEnvelope
	if err := json.Unmarshal(trimmed, &req); err != nil {
		return nil, nullID, ErrInvalidRequest.Withf("malformed request envelope: %s", jsonErrorText(err))
	}
	id := req.ID
	if len(id) == 0 {
		return nil, nullID, ErrInvalidRequest.With("request id is required")
	}
	switch id[0] {
	case '"', 'n':
	default:
		if id[0] != '-' && (id[0] < '0' || id[0] > '9') {
			return nil, nullID, ErrInvalidRequest.With("request id must be a string, a number or null")
		}
	}
	if req.JSONRPC == nil || *req.JSONRPC != "2.0" {
		return nil, id, ErrInvalidRequest.With(`"jsonrpc" must be "2.0"`)
	}
	if req.Method == nil || *req.Method == "" {
		return nil, id, ErrInvalidRequest.With(`"method" must be a non-empty string`)
	}
	if len(req.Params) > 0 && req.Params[0] != '{' && string(req.Params) != "null" {
		return nil, id, ErrInvalidParams.With(`"params" must be an object`)
	}
	return &req, id, nil
}

// NewParams returns a fresh request message for method, and whether the
// method streams.
func NewParams(method string) (any, bool, bool) {
	switch method {
	case MethodSendMessage:
		return &SendMessageRequest{}, false, true
	case MethodSendStreamingMessage:
		return &SendMessageRequest{}, true, true
	case MethodGetTask:
		return &GetTaskRequest{}, false, true
	case MethodListTasks:
		return &ListTasksRequest{}, false, true
	case MethodCancelTask:
		return &CancelTaskRequest{}, false, true
	case MethodSubscribeToTask:
		return &SubscribeToTaskRequest{}, true, true
	case MethodCreatePushConfig:
		return &TaskPushNotificationConfig{}, false, true
	case MethodGetPushConfig:
		return &GetTaskPushNotificationConfigRequest{}, false, true
	case MethodListPushConfigs:
		return &ListTaskPushNotificationConfigsRequest{}, false, true
	case MethodDeletePushConfig:
		return &DeleteTaskPushNotificationConfigRequest{}, false, true
	case MethodGetExtendedAgentCard:
		return &GetExtendedAgentCardRequest{}, false, true
	}
	return nil, false, false
}

// DecodeParams decodes params into p, with errors that name the field.
func DecodeParams(raw []byte, p any) error {
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	raw, err := normalizeFieldNames(raw)
	if err != nil {
		return ErrInvalidParams.Withf("invalid params: %s", jsonErrorText(err))
	}
	if r, ok := p.(*SendMessageRequest); ok {
		// The most frequent request, decoded in one pass.
		err = decodeSendMessageRequest(raw, r)
	} else {
		err = UnmarshalStrict(raw, p)
	}
	if err != nil {
		e := ErrInvalidParams.Withf("invalid params: %s", jsonErrorText(err))
		if se, ok := strictError(err); ok && se.Path() != "" {
			e = e.WithViolation(se.Path(), strictReason(se))
		}
		return e
	}
	return nil
}

// envelopeSchema is the JSON-RPC request envelope; its params are checked
// again, against the method's own type, by decodeParams.
var envelopeSchema = strictjson.For(reflect.TypeFor[RPCEnvelope](), strictjson.Options{})

// envelopeError is the error of a body that has no single reading: invalid
// UTF-8 is not JSON text (RFC 8259 §8.1: -32700); a duplicate or
// case-folded member of the envelope makes the request ambiguous
// (-32600), of the params the params (-32602).
func envelopeError(err error) error {
	se, ok := strictError(err)
	if !ok {
		return ErrParse.With("request body is not valid JSON")
	}
	switch {
	case se.Kind == strictjson.KindInvalidUTF8:
		return ErrParse.With("request body is not valid JSON: it holds invalid UTF-8 or a lone surrogate escape")
	case strings.HasPrefix(se.Pointer, "/params"):
		e := ErrInvalidParams.Withf("invalid params: %s", jsonErrorText(err))
		if p := se.Path(); p != "" {
			e = e.WithViolation(strings.TrimPrefix(strings.TrimPrefix(p, "params"), "."), strictReason(se))
		}
		return e
	}
	return ErrInvalidRequest.Withf("malformed request envelope: %s", jsonErrorText(err))
}

// strictReason is the violation description of a strictjson refusal.
func strictReason(se *strictjson.Error) string {
	switch se.Kind {
	case strictjson.KindDuplicate:
		return "appears twice"
	case strictjson.KindCaseFold:
		return fmt.Sprintf("member names are case-sensitive: write %q", se.Field)
	}
	return "invalid UTF-8 or a lone surrogate escape"
}

// jsonErrorText describes a decoding error without Go type names.
func jsonErrorText(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	if st, ok := strictError(err); ok {
		switch st.Kind {
		case strictjson.KindDuplicate:
			return fmt.Sprintf("member %s appears twice", st.Path())
		case strictjson.KindCaseFold:
			return fmt.Sprintf("member %s: member names are case-sensitive: write %q", st.Path(), st.Field)
		}
		if p := st.Path(); p != "" {
			return "invalid UTF-8 or a lone surrogate escape in " + p
		}
		return "invalid UTF-8 or a lone surrogate escape"
	}
	switch {
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "value"
		}
		return fmt.Sprintf("field %s: expected %s, got %s", field, jsonKind(te.Type.Kind().String()), te.Value)
	case errors.As(err, &se):
		return fmt.Sprintf("syntax error at byte %d", se.Offset)
	}
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "json: ")
	if len(msg) > 200 {
		msg = msg[:200]
	}
	return msg
}

func jsonKind(k string) string {
	switch k {
	case "struct", "map":
		return "object"
	case "slice", "array":
		return "array"
	case "int", "int32", "int64", "uint", "uint32", "uint64", "float32", "float64":
		return "number"
	case "ptr":
		return "value"
	}
	return k
}

// Method names of A2A 1.0 (JSON-RPC method = gRPC method).
const (
	MethodSendMessage          = "SendMessage"
	MethodSendStreamingMessage = "SendStreamingMessage"
	MethodGetTask              = "GetTask"
	MethodListTasks            = "ListTasks"
	MethodCancelTask           = "CancelTask"
	MethodSubscribeToTask      = "SubscribeToTask"
	MethodCreatePushConfig     = "CreateTaskPushNotificationConfig"
	MethodGetPushConfig        = "GetTaskPushNotificationConfig"
	MethodListPushConfigs      = "ListTaskPushNotificationConfigs"
	MethodDeletePushConfig     = "DeleteTaskPushNotificationConfig"
	MethodGetExtendedAgentCard = "GetExtendedAgentCard"
)
