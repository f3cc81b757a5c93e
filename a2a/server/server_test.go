package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/examples/demoagent"
)

// testAgent serves the demo agent over httptest, with a short tick.
type testAgent struct {
	t     *testing.T
	srv   *httptest.Server
	a2a   *server.Server
	mgr   *taskmanager.Manager
	store *store.Memory
}

func newTestAgent(t *testing.T, mod func(*server.Config, *taskmanager.Config)) *testAgent {
	t.Helper()
	st := store.NewMemory()
	mcfg := taskmanager.Config{Store: st, Executor: &demoagent.Agent{Tick: 20 * time.Millisecond, StreamingTimeout: 50 * time.Millisecond}, CancelGrace: 2 * time.Second, PollInterval: 50 * time.Millisecond, LeaseWait: 500 * time.Millisecond}
	scfg := server.Config{Card: demoagent.Card("http://example.invalid/a2a/echo")}
	if mod != nil {
		mod(&scfg, &mcfg)
	}
	mgr, err := taskmanager.New(mcfg)
	if err != nil {
		t.Fatal(err)
	}
	scfg.Manager = mgr
	s, err := server.New(scfg)
	if err != nil {
		t.Fatal(err)
	}
	ta := &testAgent{t: t, a2a: s, mgr: mgr, store: st}
	ta.srv = httptest.NewServer(s)
	t.Cleanup(func() {
		ta.srv.Close()
		mgr.Wait()
	})
	return ta
}

type rpcReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int              `json:"code"`
		Message string           `json:"message"`
		Data    []map[string]any `json:"data"`
	} `json:"error"`
}

func (ta *testAgent) post(path, body string, hdr map[string]string) *http.Response {
	ta.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, ta.srv.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := ta.srv.Client().Do(req)
	if err != nil {
		ta.t.Fatal(err)
	}
	return resp
}

func (ta *testAgent) rpc(method string, params any) rpcReply {
	ta.t.Helper()
	p, _ := json.Marshal(params)
	resp := ta.post("/", fmt.Sprintf(`{"jsonrpc":"2.0","id":"t1","method":%q,"params":%s}`, method, p), nil)
	defer resp.Body.Close()
	var r rpcReply
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		ta.t.Fatalf("%s: decode reply: %v", method, err)
	}
	return r
}

func (ta *testAgent) send(text string, mod func(*a2a.SendMessageRequest)) *a2a.Task {
	ta.t.Helper()
	req := &a2a.SendMessageRequest{Message: &a2a.Message{MessageID: "m-" + text, Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(text)}}}
	if mod != nil {
		mod(req)
	}
	r := ta.rpc("SendMessage", req)
	if r.Error != nil {
		ta.t.Fatalf("SendMessage %q: error %d %s", text, r.Error.Code, r.Error.Message)
	}
	var res a2a.SendMessageResponse
	if err := json.Unmarshal(r.Result, &res); err != nil || res.Task == nil {
		ta.t.Fatalf("SendMessage %q: want a task, got %s (%v)", text, r.Result, err)
	}
	return res.Task
}

func (ta *testAgent) taskCount() int {
	ta.t.Helper()
	page, err := ta.store.ListTasks(context.Background(), server.AnonymousOwner, taskmanager.TaskQuery{})
	if err != nil {
		ta.t.Fatal(err)
	}
	return page.Total
}

