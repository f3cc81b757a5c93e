package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
)

// The escape family on both A2A bindings: a request that could be read two
// ways (by the fast decoder and encoding/json, by a guard and the executor,
// by the bridge and a ProtoJSON peer) is refused in the binding's own error
// form before any guard runs, and creates nothing.

const attackMsg = `{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hello"}]}`

type attackCase struct {
	name string
	// params is the SendMessage params (JSON-RPC) and the message:send
	// body (HTTP+JSON); body, when set, is the whole JSON-RPC body instead.
	params, body string
	code         int // JSON-RPC error code; 0: served
	status       int // HTTP+JSON status; 0: 200
}

func attackCases() []attackCase {
	return []attackCase{
		{name: "duplicate method", body: `{"jsonrpc":"2.0","id":1,"method":"GetTask","method":"SendMessage","params":{"message":` + attackMsg + `}}`, code: -32600},
		{name: "duplicate id", body: `{"jsonrpc":"2.0","id":1,"id":2,"method":"SendMessage","params":{"message":` + attackMsg + `}}`, code: -32600},
		{name: "escaped duplicate method", body: `{"jsonrpc":"2.0","id":1,"method":"GetTask","m\u0065thod":"SendMessage","params":{"message":` + attackMsg + `}}`, code: -32600},
		{name: "case-folded envelope member", body: `{"jsonrpc":"2.0","id":1,"Method":"SendMessage","params":{"message":` + attackMsg + `}}`, code: -32600},
		{name: "case-folded params member", params: `{"Message":` + attackMsg + `}`, code: -32602, status: 400},
		{name: "long s folds into a member", params: "{\"me\u017f\u017fage\":" + attackMsg + `}`, code: -32602, status: 400},
		{name: "case-folded part member", params: `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"TEXT":"x","text":"y"}]}}`, code: -32602, status: 400},
		{name: "escaped case-folded member", params: `{"\u004dessage":` + attackMsg + `}`, code: -32602, status: 400},
		{name: "duplicate message", params: `{"message":` + attackMsg + `,"message":{"messageId":"m2","role":"ROLE_USER","parts":[{"text":"other"}]}}`, code: -32602, status: 400},
		{name: "duplicate tool in a data part", params: `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"data":{"tool":"echo","tool":"add"}}]}}`, code: -32602, status: 400},
		{name: "duplicate key in metadata", params: `{"message":` + attackMsg + `,"metadata":{"skillId":"a","skillId":"b"}}`, code: -32602, status: 400},
		{name: "invalid UTF-8 in text", params: "{\"message\":{\"messageId\":\"m1\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"a\xffb\"}]}}", code: -32700, status: 400},
		{name: "lone surrogate in text", params: `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"a\ud800b"}]}}`, code: -32700, status: 400},
		{name: "lone surrogate in a member name", params: `{"message":` + attackMsg + `,"x\udc00":1}`, code: -32700, status: 400},
		{name: "role as a quoted number", params: `{"message":{"messageId":"m1","role":"1","parts":[{"text":"x"}]}}`, code: -32602, status: 400},
		{name: "proto and JSON name of one field", params: `{"message":` + attackMsg + `,"configuration":{"historyLength":1,"history_length":5}}`, code: -32602, status: 400},
		{name: "two skills asked for", params: `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"x"}],"metadata":{"skillId":"echo"}},"metadata":{"skillId":"add"}}`, code: -32602, status: 400},
		{name: "skill id that is not a string", params: `{"message":` + attackMsg + `,"metadata":{"skillId":["echo"]}}`, code: -32602, status: 400},
		// Pinned: these are read one way by everyone and served.
		{name: "surrogate pair is one character", params: `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"\ud83d\ude00"}]}}`},
		{name: "escaped method name is the method", body: `{"jsonrpc":"2.0","id":1,"method":"Send\u004dessage","params":{"message":` + attackMsg + `}}`},
		{name: "escaped member name is the member", params: `{"m\u0065ssage":` + attackMsg + `}`},
		{name: "same skill twice is one skill", params: `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"x"}],"metadata":{"skillId":"echo"}},"metadata":{"skillId":"echo"}}`},
		{name: "batch", body: `[{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":` + attackMsg + `}}]`, code: -32600},
	}
}

