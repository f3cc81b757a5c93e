package a2a

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"

	"github.com/a2a-mcp-bridge/bridge/internal/strictjson"
)

// jsonrpcRequest is a JSON-RPC 2.0 request envelope as received.
type jsonrpcRequest struct {
	JSONRPC *string         `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// jsonrpcResponse is a JSON-RPC 2.0 response envelope.
type jsonrpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *jsonrpcError   `json:"error,omitempty"`
}

type jsonrpcError struct {
	Code    int              `json:"code"`
	Message string           `json:"message"`
	Data    []map[string]any `json:"data,omitempty"`
}

var nullID = json.RawMessage("null")

// parseRPCRequest decodes and validates an envelope. It returns the id to
// answer with even when the request is invalid.
func parseRPCRequest(body []byte) (*jsonrpcRequest, json.RawMessage, error) {
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
	var req jsonrpcRequest
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

// newParams returns a fresh request message for method, and whether the
// method streams.
func newParams(method string) (any, bool, bool) {
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

// decodeParams decodes params into p, with errors that name the field.
func decodeParams(raw []byte, p any) error {
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
			e = e.withViolation(se.Path(), strictReason(se))
		}
		return e
	}
	return nil
}

// envelopeSchema is the JSON-RPC request envelope; its params are checked
// again, against the method's own type, by decodeParams.
var envelopeSchema = strictjson.For(reflect.TypeFor[jsonrpcRequest](), strictjson.Options{})

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
			e = e.withViolation(strings.TrimPrefix(strings.TrimPrefix(p, "params"), "."), strictReason(se))
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

func (s *Server) serveJSONRPC(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		s.writeRPCError(w, nil, ErrInvalidRequest.With("JSON-RPC requests are sent with POST").status(http.StatusMethodNotAllowed))
		return
	}
	if err := checkContentType(r); err != nil {
		s.writeRPCError(w, nil, err)
		return
	}
	body, err := s.readBody(w, r)
	if err != nil {
		s.writeRPCError(w, nil, err)
		return
	}
	req, id, err := readRPCRequest(body)
	if err != nil {
		s.writeRPCError(w, id, err)
		return
	}
	if s.legacyRPC(r, *req.Method) {
		s.serveLegacyRPC(w, r, id, *req.Method, req.Params, int64(len(body)))
		return
	}
	if err := s.checkVersion(r); err != nil {
		s.writeRPCError(w, id, err)
		return
	}
	params, streaming, ok := newParams(*req.Method)
	if !ok {
		s.writeRPCError(w, id, ErrMethodNotFound.Withf("method %q not found", truncate([]byte(*req.Method), 64)))
		return
	}
	if err := readParams(req.Params, params); err != nil {
		s.writeRPCError(w, id, err)
		return
	}
	if err := checkView(params); err != nil {
		s.writeRPCError(w, id, err)
		return
	}
	call := newCall(r, *req.Method, BindingJSONRPC, params)
	call.bodyRead = int64(len(body))
	s.setWriteDeadline(w, 0)
	if streaming {
		s.streamRPC(w, r, id, call)
		return
	}
	res, err := s.dispatch(r.Context(), call)
	if err != nil {
		s.writeRPCError(w, id, err)
		return
	}
	s.writeJSON(w, http.StatusOK, jsonrpcResponse{JSONRPC: "2.0", ID: id, Result: res})
}

func (s *Server) streamRPC(w http.ResponseWriter, r *http.Request, id json.RawMessage, call *Call) {
	run, err := s.openStream(r.Context(), call)
	if err != nil {
		s.writeRPCError(w, id, err)
		return
	}
	s.serveStream(w, r, call.bodyRead, run, func(ev *StreamResponse) any {
		return jsonrpcResponse{JSONRPC: "2.0", ID: id, Result: ev}
	}, func(w http.ResponseWriter, err error) {
		s.writeRPCError(w, id, err)
	}, func(err error) any {
		e := s.loggedError(err)
		return jsonrpcResponse{JSONRPC: "2.0", ID: id, Error: &jsonrpcError{Code: e.Code, Message: e.Message, Data: e.details()}}
	})
}

// loggedError converts err for the wire, logging what the caller won't see.
// A call that ended because its client went away (context.Canceled: the
// connection closed, the stream was cancelled) is logged as such, at Info:
// it is not a failure of the server.
func (s *Server) loggedError(err error) *Error {
	e := AsError(err)
	if e == ErrInternal {
		if errors.Is(err, context.Canceled) {
			s.cfg.Logger.Info("a2a: client disconnected before the response")
			return e
		}
		s.cfg.Logger.Error("a2a: request failed", "err", err)
	}
	return e
}

func (s *Server) writeRPCError(w http.ResponseWriter, id json.RawMessage, err error) {
	if id == nil {
		id = nullID
	}
	e := s.loggedError(err)
	copyHeader(w.Header(), e.Header)
	status := http.StatusOK
	if e.Status != 0 || e.Code <= -31000 && e.Code > -32000 {
		status = e.HTTPStatus(s.cfg.ErrorTable)
	}
	s.writeJSON(w, status, jsonrpcResponse{JSONRPC: "2.0", ID: id, Error: &jsonrpcError{Code: e.Code, Message: e.Message, Data: e.details()}})
}

func (s *Server) writeJSON(w http.ResponseWriter, status int, v any) {
	// Encoded into a pooled buffer (the bytes json.Marshal would return,
	// without its copy of them): by hand for the frequent results, else,
	// and whenever that fails, by encoding/json, which logs the error.
	e := getEncoder()
	defer putEncoder(e)
	body, ok := e.appendKnown("", v, "")
	if !ok {
		if err := e.enc.Encode(v); err != nil {
			s.cfg.Logger.Error("a2a: encode response", "err", err)
			status = http.StatusInternalServerError
			body = []byte(`{"error":{"code":500,"status":"INTERNAL","message":"internal error"}}`)
		} else {
			body = bytes.TrimSuffix(e.buf.Bytes(), []byte("\n")) // Encode ends with a newline; Marshal does not
		}
	}
	s.setWriteDeadline(w, s.cfg.WriteTimeout)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func copyHeader(dst, src http.Header) {
	for k, vs := range src {
		dst[k] = append([]string(nil), vs...)
	}
}