func TestBadInputGetsTheRightErrorAndChangesNothing(t *testing.T) {
	ta := newTestAgent(t, func(s *server.Config, _ *taskmanager.Config) { s.MaxBodyBytes = 4096 })
	ta.send("hello", nil)
	before := ta.taskCount()
	huge := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"x","role":"ROLE_USER","parts":[{"text":"` + strings.Repeat("a", 8192) + `"}]}}}`
	cases := []struct {
		name     string
		body     string
		hdr      map[string]string
		wantCode int
		wantHTTP int
	}{
		{"malformed JSON", `{"jsonrpc":"2.0","id":1,`, nil, -32700, 200},
		{"not an object", `"hello"`, nil, -32600, 200},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"GetTask"}]`, nil, -32600, 200},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":1,"method":"GetTask","params":{"id":"x"}}`, nil, -32600, 200},
		{"missing jsonrpc", `{"id":1,"method":"GetTask","params":{"id":"x"}}`, nil, -32600, 200},
		{"missing id", `{"jsonrpc":"2.0","method":"GetTask","params":{"id":"x"}}`, nil, -32600, 200},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"GetTask","params":{"id":"x"}}`, nil, -32600, 200},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"FrobnicateTask","params":{}}`, nil, -32601, 200},
		{"0.3 method name", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{}}`, nil, -32601, 200},
		{"params not an object", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":[1]}`, nil, -32602, 200},
		{"wrong param type", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":42}}`, nil, -32602, 200},
		{"wrong nested type", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"x","role":"ROLE_USER","parts":"hi"}}}`, nil, -32602, 200},
		{"bad enum", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"x","role":7,"parts":[{"text":"a"}]}}}`, nil, -32602, 200},
		{"two part members", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"x","role":"ROLE_USER","parts":[{"text":"a","url":"b"}]}}}`, nil, -32602, 200},
		{"missing messageId", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"role":"ROLE_USER","parts":[{"text":"a"}]}}}`, nil, -32602, 200},
		{"agent role", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"x","role":"ROLE_AGENT","parts":[{"text":"a"}]}}}`, nil, -32602, 200},
		{"no parts", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"x","role":"ROLE_USER","parts":[]}}}`, nil, -32602, 200},
		{"missing message", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}`, nil, -32602, 200},
		{"unknown task", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"no-such-task"}}`, nil, -32001, 200},
		{"message to unknown task", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"x","taskId":"no-such-task","role":"ROLE_USER","parts":[{"text":"a"}]}}}`, nil, -32001, 200},
		{"negative historyLength", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x","historyLength":-1}}`, nil, -32602, 200},
		{"oversized body", huge, nil, -32600, 413},
		{"text/plain body", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`, map[string]string{"Content-Type": "text/plain"}, -32005, 415},
		{"missing version", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`, map[string]string{"A2A-Version": ""}, -32009, 200},
		{"version 99.0", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`, map[string]string{"A2A-Version": "99.0"}, -32009, 200},
		{"version 0.3", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`, map[string]string{"A2A-Version": "0.3"}, -32009, 200},
		{"version 1.1", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`, map[string]string{"A2A-Version": "1.1"}, -32009, 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := ta.post("/", tc.body, tc.hdr)
			defer resp.Body.Close()
			if resp.StatusCode != tc.wantHTTP {
				t.Errorf("HTTP status %d, want %d", resp.StatusCode, tc.wantHTTP)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q", ct)
			}
			raw, _ := io.ReadAll(resp.Body)
			var r map[string]json.RawMessage
			if err := json.Unmarshal(raw, &r); err != nil {
				t.Fatalf("reply is not JSON: %s", raw)
			}
			if _, ok := r["result"]; ok {
				t.Fatalf("got a result: %s", raw)
			}
			var e struct {
				Code    int              `json:"code"`
				Message string           `json:"message"`
				Data    []map[string]any `json:"data"`
			}
			if err := json.Unmarshal(r["error"], &e); err != nil {
				t.Fatalf("error member: %v in %s", err, raw)
			}
			var keys map[string]json.RawMessage
			_ = json.Unmarshal(r["error"], &keys)
			for k := range keys {
				if k != "code" && k != "message" && k != "data" {
					t.Errorf("error object has extra key %q", k)
				}
			}
			if e.Code != tc.wantCode {
				t.Errorf("code %d (%s), want %d", e.Code, e.Message, tc.wantCode)
			}
			if e.Message == "" {
				t.Error("empty error message")
			}
			if e.Code <= -32001 && e.Code >= -32099 {
				if len(e.Data) == 0 || e.Data[0]["@type"] != "type.googleapis.com/google.rpc.ErrorInfo" || e.Data[0]["domain"] != "a2a-protocol.org" {
					t.Errorf("A2A error without ErrorInfo: %s", raw)
				}
			}
			if strings.Contains(e.Message, "a2a.") || strings.Contains(e.Message, "Go struct") {
				t.Errorf("error leaks Go internals: %q", e.Message)
			}
		})
	}
	if after := ta.taskCount(); after != before {
		t.Fatalf("bad input changed the store: %d tasks before, %d after", before, after)
	}
}

func TestVersionNegotiation(t *testing.T) {
	ta := newTestAgent(t, nil)
	for _, tc := range []struct {
		version string
		ok      bool
	}{{"1.0", true}, {"1.0.1", true}, {" 1.0 ", true}, {"", false}, {"0.3", false}, {"1.1", false}, {"2.0", false}, {"99.0", false}, {"1", false}, {"1.0.x", false}} {
		t.Run("jsonrpc/"+tc.version, func(t *testing.T) {
			resp := ta.post("/", `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}`, map[string]string{"A2A-Version": tc.version})
			defer resp.Body.Close()
			var r rpcReply
			_ = json.NewDecoder(resp.Body).Decode(&r)
			if got := r.Error == nil; got != tc.ok {
				t.Fatalf("ok=%v, want %v (%+v)", got, tc.ok, r.Error)
			}
			if !tc.ok && r.Error.Code != -32009 {
				t.Fatalf("code %d, want -32009", r.Error.Code)
			}
		})
		t.Run("rest/"+tc.version, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, ta.srv.URL+"/rest/tasks", nil)
			if tc.version != "" {
				req.Header.Set("A2A-Version", tc.version)
			}
			resp, err := ta.srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if got := resp.StatusCode == 200; got != tc.ok {
				t.Fatalf("status %d, want ok=%v", resp.StatusCode, tc.ok)
			}
			if !tc.ok {
				var body struct {
					Error struct {
						Code    int              `json:"code"`
						Status  string           `json:"status"`
						Details []map[string]any `json:"details"`
					} `json:"error"`
				}
				_ = json.NewDecoder(resp.Body).Decode(&body)
				if body.Error.Code != 400 || body.Error.Status != "FAILED_PRECONDITION" || len(body.Error.Details) == 0 || body.Error.Details[0]["reason"] != "VERSION_NOT_SUPPORTED" {
					t.Fatalf("body %+v", body)
				}
			}
		})
	}
	t.Run("query parameter", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, ta.srv.URL+"/rest/tasks?A2A-Version=1.0", nil)
		resp, err := ta.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
	})
}

func TestBlockingSendReturnsTheFinishedTask(t *testing.T) {
	ta := newTestAgent(t, nil)
	task := ta.send("hello", nil)
	if task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("state %s", task.Status.State)
	}
	if len(task.Artifacts) != 1 || task.Artifacts[0].Parts[0].Text != "echo: hello" {
		t.Fatalf("artifacts %+v", task.Artifacts)
	}
	if len(task.History) == 0 || task.History[0].Parts[0].Text != "hello" || task.History[0].TaskID != task.ID || task.History[0].ContextID != task.ContextID {
		t.Fatalf("history %+v", task.History)
	}
	zero := int32(0)
	one := int32(1)
	if got := ta.send("again", func(r *a2a.SendMessageRequest) { r.Configuration = &a2a.SendMessageConfiguration{HistoryLength: &zero} }); len(got.History) != 0 {
		t.Fatalf("historyLength 0 returned %d messages", len(got.History))
	}
	if got := ta.send("again", func(r *a2a.SendMessageRequest) { r.Configuration = &a2a.SendMessageConfiguration{HistoryLength: &one} }); len(got.History) != 1 {
		t.Fatalf("historyLength 1 returned %d messages", len(got.History))
	}
}

func TestReturnImmediatelyDoesNotWait(t *testing.T) {
	ta := newTestAgent(t, nil)
	task := ta.send("/slow 50", func(r *a2a.SendMessageRequest) {
		r.Configuration = &a2a.SendMessageConfiguration{ReturnImmediately: true}
	})
	if task.Status.State.Terminal() {
		t.Fatalf("returnImmediately returned a %s task", task.Status.State)
	}
	r := ta.rpc("CancelTask", a2a.CancelTaskRequest{ID: task.ID})
	if r.Error != nil {
		t.Fatalf("cancel: %+v", r.Error)
	}
	var got a2a.Task
	_ = json.Unmarshal(r.Result, &got)
	if got.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("after cancel: %s", got.Status.State)
	}
}

func TestMultiTurnContinuesTheSameTask(t *testing.T) {
	ta := newTestAgent(t, nil)
	task := ta.send("/interview", nil)
	if task.Status.State != a2a.TaskStateInputRequired || task.Status.Message == nil || task.Status.Message.Parts[0].Text != "What is your name?" {
		t.Fatalf("first turn: %+v", task.Status)
	}
	t.Run("context mismatch is refused", func(t *testing.T) {
		r := ta.rpc("SendMessage", a2a.SendMessageRequest{Message: &a2a.Message{MessageID: "x", TaskID: task.ID, ContextID: "other", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("Ada")}}})
		if r.Error == nil || r.Error.Code != -32602 {
			t.Fatalf("got %+v", r.Error)
		}
	})
	done := ta.send("Ada", func(r *a2a.SendMessageRequest) { r.Message.TaskID = task.ID })
	if done.ID != task.ID || done.ContextID != task.ContextID || done.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("second turn: %s %s %s", done.ID, done.ContextID, done.Status.State)
	}
	if done.Artifacts[0].Parts[0].Text != "Hello, Ada!" {
		t.Fatalf("artifact %+v", done.Artifacts)
	}
	t.Run("a terminal task takes no more messages", func(t *testing.T) {
		r := ta.rpc("SendMessage", a2a.SendMessageRequest{Message: &a2a.Message{MessageID: "y", TaskID: task.ID, Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("again")}}})
		if r.Error == nil || r.Error.Code != -32004 {
			t.Fatalf("got %+v", r.Error)
		}
	})
}

func TestDirectMessageReplyHasNoTask(t *testing.T) {
	ta := newTestAgent(t, nil)
	before := ta.taskCount()
	r := ta.rpc("SendMessage", a2a.SendMessageRequest{Message: &a2a.Message{MessageID: "x", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("/message")}}})
	var res a2a.SendMessageResponse
	if err := json.Unmarshal(r.Result, &res); err != nil || res.Message == nil || res.Task != nil {
		t.Fatalf("result %s", r.Result)
	}
	if res.Message.Role != a2a.RoleAgent || res.Message.ContextID == "" {
		t.Fatalf("message %+v", res.Message)
	}
	if ta.taskCount() != before {
		t.Fatal("a direct reply created a task")
	}
}

func TestFailedAndRejectedTasks(t *testing.T) {
	ta := newTestAgent(t, nil)
	if got := ta.send("/fail", nil); got.Status.State != a2a.TaskStateFailed || got.Status.Message == nil {
		t.Fatalf("/fail: %+v", got.Status)
	}
	got := ta.send("x", func(r *a2a.SendMessageRequest) { r.Message.MessageID = "tck-reject-task-1" })
	if got.Status.State != a2a.TaskStateRejected {
		t.Fatalf("reject: %s", got.Status.State)
	}
}

func TestCancel(t *testing.T) {
	ta := newTestAgent(t, nil)
	t.Run("completed task is not cancelable", func(t *testing.T) {
		task := ta.send("hi", nil)
		r := ta.rpc("CancelTask", a2a.CancelTaskRequest{ID: task.ID})
		if r.Error == nil || r.Error.Code != -32002 {
			t.Fatalf("got %+v", r.Error)
		}
	})
	t.Run("input-required task is canceled without an executor", func(t *testing.T) {
		task := ta.send("/interview", nil)
		r := ta.rpc("CancelTask", a2a.CancelTaskRequest{ID: task.ID})
		var got a2a.Task
		_ = json.Unmarshal(r.Result, &got)
		if r.Error != nil || got.Status.State != a2a.TaskStateCanceled {
			t.Fatalf("got %+v %s", r.Error, got.Status.State)
		}
		again := ta.rpc("CancelTask", a2a.CancelTaskRequest{ID: task.ID})
		if again.Error != nil {
			t.Fatalf("cancel of a canceled task: %+v", again.Error)
		}
	})
	t.Run("unknown task", func(t *testing.T) {
		r := ta.rpc("CancelTask", a2a.CancelTaskRequest{ID: "nope"})
		if r.Error == nil || r.Error.Code != -32001 {
			t.Fatalf("got %+v", r.Error)
		}
	})
}

// stubborn ignores cancellation, to prove the manager ends the task anyway
// and refuses the executor's later events.
type stubborn struct {
	release chan struct{}
	refused atomic.Bool
}

func (s *stubborn) Execute(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) error {
	if err := u.Working(ctx, "busy"); err != nil {
		return err
	}
	<-s.release
	if err := u.Complete(ctx, "done"); errors.Is(err, taskmanager.ErrTaskClosed) {
		s.refused.Store(true)
	}
	return nil
}

func (s *stubborn) Cancel(context.Context, *taskmanager.Request, *taskmanager.Updater) error {
	return nil
}

func TestCancelOfAnExecutorThatDoesNotStopEndsTheTaskAndRefusesItsLaterEvents(t *testing.T) {
	ex := &stubborn{release: make(chan struct{})}
	ta := newTestAgent(t, func(_ *server.Config, m *taskmanager.Config) {
		m.Executor = ex
		m.CancelGrace = 100 * time.Millisecond
	})
	task := ta.send("x", func(r *a2a.SendMessageRequest) {
		r.Configuration = &a2a.SendMessageConfiguration{ReturnImmediately: true}
	})
	r := ta.rpc("CancelTask", a2a.CancelTaskRequest{ID: task.ID})
	var got a2a.Task
	_ = json.Unmarshal(r.Result, &got)
	if r.Error != nil || got.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("cancel: %+v %s", r.Error, got.Status.State)
	}
	close(ex.release)
	ta.mgr.Wait()
	if !ex.refused.Load() {
		t.Fatal("the executor's event after CANCELED was not refused")
	}
	rec, _ := ta.store.GetTask(context.Background(), server.AnonymousOwner, task.ID)
	if rec.Task.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("state after the executor returned: %s", rec.Task.Status.State)
	}
}

// counter records how many executions of one task run at once.
type counter struct {
	mu      sync.Mutex
	cur     int
	max     int
	entered chan struct{}
	release chan struct{}
}

func (c *counter) Execute(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) error {
	c.mu.Lock()
	c.cur++
	if c.cur > c.max {
		c.max = c.cur
	}
	c.mu.Unlock()
	defer func() { c.mu.Lock(); c.cur--; c.mu.Unlock() }()
	if err := u.Working(ctx, ""); err != nil {
		return err
	}
	c.entered <- struct{}{}
	<-c.release
	return u.InputRequired(ctx, "more?")
}

func (c *counter) Cancel(context.Context, *taskmanager.Request, *taskmanager.Updater) error {
	return nil
}

func TestTwoMessagesForOneTaskNeverRunAtOnce(t *testing.T) {
	c := &counter{entered: make(chan struct{}, 4), release: make(chan struct{})}
	ta := newTestAgent(t, func(_ *server.Config, m *taskmanager.Config) {
		m.Executor = c
		m.LeaseWait = 5 * time.Second
	})
	task := ta.send("first", func(r *a2a.SendMessageRequest) {
		r.Configuration = &a2a.SendMessageConfiguration{ReturnImmediately: true}
	})
	<-c.entered
	var wg sync.WaitGroup
	results := make(chan *a2a.Task, 2)
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r := ta.rpc("SendMessage", a2a.SendMessageRequest{Message: &a2a.Message{MessageID: fmt.Sprint("c", i), TaskID: task.ID, Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("next")}}})
			var res a2a.SendMessageResponse
			_ = json.Unmarshal(r.Result, &res)
			results <- res.Task
		}(i)
	}
	for i := 0; i < 3; i++ {
		c.release <- struct{}{}
		if i < 2 {
			<-c.entered
		}
	}
	wg.Wait()
	close(results)
	for res := range results {
		if res == nil || res.Status.State != a2a.TaskStateInputRequired {
			t.Fatalf("continuation result %+v", res)
		}
	}
	if c.max != 1 {
		t.Fatalf("%d executions of one task ran at once", c.max)
	}
}

func TestBusyTaskRefusesAfterTheLeaseWait(t *testing.T) {
	c := &counter{entered: make(chan struct{}, 4), release: make(chan struct{})}
	ta := newTestAgent(t, func(_ *server.Config, m *taskmanager.Config) {
		m.Executor = c
		m.LeaseWait = 150 * time.Millisecond
	})
	task := ta.send("first", func(r *a2a.SendMessageRequest) {
		r.Configuration = &a2a.SendMessageConfiguration{ReturnImmediately: true}
	})
	<-c.entered
	r := ta.rpc("SendMessage", a2a.SendMessageRequest{Message: &a2a.Message{MessageID: "c", TaskID: task.ID, Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("next")}}})
	close(c.release)
	if r.Error == nil || r.Error.Code != -32004 || !strings.Contains(r.Error.Message, "still processing") {
		t.Fatalf("got %+v", r.Error)
	}
}

// sseEvents reads SSE data payloads until the stream ends.
func sseEvents(t *testing.T, body io.Reader) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "data: ") {
			out = append(out, json.RawMessage(strings.TrimPrefix(line, "data: ")))
		}
	}
	return out
}

func kinds(t *testing.T, evs []json.RawMessage, jsonrpc bool) []string {
	t.Helper()
	var out []string
	for _, raw := range evs {
		if jsonrpc {
			var env rpcReply
			if err := json.Unmarshal(raw, &env); err != nil || env.Result == nil {
				t.Fatalf("bad envelope %s", raw)
			}
			raw = env.Result
		}
		var ev a2a.StreamResponse
		if err := json.Unmarshal(raw, &ev); err != nil {
			t.Fatal(err)
		}
		k := ev.Kind()
		if ev.StatusUpdate != nil {
			k += ":" + string(ev.StatusUpdate.Status.State)
		}
		out = append(out, k)
	}
	return out
}

func TestStreamingOnBothBindings(t *testing.T) {
	ta := newTestAgent(t, nil)
	want := []string{"task", "statusUpdate:TASK_STATE_WORKING", "artifactUpdate", "statusUpdate:TASK_STATE_COMPLETED"}
	t.Run("jsonrpc", func(t *testing.T) {
		resp := ta.post("/", `{"jsonrpc":"2.0","id":7,"method":"SendStreamingMessage","params":{"message":{"messageId":"s1","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`, nil)
		defer resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" || resp.Header.Get("X-Accel-Buffering") != "no" {
			t.Fatalf("headers %v", resp.Header)
		}
		evs := sseEvents(t, resp.Body)
		if got := kinds(t, evs, true); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("events %v", got)
		}
		var env rpcReply
		_ = json.Unmarshal(evs[0], &env)
		if string(env.ID) != "7" {
			t.Fatalf("stream envelope id %s", env.ID)
		}
	})
	t.Run("rest", func(t *testing.T) {
		resp := ta.post("/rest/message:stream", `{"message":{"messageId":"s2","role":"ROLE_USER","parts":[{"text":"hi"}]}}`, nil)
		defer resp.Body.Close()
		if got := kinds(t, sseEvents(t, resp.Body), false); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("events %v", got)
		}
	})
	t.Run("direct message stream is one event", func(t *testing.T) {
		resp := ta.post("/rest/message:stream", `{"message":{"messageId":"s3","role":"ROLE_USER","parts":[{"text":"/message"}]}}`, nil)
		defer resp.Body.Close()
		if got := kinds(t, sseEvents(t, resp.Body), false); strings.Join(got, ",") != "message" {
			t.Fatalf("events %v", got)
		}
	})
	t.Run("error before the first event is a normal response", func(t *testing.T) {
		resp := ta.post("/rest/tasks/nope:subscribe", ``, nil)
		defer resp.Body.Close()
		if resp.StatusCode != 404 || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("status %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	})
}

func TestSubscribersSeeTheSameEventsInTheSameOrder(t *testing.T) {
	ta := newTestAgent(t, nil)
	task := ta.send("/slow 5", func(r *a2a.SendMessageRequest) {
		r.Configuration = &a2a.SendMessageConfiguration{ReturnImmediately: true}
	})
	var wg sync.WaitGroup
	streams := make([][]json.RawMessage, 3)
	for i := range streams {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			var resp *http.Response
			if i%2 == 0 {
				resp = ta.post("/rest/tasks/"+task.ID+":subscribe", "", nil)
			} else {
				req, _ := http.NewRequest(http.MethodGet, ta.srv.URL+"/rest/tasks/"+task.ID+":subscribe", nil)
				req.Header.Set("A2A-Version", "1.0")
				resp, _ = ta.srv.Client().Do(req)
			}
			defer resp.Body.Close()
			streams[i] = sseEvents(t, resp.Body)
		}(i)
	}
	wg.Wait()
	tail := func(evs []json.RawMessage) []string {
		var out []string
		for _, e := range evs[1:] { // skip the snapshot: subscribers joined at different times
			out = append(out, string(e))
		}
		return out
	}
	for i, s := range streams {
		if len(s) < 2 || !strings.HasPrefix(string(s[0]), `{"task":`) {
			t.Fatalf("stream %d does not start with the task: %s", i, s)
		}
		var last a2a.StreamResponse
		_ = json.Unmarshal(s[len(s)-1], &last)
		if last.StatusUpdate == nil || last.StatusUpdate.Status.State != a2a.TaskStateCompleted {
			t.Fatalf("stream %d does not end at the terminal state", i)
		}
	}
	// Each stream is a suffix of the longest one: same events, same order.
	longest := tail(streams[0])
	for _, s := range streams[1:] {
		if tt := tail(s); len(tt) > len(longest) {
			longest = tt
		}
	}
	for i, s := range streams {
		tt := tail(s)
		suffix := longest[len(longest)-len(tt):]
		if strings.Join(tt, "\n") != strings.Join(suffix, "\n") {
			t.Fatalf("stream %d differs from the others", i)
		}
	}
	t.Run("a terminal task cannot be subscribed", func(t *testing.T) {
		resp := ta.post("/rest/tasks/"+task.ID+":subscribe", "", nil)
		defer resp.Body.Close()
		if resp.StatusCode != 400 {
			t.Fatalf("status %d", resp.StatusCode)
		}
	})
}

func TestSSEKeepAliveAndClosedClient(t *testing.T) {
	returned := make(chan struct{}, 1)
	ta := newTestAgent(t, func(s *server.Config, _ *taskmanager.Config) { s.KeepAlive = 30 * time.Millisecond })
	wrapped := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ta.a2a.ServeHTTP(w, r)
		returned <- struct{}{}
	}))
	defer wrapped.Close()
	task := ta.send("/slow 500", func(r *a2a.SendMessageRequest) {
		r.Configuration = &a2a.SendMessageConfiguration{ReturnImmediately: true}
	})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, wrapped.URL+"/rest/tasks/"+task.ID+":subscribe", nil)
	req.Header.Set("A2A-Version", "1.0")
	resp, err := wrapped.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	sawKeepAlive := false
	for i := 0; i < 200 && !sawKeepAlive; i++ {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		sawKeepAlive = strings.HasPrefix(line, ": keep-alive")
	}
	if !sawKeepAlive {
		t.Fatal("no keep-alive comment")
	}
	cancel()
	resp.Body.Close()
	select {
	case <-returned:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler did not notice the closed client")
	}
	ta.rpc("CancelTask", a2a.CancelTaskRequest{ID: task.ID})
}

