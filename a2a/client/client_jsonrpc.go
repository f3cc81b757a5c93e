package client

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/internal/fastjson"
)

// rpcSend posts a JSON-RPC request with a fresh id to the interface URL.
func (c *Client) rpcSend(ctx context.Context, op clientOp, accept string) (int64, *http.Response, error) {
	id := c.nextID.Add(1)
	body, err := fastjson.EncodeRPCRequest(id, op.method, op.params)
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
	env, err := fastjson.DecodeRPCResponse[T](data)
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
func rpcEnvelopeError(op string, resp *http.Response, data []byte, wire *a2a.ErrorBody, gotID json.RawMessage, id int64) error {
	if wire != nil {
		return &clientError{op: op, err: wire.ToError(resp.StatusCode)}
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
func clientRPCEvent(op string, id int64, data []byte) (*a2a.StreamResponse, error) {
	env, err := fastjson.DecodeRPCResponse[a2a.StreamResponse](data)
	if err != nil {
		return nil, clientBadResponse(op, "an event is not a valid JSON-RPC response: "+err.Error())
	}
	if env.Error != nil {
		return nil, &clientError{op: op, err: env.Error.ToError(http.StatusOK)}
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
