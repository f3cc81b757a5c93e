package client

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// Legacy speaks an older protocol version to an agent (A2A 0.3:
// package a2a/v03) behind the 1.0 API of [Client]: each call is written in
// the older shape and its answer read back into the 1.0 types, in one
// place, so that callers of the client (the fronted-agent proxy, the MCP
// tools of exposed agents) do not know which version the agent speaks.
type Legacy interface {
	// RPCRequest is the older JSON-RPC method and params of a 1.0 call. A
	// call the version has no method for is an ErrUnsupportedOperation.
	RPCRequest(method string, params any) (string, any, error)
	// RPCResult reads the older result of a 1.0 method into out, a
	// pointer to the 1.0 result type of the method.
	RPCResult(method string, result json.RawMessage, out any) error
	// RPCEvent reads the result of an older stream event; nil, nil for an
	// event of a kind the version does not know (skipped).
	RPCEvent(result json.RawMessage) (*a2a.StreamResponse, error)
}

// WithLegacy makes the client speak an older protocol version to the
// agent through l: the interfaces considered are then those of major
// version 0 (HTTP+JSON ones only when l is a ClientLegacyREST), and no
// A2A-Version header is sent (its absence is
// how an older agent's peer is told apart). A card of an older version is
// read into a 1.0 AgentCard by the package that implements l.
func WithLegacy(l Legacy) Option {
	return func(c *clientConfig) { c.legacy = l }
}

// clientLegacyEnvelope is a JSON-RPC response of the older version, its
// result kept raw for the ClientLegacy to read.
type clientLegacyEnvelope struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *a2a.ErrorBody  `json:"error"`
}

// legacyRPCSend posts the older form of a call.
func (c *Client) legacyRPCSend(ctx context.Context, op clientOp, accept string) (int64, *http.Response, error) {
	method, params, err := c.legacy.RPCRequest(op.method, op.params)
	if err != nil {
		return 0, nil, err
	}
	id := c.nextID.Add(1)
	body, err := json.Marshal(a2a.RPCRequest{JSONRPC: "2.0", ID: id, Method: method, Params: params})
	if err != nil {
		return 0, nil, err
	}
	resp, err := c.send(ctx, http.MethodPost, c.base, body, accept)
	return id, resp, err
}

// legacyRPCCall runs a unary call in the older version.
func legacyRPCCall[T any](ctx context.Context, c *Client, op clientOp) (*T, error) {
	id, resp, err := c.legacyRPCSend(ctx, op, "application/json")
	if err != nil {
		return nil, &clientError{op: op.name, err: err}
	}
	defer resp.Body.Close()
	data, err := c.readBody(op.name, resp)
	if err != nil {
		return nil, err
	}
	env, err := decodeLegacyEnvelope(data)
	if err != nil {
		return nil, rpcUndecodable(op.name, resp, data, err)
	}
	if err := rpcEnvelopeError(op.name, resp, data, env.Error, env.ID, id); err != nil {
		return nil, err
	}
	out := new(T)
	if len(env.Result) == 0 || string(env.Result) == "null" {
		if op.emptyOK {
			return out, nil
		}
		return nil, clientBadResponse(op.name, "the response has neither result nor error")
	}
	if err := c.legacy.RPCResult(op.method, env.Result, out); err != nil {
		return nil, clientBadResponse(op.name, err.Error())
	}
	return out, nil
}

func decodeLegacyEnvelope(data []byte) (*clientLegacyEnvelope, error) {
	var env clientLegacyEnvelope
	if err := a2a.UnmarshalStrict(data, &env); err != nil {
		return nil, err
	}
	return &env, nil
}

