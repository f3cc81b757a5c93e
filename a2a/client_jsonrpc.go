package a2a

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
)

// clientRPCRequest is a JSON-RPC 2.0 request sent by the client.
type clientRPCRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// clientRPCResponse is a JSON-RPC 2.0 response with a result of type T.
type clientRPCResponse[T any] struct {
	ID     json.RawMessage  `json:"id"`
	Result *T               `json:"result"`
	Error  *clientWireError `json:"error"`
}

// rpcResponseIn is a JSON-RPC response whose result is read in its wire
// form W, in the same pass as the envelope.
type rpcResponseIn[W any] struct {
	ID     json.RawMessage  `json:"id"`
	Result *W               `json:"result"`
	Error  *clientWireError `json:"error"`
}

// decodeRPCResponse decodes a JSON-RPC response with a result of type T.
// The results of the hot calls (a send's answer, a task, a stream event)
// are read by the fast decoder of codec_fastdecode.go when the body is in
// the canonical form a server writes; it declines anything else, which is
// then read by slowDecodeRPCResponse. Either way the result and the errors
// are the same.
func decodeRPCResponse[T any](data []byte) (*clientRPCResponse[T], error) {
	if env, ok := fastDecodeRPCResponse[T](data); ok {
		return env, nil
	}
	return slowDecodeRPCResponse[T](data)
}

// slowDecodeRPCResponse decodes a JSON-RPC response with encoding/json.
// The results of the hot calls are read in one pass with the envelope:
// decoding into T itself would scan the result a second time in T's
// UnmarshalJSON.
func slowDecodeRPCResponse[T any](data []byte) (*clientRPCResponse[T], error) {
	switch any((*T)(nil)).(type) {
	case *SendMessageResponse:
		return decodeRPCResponseIn[T](data, func(w *sendMessageResponseIn, r *SendMessageResponse) error { return w.response(r) })
	case *Task:
		return decodeRPCResponseIn[T](data, func(w *taskIn, t *Task) error { return w.task(t) })
	case *StreamResponse:
		return decodeRPCResponseIn[T](data, func(w *streamIn, r *StreamResponse) error { return w.stream(r) })
	}
	var env clientRPCResponse[T]
	if err := unmarshalStrict(data, &env); err != nil {
		return nil, err
	}
	return &env, nil
}

// decodeRPCResponseIn decodes the envelope with the result in its wire
// form W and converts the result into V, which is T.
func decodeRPCResponseIn[T, W, V any](data []byte, conv func(*W, *V) error) (*clientRPCResponse[T], error) {
	var in rpcResponseIn[W]
	if err := unmarshalStrict(data, &in); err != nil {
		return nil, err
	}
	env := &clientRPCResponse[T]{ID: in.ID, Error: in.Error}
	if in.Result != nil {
		v := new(V)
		if err := conv(in.Result, v); err != nil {
			return nil, err
		}
		env.Result = any(v).(*T)
	}
	return env, nil
}

// rpcSend posts a JSON-RPC request with a fresh id to the interface URL.
func (c *Client) rpcSend(ctx context.Context, op clientOp, accept string) (int64, *http.Response, error) {
	id := c.nextID.Add(1)
	body, err := encodeClientRPCRequest(id, op.method, op.params)
	if err != nil {
		return 0, nil, err
	}
	resp, err := c.send(ctx, http.MethodPost, c.base, body, accept)
	return id, resp, err
}

// clientRPCCall runs a unary JSON-RPC call.
func clientRPCCall[T any](ctx context.Context, c *Client, op clientOp) (*T, error) {
	id, resp, err := c.rpcSend(ctx, op, "application/json")
	if err != nil {
		return nil, &clientError{op: op.name, err: err}
	}
	defer resp.Body.Close()
	data, err := c.readBody(op.name, resp)
	if err != nil {
		return nil, err
	}
	env, err := decodeRPCResponse[T](data)
	if err != nil {
		return nil, rpcUndecodable(op.name, resp, data, err)
	}
	if err := rpcEnvelopeError(op.name, resp, data, env.Error, env.ID, id); err != nil {
		return nil, err
	}
	if env.Result == nil {
		if op.emptyOK {
			return new(T), nil
		}
		return nil, clientBadResponse(op.name, "the response has neither result nor error")
	}
	return env.Result, nil
}

// rpcUndecodable is the error of a unary JSON-RPC answer that is not a
// response envelope: the HTTP error when the status says one, else a bad
// response.
func rpcUndecodable(op string, resp *http.Response, data []byte, err error) error {
	if resp.StatusCode/100 != 2 {
		return clientHTTPError(op, resp, data)
	}
	return clientBadResponse(op, "the response is not a valid JSON-RPC response: "+err.Error())
}

// rpcEnvelopeError checks a decoded unary JSON-RPC response envelope (of
// either version): the error it carries, an HTTP error status, or an id
// that is not the request's; nil when its result may be read.
func rpcEnvelopeError(op string, resp *http.Response, data []byte, wire *clientWireError, gotID json.RawMessage, id int64) error {
	if wire != nil {
		return &clientError{op: op, err: wire.toError(resp.StatusCode)}
	}
	if resp.StatusCode/100 != 2 {
		return clientHTTPError(op, resp, data)
	}
	if !clientIDMatches(gotID, id) {
		return clientBadResponse(op, "the response id does not match the request id")
	}
	return nil
}

// clientRPCEvent decodes one SSE event of the JSON-RPC binding: a response
// envelope whose result is a StreamResponse. It returns nil, nil for an
// event of unknown kind.
func clientRPCEvent(op string, id int64, data []byte) (*StreamResponse, error) {
	env, err := decodeRPCResponse[StreamResponse](data)
	if err != nil {
		return nil, clientBadResponse(op, "an event is not a valid JSON-RPC response: "+err.Error())
	}
	if env.Error != nil {
		return nil, &clientError{op: op, err: env.Error.toError(http.StatusOK)}
	}
	if !clientIDMatches(env.ID, id) {
		return nil, clientBadResponse(op, "an event's id does not match the request id")
	}
	if env.Result == nil {
		return nil, clientBadResponse(op, "an event has neither result nor error")
	}
	if env.Result.Kind() == "" {
		clientSkipUnknown(op)
		return nil, nil
	}
	return env.Result, nil
}

// clientIDMatches reports whether a response id is the request's id, sent
// back as a number or, leniently, as a string of the same digits.
func clientIDMatches(raw json.RawMessage, id int64) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		raw = raw[1 : len(raw)-1]
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil && n == id
}
