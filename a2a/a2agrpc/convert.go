package a2agrpc

import (
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
)

// The bridge's wire types and the generated messages meet at ProtoJSON:
// the a2a package's codec is proven against protojson on the same proto
// (a2a's differential tests), so a message converted through it means
// exactly what it meant on the wire, and an inbound request is decoded by
// the one strict decoder every binding shares.

var (
	marshalPB   = protojson.MarshalOptions{}
	unmarshalPB = protojson.UnmarshalOptions{}
)

// decodeRequest turns a request message of method into the a2a request
// the server core serves.
func decodeRequest(method string, req proto.Message) (any, error) {
	raw, err := marshalPB.Marshal(req)
	if err != nil {
		// A string field holding invalid UTF-8, an out-of-range value.
		return nil, a2a.ErrInvalidParams.With("invalid params: the request message cannot be read as A2A")
	}
	params, _, err := server.DecodeRequest(method, raw)
	return params, err
}

// encodeMessage fills m from v, an a2a value of the type m's ProtoJSON
// form is (a2a.Task for pb.Task…).
func encodeMessage(v any, m proto.Message) error {
	if ok, err := toPB(v, m); ok || err != nil {
		return err
	}
	return encodeMessageJSON(v, m)
}

// encodeMessageJSON is encodeMessage through the ProtoJSON form.
func encodeMessageJSON(v any, m proto.Message) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("a2agrpc: encode %T: %w", v, err)
	}
	if err := unmarshalPB.Unmarshal(raw, m); err != nil {
		return fmt.Errorf("a2agrpc: convert %T: %w", v, err)
	}
	return nil
}

// decodeMessage fills v, an a2a value, from m (the client's direction).
func decodeMessage(m proto.Message, v any) error {
	if fromPB(m, v) {
		return nil
	}
	return decodeMessageJSON(m, v)
}

// decodeMessageJSON is decodeMessage through the ProtoJSON form.
func decodeMessageJSON(m proto.Message, v any) error {
	raw, err := marshalPB.Marshal(m)
	if err != nil {
		return a2a.ErrInvalidAgentResponse.With("the agent's gRPC response cannot be read as A2A")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return a2a.ErrInvalidAgentResponse.Withf("the agent's gRPC response is not valid A2A: %s", clip(err.Error(), 200))
	}
	return nil
}

// encodeRequest fills the request message m from the a2a request v (the
// client's direction).
func encodeRequest(v any, m proto.Message) error {
	if err := encodeMessage(v, m); err != nil {
		return a2a.ErrInvalidParams.With("the request cannot be sent over gRPC")
	}
	return nil
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
