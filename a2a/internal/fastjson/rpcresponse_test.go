//go:build !bridge_nofastjson

package fastjson

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// genericRPCResponse is the plain decode the one-pass path replaces.
func genericRPCResponse[T any](data []byte) (*a2a.RPCResponse[T], error) {
	var env a2a.RPCResponse[T]
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, err
	}
	return &env, nil
}

// TestDecodeRPCResponseAgreesWithPlainDecode: the one-pass decode of a
// send's answer, a task and an event gives the plain decode's result and
// error, valid or not.
func TestDecodeRPCResponseAgreesWithPlainDecode(t *testing.T) {
	task := `{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED","timestamp":"2026-11-30T10:00:00Z"},"artifacts":[{"artifactId":"a","parts":[{"text":"hi"},{"future":{}}]}]}`
	msg := `{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"x"}]}`
	bodies := []string{
		`{"jsonrpc":"2.0","id":1,"result":{"task":` + task + `}}`,
		`{"jsonrpc":"2.0","id":"1","result":{"message":` + msg + `}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"task":` + task + `,"message":` + msg + `}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t1","status":{"state":"TASK_STATE_WORKING"}}}}`,
		`{"jsonrpc":"2.0","id":1,"result":` + task + `}`,
		`{"jsonrpc":"2.0","id":1,"result":{"task":{"status":{"timestamp":"0000-01-01T00:00:00Z"}}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"message":{"parts":[{"text":"a","raw":"AA=="}]}}}`,
		`{"jsonrpc":"2.0","id":1,"result":null,"error":{"code":-32001,"message":"no task"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"task":{"artifacts":7}}}`,
		`{"jsonrpc":"2.0","id":1,"result":`,
	}
	for _, b := range bodies {
		check := func(name string, got, want any, gerr, werr error) {
			t.Helper()
			// A type error names the Go struct it was decoding into, which
			// differs; any other error must read the same.
			var te *json.UnmarshalTypeError
			if (gerr == nil) != (werr == nil) || (gerr != nil && !errors.As(werr, &te) && gerr.Error() != werr.Error()) {
				t.Fatalf("%s %s: error %v, want %v", name, b, gerr, werr)
			}
			if gerr == nil && !reflect.DeepEqual(got, want) {
				t.Fatalf("%s %s: got %+v, want %+v", name, b, got, want)
			}
		}
		g1, e1 := DecodeRPCResponse[a2a.SendMessageResponse]([]byte(b))
		w1, f1 := genericRPCResponse[a2a.SendMessageResponse]([]byte(b))
		check("send", g1, w1, e1, f1)
		g2, e2 := DecodeRPCResponse[a2a.Task]([]byte(b))
		w2, f2 := genericRPCResponse[a2a.Task]([]byte(b))
		check("task", g2, w2, e2, f2)
		g3, e3 := DecodeRPCResponse[a2a.StreamResponse]([]byte(b))
		w3, f3 := genericRPCResponse[a2a.StreamResponse]([]byte(b))
		check("event", g3, w3, e3, f3)
	}
}
