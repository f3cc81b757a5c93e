// Package fastjson holds the hand-written JSON encoders and decoders of
// the A2A messages the bridge reads and writes most: the JSON-RPC request
// envelope and the params of the hot methods (request.go), a send's
// answer, a task and a stream event with their JSON-RPC envelopes, alone
// or in a stream (decode.go, encode.go, encode_response.go), and the
// SendMessage request the client sends (rpc.go). Each either produces
// exactly what the encoding/json path of package a2a produces over the
// same bytes or value, or declines and that path runs; differential tests
// and fuzzers hold it to that. What it buys over encoding/json is
// measured in bench/REPORT.md.
//
// Its callers are the server (a2a/server), the client (a2a/client) and
// the stores (a2a/store); the types' own MarshalJSON and UnmarshalJSON
// methods are the encoding/json path and never call it. It imports a2a
// and nothing else of the bridge, and a2a must not import it.
//
// Built with the bridge_nofastjson tag, the package keeps its functions
// but each is the encoding/json path of package a2a (off.go): the whole
// bridge then reads and writes A2A JSON with encoding/json only.
package fastjson
