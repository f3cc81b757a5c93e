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

// rpcSend posts a JSON-RPC request with a fresh id to the interface URL.
func (c *Client) rpcSend(ctx context.Context, op clientOp, accept string) (int64, *http.Response, error) {
	id := c.nextID.Add(1)
	body, err := json.Marshal(clientRPCRequest{JSONRPC: "2.0", ID: id, Method: op.method, Params: op.params})
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
	var env clientRPCResponse[T]
	if err := json.Unmarshal(data, &env); err != nil {
		if resp.StatusCode/100 != 2 {
			return nil, clientHTTPError(op.name, resp, data)
		}
		return nil, clientBadResponse(op.name, "the response is not a valid JSON-RPC response: "+err.Error())
	}
	if env.Error != nil {
		return nil, &clientError{op: op.name, err: env.Error.toError(resp.StatusCode)}
	}
	if resp.StatusCode/100 != 2 {
		return nil, clientHTTPError(op.name, resp, data)
	}
	if !clientIDMatches(env.ID, id) {
		return nil, clientBadResponse(op.name, "the response id does not match the request id")
	}
	if env.Result == nil {
		if op.emptyOK {
			return new(T), nil
		}
		return nil, clientBadResponse(op.name, "the response has neither result nor error")
	}
	return env.Result, nil
}

// clientRPCEvent decodes one SSE event of the JSON-RPC binding: a response
// envelope whose result is a StreamResponse. It returns nil, nil for an
// event of unknown kind.
func clientRPCEvent(op string, id int64, data []byte) (*StreamResponse, error) {
	var env clientRPCResponse[StreamResponse]
	if err := json.Unmarshal(data, &env); err != nil {
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
