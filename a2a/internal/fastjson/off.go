//go:build bridge_nofastjson

package fastjson

import (
	"encoding/json"
	"errors"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// The bridge_nofastjson build tag leaves the hand-written paths out: every
// function below is the encoding/json path of package a2a.

// Enabled reports whether the hand-written paths are compiled in.
const Enabled = false

// errNotKnown says a value has no hand-written encoder: with the tag, none has.
var errNotKnown = errors.New("fastjson: no fast encoder for this value")

// DecodeRPCResponse is a2a.DecodeRPCResponse.
func DecodeRPCResponse[T any](data []byte) (*a2a.RPCResponse[T], error) {
	return a2a.DecodeRPCResponse[T](data)
}

// EncodeRPCRequest is a2a.EncodeRPCRequest.
func EncodeRPCRequest(id int64, method string, params any) ([]byte, error) {
	return a2a.EncodeRPCRequest(id, method, params)
}

// ReadRPCRequest is a2a.ParseRPCRequest.
func ReadRPCRequest(body []byte) (*a2a.RPCEnvelope, json.RawMessage, error) {
	return a2a.ParseRPCRequest(body)
}

// ReadParams is a2a.DecodeParams.
func ReadParams(raw []byte, p any) error { return a2a.DecodeParams(raw, p) }

// AppendKnown knows no value: the caller encodes with encoding/json.
func AppendKnown(dst []byte, v any) ([]byte, error) { return dst, errNotKnown }

// Marshal is json.Marshal.
func Marshal(v any) ([]byte, error) { return json.Marshal(v) }

// Unmarshal is json.Unmarshal.
func Unmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// SetRequestPathOffForTests does nothing: there is no fast path to turn off.
func SetRequestPathOffForTests(bool) {}
