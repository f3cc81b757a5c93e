package a2a

import (
	"encoding/json"
	"testing"
)

func FuzzJSONRPCEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`,
		`{"jsonrpc":"2.0","id":"a","method":"GetTask","params":{"id":"t","history_length":2}}`,
		`{"jsonrpc":"2.0","id":null,"method":"ListTasks"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"GetTask"}]`,
		`{"jsonrpc":"1.0","id":1}`, `{"id":{}}`, `"x"`, `{`, ``, `{"jsonrpc":"2.0","id":-1.5e3,"method":"","params":[]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, id, err := ParseRPCRequest(body)
		if !json.Valid(id) {
			t.Fatalf("answer id %q is not JSON", id)
		}
		if err != nil {
			if AsError(err) == ErrInternal {
				t.Fatalf("envelope error is not a protocol error: %v", err)
			}
			return
		}
		params, _, ok := NewParams(*req.Method)
		if !ok {
			return
		}
		if err := DecodeParams(req.Params, params); err != nil && AsError(err).Code != ErrInvalidParams.Code {
			t.Fatalf("params error with code %d", AsError(err).Code)
		}
	})
}
