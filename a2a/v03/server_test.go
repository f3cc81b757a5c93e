package v03_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/a2a/v03"
	"github.com/a2a-mcp-bridge/bridge/examples/demoagent"
)

// agent is the demo agent behind a 1.0 server that answers 0.3 callers
// (legacy) or refuses them; the X-Test-Owner header names the caller.
type agent struct {
	srv   *httptest.Server
	calls []*server.Call // what the guard saw
}

func newAgent(t testing.TB, legacy bool, opts ...func(*server.Config)) *agent {
	t.Helper()
	st := store.NewMemory()
	mgr, err := taskmanager.New(taskmanager.Config{Store: st, Executor: &demoagent.Agent{}})
	if err != nil {
		t.Fatal(err)
	}
	ag := &agent{}
	card := demoagent.Card("http://agent.test/a2a/echo")
	card.Capabilities.PushNotifications = a2a.Ptr(true)
	cfg := server.Config{Manager: mgr, Card: card, PushEnabled: true,
		Guard: func(ctx context.Context, c *server.Call) error {
			ag.calls = append(ag.calls, c)
			return nil
		}}
	if legacy {
		cfg.Legacy, cfg.LegacyCard = &v03.Dialect{}, v03.CardJSON
	}
	for _, o := range opts {
		o(&cfg)
	}
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ag.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		srv.ServeHTTP(w, r.WithContext(server.WithOwner(r.Context(), r.Header.Get("X-Test-Owner"))))
	}))
	t.Cleanup(ag.srv.Close)
	return ag
}

type reply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// rpc posts a JSON-RPC request; version "" sends no A2A-Version.
func (a *agent) rpc(t *testing.T, owner, version, method, params string) reply {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":%q,"params":%s}`, method, params)
	req, _ := http.NewRequest(http.MethodPost, a.srv.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if version != "" {
		req.Header.Set("A2A-Version", version)
	}
	req.Header.Set("X-Test-Owner", owner)
	resp, err := a.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var r reply
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v: %s", method, err, b)
	}
	return r
}

// normalize replaces the ids and timestamps a run makes up, so that two
// runs of the same conversation compare equal.
func normalize(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys) // ids are numbered in one order
			for _, k := range keys {
				e := x[k]
				switch k {
				case "id", "taskId", "contextId", "messageId", "artifactId":
					if s, ok := e.(string); ok {
						if _, seen := ids[s]; !seen {
							ids[s] = fmt.Sprintf("%s-%d", k, len(ids))
						}
						x[k] = ids[s]
						continue
					}
				case "timestamp":
					x[k] = "T"
					continue
				}
				x[k] = walk(e)
			}
		case []any:
			for i := range x {
				x[i] = walk(x[i])
			}
		}
		return v
	}
	return walk(v)
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDifferential03And10 runs each conversation once as 0.3 requests and
// once as the 1.0 requests they mean, and requires the same tasks: as
// stored (read back with 1.0 GetTask) and as answered (the 0.3 answer is
// the 0.3 shape of the 1.0 answer).
func TestDifferential03And10(t *testing.T) {
	convs := []struct {
		name  string
		turns []string
	}{
		{"echo", []string{"hello"}},
		{"interview", []string{"/interview", "Ada"}},
		{"fail", []string{"/fail"}},
		{"direct message", []string{"/message"}},
	}
	a := newAgent(t, true)
	for _, c := range convs {
		t.Run(c.name, func(t *testing.T) {
			var taskID03, taskID10, ctx03, ctx10 string
			for i, text := range c.turns {
				p03 := map[string]any{"message": map[string]any{"kind": "message", "messageId": fmt.Sprintf("m%d", i), "role": "user", "parts": []any{map[string]any{"kind": "text", "text": text}}, "taskId": taskID03, "contextId": ctx03}}
				p10 := map[string]any{"message": map[string]any{"messageId": fmt.Sprintf("m%d", i), "role": "ROLE_USER", "parts": []any{map[string]any{"text": text}}, "taskId": taskID10, "contextId": ctx10}}
				r03 := a.rpc(t, "alice", "", v03.MethodMessageSend, string(mustJSON(t, p03)))
				r10 := a.rpc(t, "alice", "1.0", a2a.MethodSendMessage, string(mustJSON(t, p10)))
				if r03.Error != nil || r10.Error != nil {
					t.Fatalf("errors: 0.3 %+v, 1.0 %+v", r03.Error, r10.Error)
				}
				var res10 a2a.SendMessageResponse
				if err := json.Unmarshal(r10.Result, &res10); err != nil {
					t.Fatal(err)
				}
				want03, err := (&v03.Dialect{}).Result(a2a.MethodSendMessage, &res10)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := normalize(t, r03.Result), normalize(t, mustJSON(t, want03)); !reflect.DeepEqual(got, want) {
					t.Fatalf("turn %d: 0.3 answer\n%s\nis not the 0.3 shape of the 1.0 answer\n%s", i, mustJSON(t, got), mustJSON(t, want))
				}
				if res10.Task == nil {
					return // a direct message: no task to read back
				}
				var t03 struct{ ID, ContextID string }
				_ = json.Unmarshal(r03.Result, &t03)
				taskID03, ctx03, taskID10, ctx10 = t03.ID, t03.ContextID, res10.Task.ID, res10.Task.ContextID
			}
			g03 := a.rpc(t, "alice", "1.0", a2a.MethodGetTask, fmt.Sprintf(`{"id":%q}`, taskID03))
			g10 := a.rpc(t, "alice", "1.0", a2a.MethodGetTask, fmt.Sprintf(`{"id":%q}`, taskID10))
			if got, want := normalize(t, g03.Result), normalize(t, g10.Result); !reflect.DeepEqual(got, want) {
				t.Fatalf("stored task of the 0.3 run\n%s\ndiffers from the 1.0 run's\n%s", mustJSON(t, got), mustJSON(t, want))
			}
		})
	}
}