func TestListTasks(t *testing.T) {
	ta := newTestAgent(t, nil)
	ctxA := "ctx-a"
	for i := 0; i < 5; i++ {
		ta.send(fmt.Sprint("a", i), func(r *a2a.SendMessageRequest) { r.Message.ContextID = ctxA })
	}
	for i := 0; i < 3; i++ {
		ta.send("/interview", nil)
	}
	list := func(p a2a.ListTasksRequest) (a2a.ListTasksResponse, rpcReply) {
		r := ta.rpc("ListTasks", p)
		var res a2a.ListTasksResponse
		_ = json.Unmarshal(r.Result, &res)
		return res, r
	}
	two := int32(2)
	var seen []string
	p := a2a.ListTasksRequest{PageSize: &two}
	for page := 0; ; page++ {
		res, r := list(p)
		if r.Error != nil {
			t.Fatal(r.Error)
		}
		if res.TotalSize != 8 || res.PageSize != 2 {
			t.Fatalf("total %d pageSize %d", res.TotalSize, res.PageSize)
		}
		for _, tk := range res.Tasks {
			seen = append(seen, tk.ID)
			if tk.Artifacts != nil {
				t.Fatal("artifacts returned without includeArtifacts")
			}
		}
		if !strings.Contains(string(r.Result), `"nextPageToken"`) {
			t.Fatal("nextPageToken missing")
		}
		if res.NextPageToken == "" {
			break
		}
		p.PageToken = res.NextPageToken
		if page > 10 {
			t.Fatal("paging does not end")
		}
	}
	if len(seen) != 8 {
		t.Fatalf("paged through %d tasks, want 8", len(seen))
	}
	all, _ := list(a2a.ListTasksRequest{IncludeArtifacts: a2a.Ptr(true)})
	for i := 1; i < len(all.Tasks); i++ {
		if all.Tasks[i-1].Status.Timestamp.Before(*all.Tasks[i].Status.Timestamp) {
			t.Fatal("not ordered by status timestamp descending")
		}
	}
	if ctxOnly, _ := list(a2a.ListTasksRequest{ContextID: ctxA}); ctxOnly.TotalSize != 5 {
		t.Fatalf("contextId filter: %d", ctxOnly.TotalSize)
	}
	if st, _ := list(a2a.ListTasksRequest{Status: a2a.TaskStateInputRequired}); st.TotalSize != 3 {
		t.Fatalf("status filter: %d", st.TotalSize)
	}
	future := time.Now().Add(time.Hour)
	if after, _ := list(a2a.ListTasksRequest{StatusTimestampAfter: &future}); after.TotalSize != 0 {
		t.Fatalf("statusTimestampAfter filter: %d", after.TotalSize)
	}
	if withArt, _ := list(a2a.ListTasksRequest{ContextID: ctxA, IncludeArtifacts: a2a.Ptr(true)}); len(withArt.Tasks[0].Artifacts) == 0 {
		t.Fatal("includeArtifacts returned no artifacts")
	}
	for name, bad := range map[string]a2a.ListTasksRequest{
		"page size 0":              {PageSize: a2a.Ptr(int32(0))},
		"page size 101":            {PageSize: a2a.Ptr(int32(101))},
		"forged token":             {PageToken: "bm90LWEtdG9rZW4"},
		"token of another filter":  {PageSize: &two, PageToken: func() string { r, _ := list(a2a.ListTasksRequest{PageSize: &two}); return r.NextPageToken }(), ContextID: ctxA},
		"negative history length":  {HistoryLength: a2a.Ptr(int32(-2))},
		"unknown status enum name": {Status: "TASK_STATE_SLEEPING"},
	} {
		if _, r := list(bad); r.Error == nil || r.Error.Code != -32602 {
			t.Errorf("%s: got %+v", name, r.Error)
		}
	}
	t.Run("rest query parameters", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, ta.srv.URL+"/rest/tasks?contextId="+ctxA+"&pageSize=3&status=TASK_STATE_COMPLETED&includeArtifacts=true&historyLength=1", nil)
		req.Header.Set("A2A-Version", "1.0")
		resp, err := ta.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var res a2a.ListTasksResponse
		_ = json.NewDecoder(resp.Body).Decode(&res)
		if res.TotalSize != 5 || len(res.Tasks) != 3 || len(res.Tasks[0].History) != 1 || len(res.Tasks[0].Artifacts) == 0 {
			t.Fatalf("rest list: total %d len %d", res.TotalSize, len(res.Tasks))
		}
	})
}