// legacyRPCEvent reads one SSE event of the older JSON-RPC binding.
func legacyRPCEvent(l Legacy, op string, id int64, data []byte) (*a2a.StreamResponse, error) {
	env, err := decodeLegacyEnvelope(data)
	if err != nil {
		return nil, clientBadResponse(op, "an event is not a valid JSON-RPC response: "+err.Error())
	}
	if env.Error != nil {
		return nil, &clientError{op: op, err: env.Error.ToError(http.StatusOK)}
	}
	if !clientIDMatches(env.ID, id) {
		return nil, clientBadResponse(op, "an event's id does not match the request id")
	}
	if len(env.Result) == 0 || string(env.Result) == "null" {
		return nil, clientBadResponse(op, "an event has neither result nor error")
	}
	ev, err := l.RPCEvent(env.Result)
	if err != nil {
		return nil, clientBadResponse(op, "an event: "+err.Error())
	}
	if ev == nil || ev.Kind() == "" {
		clientSkipUnknown(op)
		return nil, nil
	}
	return ev, nil
}

// LegacyREST is a ClientLegacy that speaks the older version's
// HTTP+JSON binding too.
type LegacyREST interface {
	Legacy
	// RESTRequest is the older HTTP+JSON request of a 1.0 call: the verb,
	// the escaped path below the interface URL, the query and the body
	// (nil: none).
	RESTRequest(method string, params any) (verb, path string, q url.Values, body any, err error)
	// RESTResult reads the older body of a 1.0 method's answer into out.
	RESTResult(method string, body json.RawMessage, out any) error
	// RESTEvent reads an older stream event; nil, nil for an event of a
	// kind the version does not know.
	RESTEvent(data json.RawMessage) (*a2a.StreamResponse, error)
}

// legacyRESTSend sends the older HTTP+JSON form of a call.
func (c *Client) legacyRESTSend(ctx context.Context, op clientOp, accept string) (*http.Response, error) {
	lr := c.legacy.(LegacyREST)
	verb, path, q, body, err := lr.RESTRequest(op.method, op.params)
	if err != nil {
		return nil, err
	}
	var b []byte
	if body != nil {
		if b, err = json.Marshal(body); err != nil {
			return nil, err
		}
	}
	return c.send(ctx, verb, c.restURL("", path, q), b, accept)
}

// legacyRESTError reads an older HTTP+JSON error body, {"code", "message"}
// with a JSON-RPC code, or any A2A error body.
func legacyRESTError(op string, resp *http.Response, data []byte) error {
	var w struct {
		Code    *int   `json:"code"`
		Message string `json:"message"`
	}
	if json.Unmarshal(data, &w) == nil && w.Code != nil && *w.Code < 0 {
		return &clientError{op: op, err: a2a.ErrorFromWire(*w.Code, resp.StatusCode, w.Message, nil)}
	}
	return clientHTTPError(op, resp, data)
}

// legacyRESTCall runs a unary call over the older HTTP+JSON binding.
func legacyRESTCall[T any](ctx context.Context, c *Client, op clientOp) (*T, error) {
	resp, err := c.legacyRESTSend(ctx, op, "application/json")
	if err != nil {
		return nil, &clientError{op: op.name, err: err}
	}
	defer resp.Body.Close()
	data, err := c.readBody(op.name, resp)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, legacyRESTError(op.name, resp, data)
	}
	out := new(T)
	if len(bytes.TrimSpace(data)) == 0 {
		if op.emptyOK {
			return out, nil
		}
		return nil, clientBadResponse(op.name, "the response is empty")
	}
	if err := c.legacy.(LegacyREST).RESTResult(op.method, data, out); err != nil {
		return nil, clientBadResponse(op.name, err.Error())
	}
	return out, nil
}

// legacyRESTEvent reads one SSE event of the older HTTP+JSON binding.
func legacyRESTEvent(l Legacy, op string, data []byte) (*a2a.StreamResponse, error) {
	var w struct {
		Code    *int   `json:"code"`
		Message string `json:"message"`
	}
	if json.Unmarshal(data, &w) == nil && w.Code != nil && *w.Code < 0 {
		return nil, &clientError{op: op, err: a2a.ErrorFromWire(*w.Code, http.StatusOK, w.Message, nil)}
	}
	ev, err := l.(LegacyREST).RESTEvent(data)
	if err != nil {
		return nil, clientBadResponse(op, "an event: "+err.Error())
	}
	if ev == nil || ev.Kind() == "" {
		clientSkipUnknown(op)
		return nil, nil
	}
	return ev, nil
}
