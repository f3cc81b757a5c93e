// Package fastjson holds the hand-written JSON encoders and decoders of
// the A2A messages the bridge reads and writes most: the JSON-RPC request
// envelope and the params of the hot methods (request.go), a send's
// answer, a task and a stream event with their JSON-RPC envelopes, alone
// or in a stream (decode.go, encode.go, encode_response.go), and the
// SendMessage request the client sends (rpc.go). Each either produces
// exactly what the encoding/json path of package a2a produces over the
// same bytes or value, or declines and that path runs; differential tests
// and fuzzers hold it to that.
//
// # What it buys, and why it is not github.com/go-json-experiment/json
//
// On the real binary (BASE_TAGS=bridge_nofastjson SCENARIOS="front
// translate" ROUNDS=3 make bench, 2026-12-03, docs/performance.md), a
// front SendMessage allocates 170 times with this package against 261
// without it on the memory store (197 against 300 on SQLite): about a
// third of the bridge's allocations per call, which the in-process
// figures account for (v1 minus fast, in allocs/op: request 33, answer
// decode 46, reply encode 14, client request 6). Throughput on against
// off was 0.96 (0.95–1.28 over rounds) on memory and 1.15 (1.11–1.25)
// on SQLite, on a machine at load 20: a gain, not measured finely.
//
// encoding/json/v2's code (github.com/go-json-experiment/json) was
// measured as the replacement: a v2 codec with the wire rules as
// type-specific marshalers, plus the strictjson pass the request view
// still needs for case-folded names, is in v2_test.go; it reads and
// writes the same values over this package's differential tables
// (v2_diff_test.go; it writes U+FFFD unescaped where encoding/json
// escapes it). BenchmarkJSON (v2_bench_test.go) puts it at 1.6 to 7
// times the hand-written paths' allocations and 1.8 to 25 times their
// time on every hot shape (times on a loaded machine, allocations
// exact): it would win back about 30 of the 91 to 103 allocations per
// call that encoding/json adds, not the rest. So the hand-written paths
// stay; a shape whose margin falls below that of its lines is the one
// to hand to v2 (the encoders of encode.go, encode_response.go and
// rpc.go, 850 lines for 20 allocations per call, are the first).
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