func TestTasksAreScopedToTheirOwner(t *testing.T) {
	ta := newTestAgent(t, func(s *server.Config, _ *taskmanager.Config) {
		s.Owner = func(ctx context.Context) (string, error) { return server.OwnerFromContext(ctx) }
	})
	// Owners come from a header in this test only.
	owned := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ta.a2a.ServeHTTP(w, r.WithContext(server.WithOwner(r.Context(), r.Header.Get("X-Test-Owner"))))
	}))
	defer owned.Close()
	call := func(owner, method string, params any) rpcReply {
		p, _ := json.Marshal(params)
		req, _ := http.NewRequest(http.MethodPost, owned.URL, bytes.NewReader([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, p))))
		req.Header.Set("A2A-Version", "1.0")
		req.Header.Set("X-Test-Owner", owner)
		resp, err := owned.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r rpcReply
		_ = json.NewDecoder(resp.Body).Decode(&r)
		return r
	}
	r := call("alice", "SendMessage", a2a.SendMessageRequest{Message: &a2a.Message{MessageID: "a", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("/interview")}}})
	var res a2a.SendMessageResponse
	_ = json.Unmarshal(r.Result, &res)
	id := res.Task.ID
	for name, tc := range map[string]struct {
		method string
		params any
	}{
		"get":       {"GetTask", a2a.GetTaskRequest{ID: id}},
		"cancel":    {"CancelTask", a2a.CancelTaskRequest{ID: id}},
		"continue":  {"SendMessage", a2a.SendMessageRequest{Message: &a2a.Message{MessageID: "b", TaskID: id, Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("Mallory")}}}},
		"subscribe": {"SubscribeToTask", a2a.SubscribeToTaskRequest{ID: id}},
	} {
		if r := call("bob", tc.method, tc.params); r.Error == nil || r.Error.Code != -32001 {
			t.Errorf("bob %s alice's task: got %+v, want TaskNotFound", name, r.Error)
		}
	}
	var list a2a.ListTasksResponse
	_ = json.Unmarshal(call("bob", "ListTasks", a2a.ListTasksRequest{}).Result, &list)
	if list.TotalSize != 0 {
		t.Fatalf("bob lists %d of alice's tasks", list.TotalSize)
	}
	if r := call("alice", "GetTask", a2a.GetTaskRequest{ID: id}); r.Error != nil {
		t.Fatalf("alice cannot read her own task: %+v", r.Error)
	}
}