// guardCounter is a Guard that counts the calls that reached it and what
// they named.
type guardCounter struct {
	calls atomic.Int32
	last  atomic.Pointer[server.Call]
}

func (g *guardCounter) guard(_ context.Context, c *server.Call) error {
	g.calls.Add(1)
	g.last.Store(c)
	return nil
}

func TestA2AAmbiguousRequestRefusedBeforeGuard_JSONRPC(t *testing.T) {
	for _, tc := range attackCases() {
		t.Run(tc.name, func(t *testing.T) {
			g := &guardCounter{}
			ta := newTestAgent(t, func(s *server.Config, _ *taskmanager.Config) { s.Guard = g.guard })
			body := tc.body
			if body == "" {
				body = `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":` + tc.params + `}`
			}
			resp := ta.post("/", body, nil)
			var r rpcReply
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatalf("answer is not JSON-RPC: %s", b)
			}
			if tc.code == 0 {
				if r.Error != nil {
					t.Fatalf("refused: %s", b)
				}
				if g.calls.Load() != 1 || g.last.Load().Method != a2a.MethodSendMessage {
					t.Fatalf("guard saw %d calls", g.calls.Load())
				}
				return
			}
			if r.Error == nil || r.Error.Code != tc.code {
				t.Fatalf("answer %s, want error %d", b, tc.code)
			}
			if n := g.calls.Load(); n != 0 {
				t.Fatalf("the guard ran %d times for a request that has no single reading", n)
			}
			if n := ta.taskCount(); n != 0 {
				t.Fatalf("%d tasks created", n)
			}
		})
	}
}

func TestA2AAmbiguousRequestRefusedBeforeGuard_REST(t *testing.T) {
	for _, tc := range attackCases() {
		if tc.params == "" {
			continue // envelope cases: the HTTP+JSON binding has no envelope
		}
		t.Run(tc.name, func(t *testing.T) {
			g := &guardCounter{}
			ta := newTestAgent(t, func(s *server.Config, _ *taskmanager.Config) { s.Guard = g.guard })
			resp := ta.post("/rest/message:send", tc.params, nil)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			want := tc.status
			if want == 0 {
				want = http.StatusOK
			}
			if resp.StatusCode != want {
				t.Fatalf("status %d %s, want %d", resp.StatusCode, b, want)
			}
			if want == http.StatusOK {
				if g.calls.Load() != 1 {
					t.Fatalf("guard saw %d calls", g.calls.Load())
				}
				return
			}
			var e struct {
				Error struct {
					Status string `json:"status"`
				} `json:"error"`
			}
			if json.Unmarshal(b, &e) != nil || e.Error.Status != "INVALID_ARGUMENT" {
				t.Fatalf("answer %s is not a google.rpc.Status INVALID_ARGUMENT", b)
			}
			if n := g.calls.Load(); n != 0 {
				t.Fatalf("the guard ran %d times for a request that has no single reading", n)
			}
			if n := ta.taskCount(); n != 0 {
				t.Fatalf("%d tasks created", n)
			}
		})
	}
}

// TestA2AEscapedSlashInPathStaysInTheSegment_REST: %2F in a path segment
// is part of the task id, never a path separator, so it cannot turn a read
// into a cancel or reach another route.
func TestA2AEscapedSlashInPathStaysInTheSegment_REST(t *testing.T) {
	g := &guardCounter{}
	ta := newTestAgent(t, func(s *server.Config, _ *taskmanager.Config) { s.Guard = g.guard })
	task := ta.send("hello", nil)
	for _, p := range []string{
		"/rest/tasks/" + task.ID + "%2Fcancel",
		"/rest/tasks/x%2F..%2F" + task.ID,
	} {
		req, _ := http.NewRequest(http.MethodGet, ta.srv.URL+p, nil)
		req.Header.Set("A2A-Version", "1.0")
		resp, err := ta.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("GET %s: %d %s, want 404", p, resp.StatusCode, b)
		}
		c := g.last.Load()
		if c == nil || c.Method != a2a.MethodGetTask || !strings.Contains(c.TaskID, "/") {
			t.Fatalf("GET %s reached the guard as %+v", p, c)
		}
	}
}
