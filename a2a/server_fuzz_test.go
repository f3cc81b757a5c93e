package a2a

import (
	"encoding/json"
	"net/http"
	"strings"
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
		req, id, err := parseRPCRequest(body)
		if !json.Valid(id) {
			t.Fatalf("answer id %q is not JSON", id)
		}
		if err != nil {
			if AsError(err) == ErrInternal {
				t.Fatalf("envelope error is not a protocol error: %v", err)
			}
			return
		}
		params, _, ok := newParams(*req.Method)
		if !ok {
			return
		}
		if err := decodeParams(req.Params, params); err != nil && AsError(err).Code != ErrInvalidParams.Code {
			t.Fatalf("params error with code %d", AsError(err).Code)
		}
	})
}

func FuzzRESTRouter(f *testing.F) {
	for _, s := range []string{
		"GET /tasks/abc", "POST /tasks/abc:cancel", "POST /tasks/abc:subscribe", "GET /tasks/abc:subscribe",
		"GET /t1/tasks", "POST /message:send", "POST /message:stream", "GET /extendedAgentCard",
		"POST /tasks/a/pushNotificationConfigs", "DELETE /tasks/a/pushNotificationConfigs/b",
		"GET /tasks/%2F..%2F:cancel", "GET //tasks//", "PUT /tasks/x", "GET /tasks/:", "GET /%zz",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		verb, path, _ := strings.Cut(line, " ")
		rt, err := routeREST(verb, path)
		if err != nil {
			if st := err.HTTPStatus(ErrorTableV101); st < 400 || st >= 500 {
				t.Fatalf("route error status %d", st)
			}
			return
		}
		if rt.method == "" {
			t.Fatal("route without a method")
		}
		if _, _, ok := newParams(rt.method); !ok {
			t.Fatalf("route to unknown method %q", rt.method)
		}
		switch rt.method {
		case MethodGetTask, MethodCancelTask, MethodSubscribeToTask, MethodCreatePushConfig, MethodListPushConfigs, MethodGetPushConfig, MethodDeletePushConfig:
			if rt.id == "" {
				t.Fatalf("%s routed without a task id", rt.method)
			}
		}
		if verb == http.MethodGet && rt.method == MethodSendMessage {
			t.Fatal("GET routed to SendMessage")
		}
	})
}
