package server

import (
	"encoding/json"
	"net/url"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/internal/fastjson"
)

// FuzzRequestView feeds the one request view from both A2A bindings: the
// body as a JSON-RPC request and as the HTTP+JSON body of message:send.
// Whatever the bridge accepts, any other reader of the same bytes must see
// the same request: here an exact reader (encoding/json into maps: names
// matched exactly, and which would let a duplicate's last value win, had
// the bridge let one through). The method, the task and the skill the view
// holds, which the guards decide on, must be what that reader reads.
func FuzzRequestView(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","taskId":"t","parts":[{"text":"hi"}],"metadata":{"skillId":"add"}}}}`,
		`{"jsonrpc":"2.0","id":"a","method":"GetTask","params":{"id":"t","history_length":2}}`,
		`{"jsonrpc":"2.0","id":1,"method":"CancelTask","params":{"id":"t","metadata":{"skillId":"x"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"GetTask","method":"SendMessage","params":{"id":"t"}}`,
		`{"jsonrpc":"2.0","id":1,"Method":"SendMessage","params":{"Message":{"TaskId":"x"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"taskId":"a","t\u0061skId":"b"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"metadata":{"skillId":"a"},"message":{"metadata":{"skillId":"b"}}}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"SendMessage\",\"params\":{\"message\":{\"ta\u017fkId\":\"x\"}}}",
		`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":{"tool":"a","arguments":{}}}]}}`,
		`{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"role":"1"}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if req, _, err := fastjson.ReadRPCRequest(body); err == nil {
			if params, _, ok := a2a.NewParams(*req.Method); ok && fastjson.ReadParams(req.Params, params) == nil && checkView(params) == nil {
				c := newCall(nil, *req.Method, a2a.BindingJSONRPC, params)
				var env map[string]any
				if err := json.Unmarshal(body, &env); err != nil {
					t.Fatalf("the bridge accepted %q, which is not JSON: %v", body, err)
				}
				if env["method"] != c.Method {
					t.Fatalf("%q: the view's method is %q, an exact reader's %v", body, c.Method, env["method"])
				}
				p, _ := env["params"].(map[string]any)
				checkViewAgrees(t, body, c, p)
			}
		}
		// The same bytes as the HTTP+JSON binding's message:send body.
		rt := &restRoute{method: a2a.MethodSendMessage}
		params, _, _ := a2a.NewParams(a2a.MethodSendMessage)
		if decodeRESTParams(params, rt, body, url.Values{}) == nil && checkView(params) == nil {
			c := newCall(nil, a2a.MethodSendMessage, a2a.BindingHTTPJSON, params)
			var p map[string]any
			if err := json.Unmarshal(body, &p); err != nil && len(body) > 0 {
				t.Fatalf("the bridge accepted %q, which is not JSON: %v", body, err)
			}
			checkViewAgrees(t, body, c, p)
		}
	})
}

// checkViewAgrees compares the view's task and skill with what an exact
// reader finds in the params p.
func checkViewAgrees(t *testing.T, body []byte, c *Call, p map[string]any) {
	t.Helper()
	str := func(m map[string]any, k string) string {
		s, _ := m[k].(string)
		return s
	}
	obj := func(m map[string]any, k string) map[string]any {
		o, _ := m[k].(map[string]any)
		return o
	}
	var task, skill string
	switch c.Method {
	case a2a.MethodSendMessage, a2a.MethodSendStreamingMessage:
		msg := obj(p, "message")
		task = str(msg, "taskId")
		skill = str(obj(msg, "metadata"), "skillId")
		if _, ok := obj(msg, "metadata")["skillId"]; !ok {
			skill = str(obj(p, "metadata"), "skillId")
		}
	case a2a.MethodGetTask, a2a.MethodCancelTask, a2a.MethodSubscribeToTask:
		task = str(p, "id")
		if task == "" {
			task = str(p, "Id") // never: the view refuses it
		}
	case a2a.MethodCreatePushConfig, a2a.MethodGetPushConfig, a2a.MethodListPushConfigs, a2a.MethodDeletePushConfig:
		task = str(p, "taskId")
		if task == "" {
			task = str(p, "task_id") // the proto name is renamed
		}
	default:
		return
	}
	if c.TaskID != task {
		t.Fatalf("%q: the view names task %q, an exact reader %q", body, c.TaskID, task)
	}
	if c.Skill != skill {
		t.Fatalf("%q: the view names skill %q, an exact reader %q", body, c.Skill, skill)
	}
}