func TestPushConfigMethodsAreRefusedWhenPushIsOff(t *testing.T) {
	ta := newTestAgent(t, nil)
	task := ta.send("hi", nil)
	for _, tc := range []struct {
		method string
		params any
	}{
		{"CreateTaskPushNotificationConfig", a2a.TaskPushNotificationConfig{TaskID: task.ID, URL: "https://example.com/hook"}},
		{"GetTaskPushNotificationConfig", a2a.GetTaskPushNotificationConfigRequest{TaskID: task.ID, ID: "x"}},
		{"ListTaskPushNotificationConfigs", a2a.ListTaskPushNotificationConfigsRequest{TaskID: task.ID}},
		{"DeleteTaskPushNotificationConfig", a2a.DeleteTaskPushNotificationConfigRequest{TaskID: task.ID, ID: "x"}},
	} {
		if r := ta.rpc(tc.method, tc.params); r.Error == nil || r.Error.Code != -32003 {
			t.Errorf("%s: got %+v", tc.method, r.Error)
		}
	}
	if !strings.Contains(string(mustJSON(t, ta.a2a.Card())), `"pushNotifications":false`) {
		t.Fatal("card does not say pushNotifications: false")
	}
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAgentCardCaching(t *testing.T) {
	ta := newTestAgent(t, nil)
	resp, err := ta.srv.Client().Get(ta.srv.URL + "/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	etag := resp.Header.Get("ETag")
	if resp.StatusCode != 200 || etag == "" || !strings.Contains(resp.Header.Get("Cache-Control"), "max-age=") || resp.Header.Get("Last-Modified") == "" {
		t.Fatalf("status %d headers %v", resp.StatusCode, resp.Header)
	}
	var card a2a.AgentCard
	if err := json.Unmarshal(body, &card); err != nil || card.Name == "" || len(card.SupportedInterfaces) != 2 {
		t.Fatalf("card %s", body)
	}
	req, _ := http.NewRequest(http.MethodGet, ta.srv.URL+"/.well-known/agent-card.json", nil)
	req.Header.Set("If-None-Match", etag)
	resp, err = ta.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotModified {
		t.Fatalf("If-None-Match: status %d", resp.StatusCode)
	}
	c := *ta.a2a.Card()
	c.Version = "2.0.0"
	if err := ta.a2a.SetCard(&c); err != nil {
		t.Fatal(err)
	}
	resp, _ = ta.srv.Client().Do(req)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("ETag") == etag {
		t.Fatal("the ETag did not change with the card")
	}
}

func TestExtendedCard(t *testing.T) {
	ta := newTestAgent(t, nil)
	if r := ta.rpc("GetExtendedAgentCard", nil); r.Error == nil || r.Error.Code != -32004 {
		t.Fatalf("not declared: %+v", r.Error)
	}
	ta2 := newTestAgent(t, func(s *server.Config, _ *taskmanager.Config) {
		s.Card.Capabilities.ExtendedAgentCard = a2a.Ptr(true)
	})
	if r := ta2.rpc("GetExtendedAgentCard", nil); r.Error == nil || r.Error.Code != -32007 {
		t.Fatalf("declared, not configured: %+v", r.Error)
	}
}

func TestRESTRoutes(t *testing.T) {
	ta := newTestAgent(t, nil)
	task := ta.send("hello", nil)
	do := func(method, path, body string) (*http.Response, []byte) {
		req, _ := http.NewRequest(method, ta.srv.URL+path, strings.NewReader(body))
		req.Header.Set("A2A-Version", "1.0")
		if body != "" {
			req.Header.Set("Content-Type", "application/a2a+json")
		}
		resp, err := ta.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	for _, tc := range []struct {
		method, path, body string
		status             int
		contains           string
	}{
		{"GET", "/rest/tasks/" + task.ID, "", 200, `"TASK_STATE_COMPLETED"`},
		{"GET", "/rest/tenant-a/tasks/" + task.ID, "", 200, task.ID},
		{"GET", "/rest/tasks/" + task.ID + "?historyLength=0", "", 200, task.ID},
		{"POST", "/rest/message:send", `{"message":{"messageId":"r1","role":"ROLE_USER","parts":[{"text":"x"}]}}`, 200, `{"task":`},
		{"POST", "/rest/tasks/" + task.ID + ":cancel", ``, 400, "TASK_NOT_CANCELABLE"},
		{"DELETE", "/rest/tasks/" + task.ID, "", 405, "not allowed"},
		{"GET", "/rest/message:send", "", 405, ""},
		{"GET", "/rest/nothing/here/at/all", "", 404, "no A2A"},
		{"GET", "/rest/tasks/nope", "", 404, "TASK_NOT_FOUND"},
		{"GET", "/rest/tasks?pageSize=abc", "", 400, "pageSize"},
		{"GET", "/rest/tasks?status=NOPE", "", 400, "status"},
		{"GET", "/rest/tasks/" + task.ID + "/pushNotificationConfigs", "", 400, "PUSH_NOTIFICATION_NOT_SUPPORTED"},
		{"GET", "/rest/extendedAgentCard", "", 400, "UNSUPPORTED_OPERATION"},
		{"POST", "/rest/message:send", `{"message":`, 400, "INVALID_ARGUMENT"},
	} {
		resp, body := do(tc.method, tc.path, tc.body)
		if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.contains) {
			t.Errorf("%s %s: %d %s", tc.method, tc.path, resp.StatusCode, body)
		}
		if ct := resp.Header.Get("Content-Type"); !strings.Contains(ct, "application/json") {
			t.Errorf("%s %s: content type %q", tc.method, tc.path, ct)
		}
	}
}

func TestProtoFieldNamesAreAcceptedBesideJSONNames(t *testing.T) {
	ta := newTestAgent(t, nil)
	task := ta.send("hello", func(r *a2a.SendMessageRequest) { r.Message.ContextID = "ctx-snake" })
	r := ta.rpc("GetTask", map[string]any{"id": task.ID, "history_length": 1})
	var got a2a.Task
	_ = json.Unmarshal(r.Result, &got)
	if r.Error != nil || len(got.History) != 1 {
		t.Fatalf("history_length ignored: %d messages (%+v)", len(got.History), r.Error)
	}
	r = ta.rpc("ListTasks", map[string]any{"context_id": "no-such-context", "page_size": 5})
	var list a2a.ListTasksResponse
	_ = json.Unmarshal(r.Result, &list)
	if list.TotalSize != 0 || list.PageSize != 5 {
		t.Fatalf("context_id/page_size ignored: total %d, pageSize %d", list.TotalSize, list.PageSize)
	}
	// Keys inside metadata are data, not field names: kept as sent.
	task = ta.send("x", func(r *a2a.SendMessageRequest) {
		r.Message.Metadata = map[string]any{"my_key": map[string]any{"inner_key": 1}}
	})
	if _, ok := task.History[0].Metadata["my_key"].(map[string]any)["inner_key"]; !ok {
		t.Fatalf("metadata keys were rewritten: %v", task.History[0].Metadata)
	}
}

func TestInlinePushConfigIsRegisteredWithTheTask(t *testing.T) {
	ta := newTestAgent(t, func(s *server.Config, _ *taskmanager.Config) {
		s.PushEnabled = true
		s.Card.Capabilities.PushNotifications = a2a.Ptr(true)
	})
	task := ta.send("hi", func(r *a2a.SendMessageRequest) {
		r.Configuration = &a2a.SendMessageConfiguration{TaskPushNotificationConfig: &a2a.TaskPushNotificationConfig{URL: "https://hooks.example.com/a2a", Token: "t"}}
	})
	r := ta.rpc("ListTaskPushNotificationConfigs", a2a.ListTaskPushNotificationConfigsRequest{TaskID: task.ID})
	var list a2a.ListTaskPushNotificationConfigsResponse
	_ = json.Unmarshal(r.Result, &list)
	if r.Error != nil || len(list.Configs) != 1 || list.Configs[0].URL != "https://hooks.example.com/a2a" || list.Configs[0].TaskID != task.ID || list.Configs[0].ID == "" {
		t.Fatalf("configs %+v (%+v)", list.Configs, r.Error)
	}
	r = ta.rpc("DeleteTaskPushNotificationConfig", a2a.DeleteTaskPushNotificationConfigRequest{TaskID: task.ID, ID: list.Configs[0].ID})
	if r.Error != nil || string(r.Result) != "{}" {
		t.Fatalf("delete: %s %+v", r.Result, r.Error)
	}
	if r := ta.rpc("DeleteTaskPushNotificationConfig", a2a.DeleteTaskPushNotificationConfigRequest{TaskID: task.ID, ID: list.Configs[0].ID}); r.Error != nil {
		t.Fatalf("second delete is not idempotent: %+v", r.Error)
	}
}

func TestPushURLRefusalDoesNotRevealResolution(t *testing.T) {
	ta := newTestAgent(t, func(s *server.Config, _ *taskmanager.Config) {
		s.PushEnabled = true
		s.Card.Capabilities.PushNotifications = a2a.Ptr(true)
		s.CheckPushURL = func(context.Context, string) error {
			return errors.New(`netguard: blocked "vm" (10.1.2.3:443): private; lookup x on 10.255.255.53:53`)
		}
	})
	task := ta.send("hi", nil)
	for _, path := range []string{"/", "/rest/tasks/" + task.ID + "/pushNotificationConfigs"} {
		body := `{"url":"https://vm/hook"}`
		if path == "/" {
			body = `{"jsonrpc":"2.0","id":1,"method":"CreateTaskPushNotificationConfig","params":{"taskId":"` + task.ID + `","url":"https://vm/hook"}}`
		}
		resp := ta.post(path, body, nil)
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(raw), "refused by the outbound network policy") {
			t.Fatalf("%s: no refusal: %s", path, raw)
		}
		for _, leak := range []string{"10.1.2.3", "10.255.255.53", "lookup", `"vm"`} {
			if strings.Contains(string(raw), leak) {
				t.Errorf("%s: the refusal reveals %q: %s", path, leak, raw)
			}
		}
	}
}