// TestGuardsSeeThe10Call: a 0.3 request reaches the guard as the 1.0 call
// it is translated into, with the same method, task and skill names.
func TestGuardsSeeThe10Call(t *testing.T) {
	a := newAgent(t, true)
	r := a.rpc(t, "alice", "", v03.MethodMessageSend, `{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"hi"}],"metadata":{"skillId":"echo"}}}`)
	if r.Error != nil {
		t.Fatal(r.Error)
	}
	var task struct{ ID string }
	_ = json.Unmarshal(r.Result, &task)
	_ = a.rpc(t, "alice", "", v03.MethodTasksGet, fmt.Sprintf(`{"id":%q}`, task.ID))
	if len(a.calls) != 2 {
		t.Fatalf("guard saw %d calls", len(a.calls))
	}
	if c := a.calls[0]; c.Method != a2a.MethodSendMessage || c.Skill != "echo" || c.Version != "0.3" || c.Binding != a2a.BindingJSONRPC {
		t.Errorf("send: guard saw %+v", c)
	}
	if c := a.calls[1]; c.Method != a2a.MethodGetTask || c.TaskID != task.ID {
		t.Errorf("get: guard saw method %q task %q", c.Method, c.TaskID)
	}
}

// TestTaskOfAnotherOwnerIsNotFoundOver03: owner scoping holds for 0.3
// callers, on every method that names a task.
func TestTaskOfAnotherOwnerIsNotFoundOver03(t *testing.T) {
	a := newAgent(t, true)
	r := a.rpc(t, "alice", "", v03.MethodMessageSend, `{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"/interview"}]}}`)
	var task struct{ ID string }
	_ = json.Unmarshal(r.Result, &task)
	for _, c := range []struct{ method, params string }{
		{v03.MethodTasksGet, `{"id":%q}`},
		{v03.MethodTasksCancel, `{"id":%q}`},
		{v03.MethodPushConfigSet, `{"taskId":%q,"pushNotificationConfig":{"url":"https://hooks.example.com/x"}}`},
		{v03.MethodPushConfigList, `{"id":%q}`},
		{v03.MethodMessageSend, `{"message":{"kind":"message","messageId":"m2","role":"user","taskId":%q,"parts":[{"kind":"text","text":"Eve"}]}}`},
	} {
		got := a.rpc(t, "mallory", "", c.method, fmt.Sprintf(c.params, task.ID))
		if got.Error == nil || got.Error.Code != -32001 {
			t.Errorf("%s by another owner: %+v %s, want TaskNotFound (-32001)", c.method, got.Error, got.Result)
		}
	}
	still := a.rpc(t, "alice", "", v03.MethodTasksGet, fmt.Sprintf(`{"id":%q}`, task.ID))
	if !bytes.Contains(still.Result, []byte(`"input-required"`)) {
		t.Errorf("the owner's task changed: %s", still.Result)
	}
}

// TestRefuse03: without Legacy, a 0.3 call is VersionNotSupported as
// before, and the card has no 0.3 members.
func TestRefuse03(t *testing.T) {
	a := newAgent(t, false)
	r := a.rpc(t, "alice", "", v03.MethodMessageSend, `{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"hi"}]}}`)
	if r.Error == nil || r.Error.Code != -32009 {
		t.Fatalf("got %+v, want -32009", r.Error)
	}
	resp, err := http.Get(a.srv.URL + "/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if bytes.Contains(b, []byte(`"preferredTransport"`)) {
		t.Errorf("refusing server serves 0.3 members: %s", b)
	}
}

// TestDetection: what is answered as 0.3 and what stays 1.0.
func TestDetection(t *testing.T) {
	a := newAgent(t, true)
	send03 := `{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"hi"}]}}`
	send10 := `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}`
	cases := []struct {
		name, version, method, params string
		wantCode                      int
		wantKind                      bool // a 0.3 "kind" in the result
	}{
		{"0.3 method, no version", "", v03.MethodMessageSend, send03, 0, true},
		{"0.3 method, version 0.3", "0.3", v03.MethodMessageSend, send03, 0, true},
		{"0.3 method, version 1.0", "1.0", v03.MethodMessageSend, send03, -32601, false},
		{"1.0 method, no version", "", a2a.MethodSendMessage, send10, -32009, false},
		{"1.0 method, version 1.0", "1.0", a2a.MethodSendMessage, send10, 0, false},
		{"unknown 0.3 method", "", "tasks/list", `{}`, -32601, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := a.rpc(t, "alice", c.version, c.method, c.params)
			code := 0
			if r.Error != nil {
				code = r.Error.Code
			}
			if code != c.wantCode {
				t.Fatalf("code %d (%+v), want %d", code, r.Error, c.wantCode)
			}
			if got := bytes.Contains(r.Result, []byte(`"kind":"task"`)); got != c.wantKind {
				t.Errorf("0.3 shape %v, want %v: %s", got, c.wantKind, r.Result)
			}
		})
	}
}

