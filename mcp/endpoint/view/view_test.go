package view

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// mcpGoReading is what mcp-go v1.2.1 reads from a message, decoded the way
// its streamable HTTP server and HandleMessage decode it.
type mcpGoReading struct {
	method, name, taskID string
	id, requestID        json.RawMessage
	task                 bool
}

func readAsMCPGo(t *testing.T, body []byte) (mcpGoReading, bool) {
	t.Helper()
	var r mcpGoReading
	var base struct {
		JSONRPC string          `json:"jsonrpc"`
		Method  mcp.MCPMethod   `json:"method"`
		ID      json.RawMessage `json:"id,omitempty"`
	}
	if json.Unmarshal(body, &base) != nil {
		return r, false
	}
	r.method, r.id = string(base.Method), base.ID
	switch base.Method {
	case mcp.MethodToolsCall:
		var req mcp.CallToolRequest
		if json.Unmarshal(body, &req) != nil {
			return r, false
		}
		r.name, r.task = req.Params.Name, req.Params.Task != nil
	case mcp.MethodTasksGet:
		var req mcp.GetTaskRequest
		if json.Unmarshal(body, &req) != nil {
			return r, false
		}
		r.taskID = req.Params.TaskId
	case mcp.MethodNotificationCancelled:
		var n mcp.JSONRPCNotification
		if json.Unmarshal(body, &n) != nil {
			return r, false
		}
		if v, ok := n.Params.AdditionalFields["requestId"]; ok {
			r.requestID, _ = json.Marshal(v)
		}
	}
	return r, true
}

// checkViewAgrees holds the face's view of an accepted message to what
// mcp-go reads from the same bytes (the argument in view.go).
func checkViewAgrees(t *testing.T, body []byte) {
	t.Helper()
	m, verr := Parse(body)
	if verr != nil || m.Response {
		return
	}
	r, ok := readAsMCPGo(t, body)
	if !ok {
		return // mcp-go refuses it with its own error
	}
	if r.method != m.Method {
		t.Fatalf("%q: the view's method is %q, mcp-go's %q", body, m.Method, r.method)
	}
	norm := func(b json.RawMessage) string {
		var v any
		if len(b) == 0 || json.Unmarshal(b, &v) != nil || v == nil {
			return ""
		}
		out, _ := json.Marshal(v)
		return string(out)
	}
	if norm(m.ID) != norm(r.id) {
		t.Fatalf("%q: the view's id is %s, mcp-go's %s", body, m.ID, r.id)
	}
	switch mcp.MCPMethod(m.Method) {
	case mcp.MethodToolsCall:
		if r.name != m.Params.Name || r.task != (m.Params.Task != nil) {
			t.Fatalf("%q: the view calls %q (task %v), mcp-go %q (task %v)", body, m.Params.Name, m.Params.Task != nil, r.name, r.task)
		}
	case mcp.MethodTasksGet:
		if r.taskID != m.Params.TaskID {
			t.Fatalf("%q: the view names task %q, mcp-go %q", body, m.Params.TaskID, r.taskID)
		}
	case mcp.MethodNotificationCancelled:
		if norm(r.requestID) != norm(m.Params.RequestID) {
			t.Fatalf("%q: the view cancels %s, mcp-go %s", body, m.Params.RequestID, r.requestID)
		}
	}
}

var viewSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`,
	`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","task":{"ttl":1000}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"n\u0061me":"echo","t\u0061sk":{}}}`,
	`{"jsonrpc":"2.0","method":"notifications/c\u0061ncelled","params":{"requestId":7}}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x","reason":"r"}}`,
	`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"t1"}}`,
	`{"jsonrpc":"2.0","id":1,"Method":"tools/call","params":{"name":"a"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"Name":"a","name":"b"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`,
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\",\"ta\u017fk\":{}}}",
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":1,"progressToken":2}}}`,
	`{"jsonrpc":"2.0","id":"bridge-sampling-00","result":{"role":"assistant"}}`,
	`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
}

// TestViewAgreesWithMCPGo: over the escape family, every message the view
// accepts reads the same to mcp-go, and the ones that would not are
// refused.
func TestViewAgreesWithMCPGo(t *testing.T) {
	for _, s := range viewSeeds {
		checkViewAgrees(t, []byte(s))
	}
	for _, refused := range []string{
		`{"jsonrpc":"2.0","id":1,"Method":"tools/call","params":{"name":"a"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"Name":"a","name":"b"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"tools/list"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\",\"ta\u017fk\":{}}}",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":1,"progressToken":2}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
	} {
		if m, err := Parse([]byte(refused)); err == nil {
			t.Errorf("%s accepted as %+v", refused, m)
		}
	}
	for _, ok := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":"p1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1}}`,
		`{"jsonrpc":"2.0","id":"bridge-sampling-1","result":{"role":"assistant","content":{"type":"text","text":"x"}}}`,
	} {
		if _, err := Parse([]byte(ok)); err != nil {
			t.Errorf("%s refused: %v", ok, err)
		}
	}
	m, err := Parse([]byte(`{"jsonrpc":"2.0","method":"notifications/c\u0061ncelled","params":{"requestId":7}}`))
	if err != nil || m.Method != string(mcp.MethodNotificationCancelled) || !bytes.Equal(m.Params.RequestID, []byte("7")) {
		t.Fatalf("escaped cancel read as %+v, %v", m, err)
	}
}

// FuzzMCPMessageView feeds the one request view of the MCP face: whatever
// it accepts, mcp-go reads the same method, id, tool, task and cancelled
// request from.
func FuzzMCPMessageView(f *testing.F) {
	for _, s := range viewSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkViewAgrees(t, body) })
}