// TestCardViews: 0.x gets the card with the 0.3 members, 1.0 the 1.0
// card, no version the 1.0 card unless LegacyCardDefault; all vary on
// A2A-Version.
func TestCardViews(t *testing.T) {
	onRequest := newAgent(t, true)
	byDefault := newAgent(t, true, func(c *server.Config) { c.LegacyCardDefault = true })
	get := func(a *agent, h, q string) (map[string]any, http.Header) {
		req, _ := http.NewRequest(http.MethodGet, a.srv.URL+"/.well-known/agent-card.json"+q, nil)
		if h != "" {
			req.Header.Set("A2A-Version", h)
		}
		resp, err := a.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			t.Fatal(err)
		}
		return m, resp.Header
	}
	for _, c := range []struct {
		name          string
		a             *agent
		header, query string
		want03        bool
	}{
		{"no version", onRequest, "", "", false},
		{"no version, by default", byDefault, "", "", true},
		{"header 0.3", onRequest, "0.3", "", true},
		{"query 0.3", onRequest, "", "?A2A-Version=0.3", true},
		{"header 1.0", onRequest, "1.0", "", false},
		{"query 1.0", onRequest, "", "?A2A-Version=1.0", false},
		{"header 1.0, by default", byDefault, "1.0", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, h := get(c.a, c.header, c.query)
			_, has := m["preferredTransport"]
			if has != c.want03 {
				t.Errorf("0.3 members %v, want %v", has, c.want03)
			}
			if m["supportedInterfaces"] == nil {
				t.Error("the 1.0 members are missing")
			}
			if c.want03 && (m["url"] != "http://agent.test/a2a/echo" || m["protocolVersion"] != v03.ProtocolVersion) {
				t.Errorf("url %v protocolVersion %v", m["url"], m["protocolVersion"])
			}
			if !strings.Contains(h.Get("Vary"), "A2A-Version") {
				t.Errorf("Vary %q", h.Get("Vary"))
			}
		})
	}
}

// eventsFailing is a store whose event log stops answering, with a
// definite error, once fail is set.
type eventsFailing struct {
	taskmanager.Store
	fail atomic.Bool
}

func (s *eventsFailing) Events(ctx context.Context, owner, taskID string, after int64, limit int) ([]taskmanager.StoredEvent, error) {
	if s.fail.Load() {
		return nil, a2a.ErrTaskNotFound.With("the event log is gone")
	}
	return s.Store.Events(ctx, owner, taskID, after, limit)
}

// TestRESTStreamErrorIsAnErrorEvent: an error in the middle of a 0.3
// HTTP+JSON stream is sent as an SSE event named "error" carrying the 0.3
// error ({code, message}), which 0.3 clients read as the call's error
// (a plain data event would be read as a stream response).
func TestRESTStreamErrorIsAnErrorEvent(t *testing.T) {
	st := &eventsFailing{Store: store.NewMemory()}
	mgr, err := taskmanager.New(taskmanager.Config{Store: st, Executor: &demoagent.Agent{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mgr.Wait)
	ag := newAgent(t, true, func(c *server.Config) { c.Manager = mgr })
	r := ag.rpc(t, "alice", "", "message/send", `{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"/slow 2"}]},"configuration":{"blocking":false}}`)
	var task struct {
		ID string `json:"id"`
	}
	if r.Error != nil || json.Unmarshal(r.Result, &task) != nil || task.ID == "" {
		t.Fatalf("message/send: %+v %s", r.Error, r.Result)
	}
	st.fail.Store(true)
	req, _ := http.NewRequest(http.MethodPost, ag.srv.URL+"/rest/v1/tasks/"+task.ID+":subscribe", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("X-Test-Owner", "alice")
	resp, err := ag.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("subscribe: %d %s", resp.StatusCode, body)
	}
	events := strings.Split(strings.TrimSpace(string(body)), "\n\n")
	last := events[len(events)-1]
	if len(events) < 2 || !strings.HasPrefix(last, "event: error\ndata: ") {
		t.Fatalf("the stream does not end with an error event:\n%s", body)
	}
	var e struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal([]byte(strings.TrimPrefix(last, "event: error\ndata: ")), &e); err != nil || e.Code != a2a.ErrTaskNotFound.Code || e.Message == "" {
		t.Fatalf("error event %q: %+v %v", last, e, err)
	}
	if strings.HasPrefix(events[0], "event:") {
		t.Fatalf("a stream response sent as a named event: %q", events[0])
	}
}
