package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// fakeAgent is an httptest server that records every request and answers
// with the handler the test sets. Its card lists a JSON-RPC interface at
// /rpc and an HTTP+JSON one at /rest.
type fakeAgent struct {
	srv    *httptest.Server
	tenant string

	mu      sync.Mutex
	reqs    []fakeRequest
	handler http.HandlerFunc
}

type fakeRequest struct {
	method, path, query string
	header              http.Header
	body                []byte
}

func newFakeAgent(t *testing.T, tenant string) *fakeAgent {
	t.Helper()
	a := &fakeAgent{tenant: tenant}
	a.srv = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.srv.Close)
	return a
}

func (a *fakeAgent) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	a.mu.Lock()
	a.reqs = append(a.reqs, fakeRequest{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, r.Header.Clone(), body})
	h := a.handler
	a.mu.Unlock()
	if r.URL.Path == "/.well-known/agent-card.json" {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(a.card())
		return
	}
	if h == nil {
		http.Error(w, "no handler", http.StatusInternalServerError)
		return
	}
	h(w, r)
}

func (a *fakeAgent) card() *a2a.AgentCard {
	return &a2a.AgentCard{
		Name: "fake", Description: "test agent", Version: "1",
		SupportedInterfaces: []a2a.AgentInterface{
			{URL: a.srv.URL + "/rpc", ProtocolBinding: a2a.BindingJSONRPC, ProtocolVersion: "1.0", Tenant: a.tenant},
			{URL: a.srv.URL + "/rest/", ProtocolBinding: a2a.BindingHTTPJSON, ProtocolVersion: "1.0", Tenant: a.tenant},
		},
	}
}

func (a *fakeAgent) handle(h http.HandlerFunc) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.handler = h
	a.reqs = nil
}

func (a *fakeAgent) requests() []fakeRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]fakeRequest(nil), a.reqs...)
}

func (a *fakeAgent) client(t *testing.T, binding string, opts ...Option) *Client {
	t.Helper()
	opts = append([]Option{WithHTTPClient(a.srv.Client()), WithBinding(binding)}, opts...)
	c, err := New(a.card(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// rpcID reads the id of a JSON-RPC request body.
func rpcID(t *testing.T, r *http.Request) json.RawMessage {
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		t.Errorf("request body is not JSON: %v", err)
	}
	return req.ID
}

func rpcAnswer(t *testing.T, result string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, rpcID(t, r), result)
	}
}

func jsonAnswer(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// sameJSON compares two JSON texts by value.
func sameJSON(t *testing.T, got []byte, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("got invalid JSON %q: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want invalid JSON %q: %v", want, err)
	}
	return reflect.DeepEqual(g, w)
}

const (
	taskJSON = `{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}`
	pushJSON = `{"id":"p1","taskId":"t1","url":"https://hook.example/x"}`
	cardJSON = `{"name":"ext","description":"","supportedInterfaces":[],"version":"2","capabilities":{},"defaultInputModes":[],"defaultOutputModes":[],"skills":[]}`
)

var testMessage = &a2a.Message{MessageID: "m1", Role: a2a.RoleUser, Parts: []a2a.Part{{Kind: a2a.PartText, Text: "hi"}}}

// clientCase is one operation as both bindings must carry it.
type clientCase struct {
	name   string
	call   func(ctx context.Context, c *Client) (any, error)
	result string // the response message, JSON

	rpcMethod string
	rpcParams string

	verb, path, query string
	body              string // "" = no body
}

func clientCases() []clientCase {
	after := time.Date(2026, 11, 30, 10, 0, 0, 5e6, time.UTC)
	return []clientCase{
		{
			name: "SendMessage",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.SendMessage(ctx, &a2a.SendMessageRequest{Message: testMessage, Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true}})
			},
			result:    `{"task":` + taskJSON + `}`,
			rpcMethod: "SendMessage",
			rpcParams: `{"tenant":"acme","message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]},"configuration":{"returnImmediately":true}}`,
			verb:      "POST", path: "/rest/acme/message:send",
			body: `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]},"configuration":{"returnImmediately":true}}`,
		},
		{
			name: "GetTask",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetTask(ctx, &a2a.GetTaskRequest{ID: "t1", HistoryLength: a2a.Ptr[int32](2)})
			},
			result:    taskJSON,
			rpcMethod: "GetTask", rpcParams: `{"tenant":"acme","id":"t1","historyLength":2}`,
			verb: "GET", path: "/rest/acme/tasks/t1", query: "historyLength=2",
		},
		{
			name: "ListTasks",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ListTasks(ctx, &a2a.ListTasksRequest{
					ContextID: "c1", Status: a2a.TaskStateWorking, PageSize: a2a.Ptr[int32](10), PageToken: "tok",
					HistoryLength: a2a.Ptr[int32](0), StatusTimestampAfter: &after, IncludeArtifacts: a2a.Ptr(true),
				})
			},
			result:    `{"tasks":[` + taskJSON + `],"nextPageToken":"","pageSize":10,"totalSize":1}`,
			rpcMethod: "ListTasks",
			rpcParams: `{"tenant":"acme","contextId":"c1","status":"TASK_STATE_WORKING","pageSize":10,"pageToken":"tok","historyLength":0,"statusTimestampAfter":"2026-11-30T10:00:00.005Z","includeArtifacts":true}`,
			verb:      "GET", path: "/rest/acme/tasks",
			query: "contextId=c1&historyLength=0&includeArtifacts=true&pageSize=10&pageToken=tok&status=TASK_STATE_WORKING&statusTimestampAfter=2026-11-30T10%3A00%3A00.005Z",
		},
		{
			name: "CancelTask",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: "t1"})
			},
			result:    taskJSON,
			rpcMethod: "CancelTask", rpcParams: `{"tenant":"acme","id":"t1"}`,
			verb: "POST", path: "/rest/acme/tasks/t1:cancel", body: `{}`,
		},
		{
			name: "CancelTaskWithMetadata",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: "t1", Metadata: a2a.Metadata{"why": "done"}})
			},
			result:    taskJSON,
			rpcMethod: "CancelTask", rpcParams: `{"tenant":"acme","id":"t1","metadata":{"why":"done"}}`,
			verb: "POST", path: "/rest/acme/tasks/t1:cancel", body: `{"metadata":{"why":"done"}}`,
		},
		{
			name: "CreateTaskPushNotificationConfig",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateTaskPushNotificationConfig(ctx, &a2a.TaskPushNotificationConfig{TaskID: "t1", URL: "https://hook.example/x"})
			},
			result:    pushJSON,
			rpcMethod: "CreateTaskPushNotificationConfig", rpcParams: `{"tenant":"acme","taskId":"t1","url":"https://hook.example/x"}`,
			verb: "POST", path: "/rest/acme/tasks/t1/pushNotificationConfigs", body: `{"taskId":"t1","url":"https://hook.example/x"}`,
		},
		{
			name: "GetTaskPushNotificationConfig",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetTaskPushNotificationConfig(ctx, &a2a.GetTaskPushNotificationConfigRequest{TaskID: "t1", ID: "p1"})
			},
			result:    pushJSON,
			rpcMethod: "GetTaskPushNotificationConfig", rpcParams: `{"tenant":"acme","taskId":"t1","id":"p1"}`,
			verb: "GET", path: "/rest/acme/tasks/t1/pushNotificationConfigs/p1",
		},
		{
			name: "ListTaskPushNotificationConfigs",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ListTaskPushNotificationConfigs(ctx, &a2a.ListTaskPushNotificationConfigsRequest{TaskID: "t1", PageSize: 5, PageToken: "n"})
			},
			result:    `{"configs":[` + pushJSON + `],"nextPageToken":"m"}`,
			rpcMethod: "ListTaskPushNotificationConfigs", rpcParams: `{"tenant":"acme","taskId":"t1","pageSize":5,"pageToken":"n"}`,
			verb: "GET", path: "/rest/acme/tasks/t1/pushNotificationConfigs", query: "pageSize=5&pageToken=n",
		},
		{
			name: "DeleteTaskPushNotificationConfig",
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.DeleteTaskPushNotificationConfig(ctx, &a2a.DeleteTaskPushNotificationConfigRequest{TaskID: "t1", ID: "p1"})
			},
			result:    `{}`,
			rpcMethod: "DeleteTaskPushNotificationConfig", rpcParams: `{"tenant":"acme","taskId":"t1","id":"p1"}`,
			verb: "DELETE", path: "/rest/acme/tasks/t1/pushNotificationConfigs/p1",
		},
		{
			name: "GetExtendedAgentCard",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetExtendedAgentCard(ctx)
			},
			result:    cardJSON,
			rpcMethod: "GetExtendedAgentCard", rpcParams: `{"tenant":"acme"}`,
			verb: "GET", path: "/rest/acme/extendedAgentCard",
		},
	}
}

// checkResult compares what a call returned with the canned result.
func checkResult(t *testing.T, got any, want string) {
	t.Helper()
	if got == nil || reflect.ValueOf(got).IsNil() {
		return // Delete
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if !sameJSON(t, b, want) {
		t.Errorf("result = %s, want %s", b, want)
	}
}

func TestJSONRPCCallsEveryMethod(t *testing.T) {
	a := newFakeAgent(t, "acme")
	c := a.client(t, a2a.BindingJSONRPC)
	ids := map[string]bool{}
	for _, tc := range clientCases() {
		t.Run(tc.name, func(t *testing.T) {
			a.handle(rpcAnswer(t, tc.result))
			got, err := tc.call(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, got, tc.result)
			reqs := a.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.method != "POST" || r.path != "/rpc" {
				t.Errorf("request %s %s, want POST /rpc", r.method, r.path)
			}
			if v := r.header.Get("A2A-Version"); v != "1.0" {
				t.Errorf("A2A-Version = %q, want 1.0", v)
			}
			if ct := r.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
			var env struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Method  string          `json:"method"`
				Params  json.RawMessage `json:"params"`
			}
			if err := json.Unmarshal(r.body, &env); err != nil {
				t.Fatal(err)
			}
			if env.JSONRPC != "2.0" || env.Method != tc.rpcMethod {
				t.Errorf("envelope jsonrpc=%q method=%q, want 2.0 %q", env.JSONRPC, env.Method, tc.rpcMethod)
			}
			if !sameJSON(t, env.Params, tc.rpcParams) {
				t.Errorf("params = %s, want %s", env.Params, tc.rpcParams)
			}
			if ids[string(env.ID)] {
				t.Errorf("id %s reused", env.ID)
			}
			ids[string(env.ID)] = true
		})
	}
}

func TestRESTCallsEveryRoute(t *testing.T) {
	a := newFakeAgent(t, "acme")
	c := a.client(t, a2a.BindingHTTPJSON)
	for _, tc := range clientCases() {
		t.Run(tc.name, func(t *testing.T) {
			a.handle(jsonAnswer(http.StatusOK, tc.result))
			got, err := tc.call(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, got, tc.result)
			reqs := a.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.method != tc.verb || r.path != tc.path || r.query != tc.query {
				t.Errorf("request %s %s?%s, want %s %s?%s", r.method, r.path, r.query, tc.verb, tc.path, tc.query)
			}
			if v := r.header.Get("A2A-Version"); v != "1.0" {
				t.Errorf("A2A-Version = %q, want 1.0", v)
			}
			if tc.body == "" {
				if len(r.body) != 0 {
					t.Errorf("body = %s, want none", r.body)
				}
				return
			}
			if !sameJSON(t, r.body, tc.body) {
				t.Errorf("body = %s, want %s", r.body, tc.body)
			}
		})
	}
}

func TestDeleteAcceptsEmptyBody(t *testing.T) {
	a := newFakeAgent(t, "")
	req := &a2a.DeleteTaskPushNotificationConfigRequest{TaskID: "t1", ID: "p1"}
	a.handle(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	if err := a.client(t, a2a.BindingHTTPJSON).DeleteTaskPushNotificationConfig(context.Background(), req); err != nil {
		t.Fatalf("REST: %v", err)
	}
	a.handle(rpcAnswer(t, "null"))
	if err := a.client(t, a2a.BindingJSONRPC).DeleteTaskPushNotificationConfig(context.Background(), req); err != nil {
		t.Fatalf("JSON-RPC: %v", err)
	}
}

func TestTenantFromRequestWhenInterfaceHasNone(t *testing.T) {
	a := newFakeAgent(t, "")
	a.handle(jsonAnswer(http.StatusOK, taskJSON))
	if _, err := a.client(t, a2a.BindingHTTPJSON).GetTask(context.Background(), &a2a.GetTaskRequest{Tenant: "t/x", ID: "t1"}); err != nil {
		t.Fatal(err)
	}
	if p := a.requests()[0].path; p != "/rest/t%2Fx/tasks/t1" {
		t.Errorf("path = %s, want the escaped tenant prefix", p)
	}
	a.handle(jsonAnswer(http.StatusOK, taskJSON))
	if _, err := a.client(t, a2a.BindingHTTPJSON).GetTask(context.Background(), &a2a.GetTaskRequest{ID: "t1"}); err != nil {
		t.Fatal(err)
	}
	if p := a.requests()[0].path; p != "/rest/tasks/t1" {
		t.Errorf("path = %s, want no tenant prefix", p)
	}
}

func TestInterfaceTenantOverridesRequestTenant(t *testing.T) {
	a := newFakeAgent(t, "acme")
	a.handle(rpcAnswer(t, taskJSON))
	if _, err := a.client(t, a2a.BindingJSONRPC).GetTask(context.Background(), &a2a.GetTaskRequest{Tenant: "other", ID: "t1"}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(a.requests()[0].body, []byte(`"tenant":"acme"`)) {
		t.Errorf("body %s does not carry the interface's tenant", a.requests()[0].body)
	}
}

// TestTaskIDCannotEscapeTasksPath pins the escaping of ids in REST paths: an
// id must stay one segment and must not become a custom verb.
func TestTaskIDCannotEscapeTasksPath(t *testing.T) {
	tests := []struct{ id, want string }{
		{"..", "/rest/tasks/%2E%2E"},
		{".", "/rest/tasks/%2E"},
		{"../extendedAgentCard", "/rest/tasks/..%2FextendedAgentCard"},
		{"x:cancel", "/rest/tasks/x%3Acancel"},
		{"a b?c#d", "/rest/tasks/a%20b%3Fc%23d"},
		{"v1.2", "/rest/tasks/v1.2"},
	}
	a := newFakeAgent(t, "")
	c := a.client(t, a2a.BindingHTTPJSON)
	for _, tt := range tests {
		a.handle(jsonAnswer(http.StatusOK, taskJSON))
		if _, err := c.GetTask(context.Background(), &a2a.GetTaskRequest{ID: tt.id}); err != nil {
			t.Fatalf("id %q: %v", tt.id, err)
		}
		r := a.requests()[0]
		if r.path != tt.want || r.query != "" {
			t.Errorf("id %q: path %s?%s, want %s", tt.id, r.path, r.query, tt.want)
		}
	}
}

func TestMissingRequiredFieldsFailBeforeSending(t *testing.T) {
	a := newFakeAgent(t, "")
	c := a.client(t, a2a.BindingHTTPJSON)
	ctx := context.Background()
	calls := map[string]func() error{
		"send nil":    func() error { _, err := c.SendMessage(ctx, nil); return err },
		"send no msg": func() error { _, err := c.SendMessage(ctx, &a2a.SendMessageRequest{}); return err },
		"stream":      func() error { _, err := c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{}); return err },
		"get":         func() error { _, err := c.GetTask(ctx, &a2a.GetTaskRequest{}); return err },
		"cancel":      func() error { _, err := c.CancelTask(ctx, nil); return err },
		"subscribe":   func() error { _, err := c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{}); return err },
		"create push": func() error {
			_, err := c.CreateTaskPushNotificationConfig(ctx, &a2a.TaskPushNotificationConfig{TaskID: "t"})
			return err
		},
		"get push": func() error {
			_, err := c.GetTaskPushNotificationConfig(ctx, &a2a.GetTaskPushNotificationConfigRequest{TaskID: "t"})
			return err
		},
		"list push": func() error { _, err := c.ListTaskPushNotificationConfigs(ctx, nil); return err },
		"delete push": func() error {
			return c.DeleteTaskPushNotificationConfig(ctx, &a2a.DeleteTaskPushNotificationConfigRequest{ID: "p"})
		},
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, a2a.ErrInvalidParams) {
			t.Errorf("%s: error = %v, want ErrInvalidParams", name, err)
		}
	}
	if n := len(a.requests()); n != 0 {
		t.Errorf("%d requests sent, want 0", n)
	}
}

const (
	notFoundRPC  = `{"jsonrpc":"2.0","id":%s,"error":{"code":-32001,"message":"task t9 not found","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org","metadata":{"taskId":"t9"}}]}}`
	notFoundREST = `{"error":{"code":404,"status":"NOT_FOUND","message":"task t9 not found","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org","metadata":{"taskId":"t9"}}]}}`
)

func TestErrorMapping(t *testing.T) {
	tests := []struct {
		name     string
		binding  string
		status   int
		ctype    string
		body     string // %s is the request id on JSON-RPC
		want     *a2a.Error
		wantMsg  string
		wantMeta string
	}{
		{"rpc task not found", a2a.BindingJSONRPC, 200, "application/json", notFoundRPC, a2a.ErrTaskNotFound, "task t9 not found", "t9"},
		{"rpc code only", a2a.BindingJSONRPC, 200, "application/json", `{"jsonrpc":"2.0","id":%s,"error":{"code":-32002,"message":"done already"}}`, a2a.ErrTaskNotCancelable, "done already", ""},
		{"rpc data of another shape", a2a.BindingJSONRPC, 200, "application/json", `{"jsonrpc":"2.0","id":%s,"error":{"code":-32004,"message":"no","data":{"x":1}}}`, a2a.ErrUnsupportedOperation, "no", ""},
		{"rpc null id on error", a2a.BindingJSONRPC, 200, "application/json", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad json"}}`, a2a.ErrParse, "bad json", ""},
		{"rpc error at HTTP 500", a2a.BindingJSONRPC, 500, "application/json", `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"boom"}}`, a2a.ErrInternal, "boom", ""},
		{"rpc 401 plain text", a2a.BindingJSONRPC, 401, "text/plain", "unauthorized", a2a.ErrUnauthenticated, "", ""},
		{"rpc 401 google.rpc.Status", a2a.BindingJSONRPC, 401, "application/json", `{"error":{"code":401,"status":"UNAUTHENTICATED","message":"token expired"}}`, a2a.ErrUnauthenticated, "token expired", ""},
		{"rest task not found", a2a.BindingHTTPJSON, 404, "application/json", notFoundREST, a2a.ErrTaskNotFound, "task t9 not found", "t9"},
		{"rest reason decides among 400s", a2a.BindingHTTPJSON, 400, "application/json", `{"error":{"code":400,"status":"FAILED_PRECONDITION","message":"x","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_CANCELABLE","domain":"a2a-protocol.org"}]}}`, a2a.ErrTaskNotCancelable, "x", ""},
		{"rest v1.0.0 status 409", a2a.BindingHTTPJSON, 409, "application/json", `{"error":{"code":409,"status":"FAILED_PRECONDITION","message":"x","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_CANCELABLE","domain":"a2a-protocol.org"}]}}`, a2a.ErrTaskNotCancelable, "x", ""},
		{"rest version not supported", a2a.BindingHTTPJSON, 400, "application/json", `{"error":{"code":400,"status":"FAILED_PRECONDITION","message":"v","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"VERSION_NOT_SUPPORTED","domain":"a2a-protocol.org"}]}}`, a2a.ErrVersionNotSupported, "v", ""},
		{"rest 503 html", a2a.BindingHTTPJSON, 503, "text/html", "<html>down</html>", a2a.ErrUnavailable, "", ""},
		{"rest 429 empty", a2a.BindingHTTPJSON, 429, "", "", a2a.ErrRateLimited, "", ""},
		{"rest 403 json of another shape", a2a.BindingHTTPJSON, 403, "application/json", `{"detail":"forbidden"}`, a2a.ErrPermissionDenied, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newFakeAgent(t, "")
			a.handle(func(w http.ResponseWriter, r *http.Request) {
				body := tt.body
				if tt.binding == a2a.BindingJSONRPC && strings.Contains(body, "%s") {
					body = fmt.Sprintf(body, rpcID(t, r))
				}
				if tt.ctype != "" {
					w.Header().Set("Content-Type", tt.ctype)
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, body)
			})
			_, err := a.client(t, tt.binding).GetTask(context.Background(), &a2a.GetTaskRequest{ID: "t9"})
			if !errors.Is(err, tt.want) {
				t.Fatalf("error = %v, want kind %v", err, tt.want)
			}
			var ae *a2a.Error
			if !errors.As(err, &ae) {
				t.Fatalf("error %v is not an *Error", err)
			}
			if tt.wantMsg != "" && ae.Message != tt.wantMsg {
				t.Errorf("message = %q, want %q", ae.Message, tt.wantMsg)
			}
			if tt.wantMeta != "" && ae.Metadata["taskId"] != tt.wantMeta {
				t.Errorf("metadata = %v, want taskId %s", ae.Metadata, tt.wantMeta)
			}
			if !strings.HasPrefix(err.Error(), "client: get task: ") {
				t.Errorf("error text %q lacks the operation", err)
			}
		})
	}
}

// TestUnknownA2AErrorKeepsCodeAndReason: a code from a later version (1.1's
// TaskGenerationMismatch) stays readable.
func TestUnknownA2AErrorKeepsCodeAndReason(t *testing.T) {
	a := newFakeAgent(t, "")
	a.handle(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32010,"message":"stale","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_GENERATION_MISMATCH","domain":"a2a-protocol.org"}]}}`, rpcID(t, r))
	})
	_, err := a.client(t, a2a.BindingJSONRPC).GetTask(context.Background(), &a2a.GetTaskRequest{ID: "t"})
	var ae *a2a.Error
	if !errors.As(err, &ae) || ae.Code != -32010 || ae.Reason != "TASK_GENERATION_MISMATCH" {
		t.Fatalf("error = %#v, want code -32010 with its reason", err)
	}
}

// TestProxyErrorPageDoesNotLeakIntoError: a proxy's HTML error page (which
// may echo internal host names or the request) never reaches the error text.
func TestProxyErrorPageDoesNotLeakIntoError(t *testing.T) {
	for _, binding := range []string{a2a.BindingJSONRPC, a2a.BindingHTTPJSON} {
		a := newFakeAgent(t, "")
		a.handle(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusBadGateway)
			io.WriteString(w, "<html><body>upstream 10.0.0.7:8080 SECRET-INTERNAL failed</body></html>")
		})
		_, err := a.client(t, binding).GetTask(context.Background(), &a2a.GetTaskRequest{ID: "t"})
		if err == nil {
			t.Fatal("no error")
		}
		msg := err.Error()
		if strings.Contains(msg, "SECRET-INTERNAL") || strings.Contains(msg, "10.0.0.7") || strings.Contains(msg, "<html") {
			t.Errorf("%s: error leaks the body: %q", binding, msg)
		}
		if !strings.Contains(msg, "502") || !strings.Contains(msg, "text/html") {
			t.Errorf("%s: error %q does not name the status and media type", binding, msg)
		}
		if !errors.Is(err, a2a.ErrInternal) {
			t.Errorf("%s: error %v, want the internal kind", binding, err)
		}
	}
}

func TestResponseCap(t *testing.T) {
	big := `{"id":"t1","status":{"state":"TASK_STATE_WORKING"},"metadata":{"pad":"` + strings.Repeat("x", 4096) + `"}}`
	for _, binding := range []string{a2a.BindingJSONRPC, a2a.BindingHTTPJSON} {
		a := newFakeAgent(t, "")
		if binding == a2a.BindingJSONRPC {
			a.handle(rpcAnswer(t, big))
		} else {
			a.handle(jsonAnswer(200, big))
		}
		c := a.client(t, binding, WithMaxResponseBytes(1024))
		_, err := c.GetTask(context.Background(), &a2a.GetTaskRequest{ID: "t1"})
		if !errors.Is(err, ErrResponseTooLarge) {
			t.Errorf("%s: error = %v, want ErrResponseTooLarge", binding, err)
		} else if want := "client: get task: response too large: the body exceeds 1024 bytes"; err.Error() != want {
			t.Errorf("%s: error text %q, want %q", binding, err, want)
		}
		c = a.client(t, binding, WithMaxResponseBytes(64<<10))
		if _, err := c.GetTask(context.Background(), &a2a.GetTaskRequest{ID: "t1"}); err != nil {
			t.Errorf("%s under a larger cap: %v", binding, err)
		}
	}
}

func TestResponseIDMismatchIsInvalidAgentResponse(t *testing.T) {
	a := newFakeAgent(t, "")
	a.handle(jsonAnswer(200, `{"jsonrpc":"2.0","id":999999,"result":`+taskJSON+`}`))
	_, err := a.client(t, a2a.BindingJSONRPC).GetTask(context.Background(), &a2a.GetTaskRequest{ID: "t1"})
	if !errors.Is(err, a2a.ErrInvalidAgentResponse) {
		t.Fatalf("error = %v, want ErrInvalidAgentResponse", err)
	}
}

func TestMalformedResponsesAreInvalidAgentResponse(t *testing.T) {
	tests := []struct{ name, binding, body string }{
		{"rpc not json", a2a.BindingJSONRPC, "hello"},
		{"rpc neither result nor error", a2a.BindingJSONRPC, `{"jsonrpc":"2.0","id":1}`},
		{"rest not json", a2a.BindingHTTPJSON, "hello"},
		{"rest empty", a2a.BindingHTTPJSON, ""},
		{"rest wrong shape", a2a.BindingHTTPJSON, `{"id":5}`},
		{"rest both members", a2a.BindingHTTPJSON, `{"task":` + taskJSON + `,"message":{"messageId":"m","role":"ROLE_AGENT","parts":[]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newFakeAgent(t, "")
			a.handle(jsonAnswer(200, tt.body))
			_, err := a.client(t, tt.binding).SendMessage(context.Background(), &a2a.SendMessageRequest{Message: testMessage})
			if !errors.Is(err, a2a.ErrInvalidAgentResponse) {
				t.Fatalf("error = %v, want ErrInvalidAgentResponse", err)
			}
		})
	}
}

// TestUnknownTaskStateIsKept: a state from a later version is neither
// dropped nor read as success.
func TestUnknownTaskStateIsKept(t *testing.T) {
	a := newFakeAgent(t, "")
	a.handle(jsonAnswer(200, `{"id":"t1","status":{"state":"TASK_STATE_PAUSED"},"generation":"4"}`))
	task, err := a.client(t, a2a.BindingHTTPJSON).GetTask(context.Background(), &a2a.GetTaskRequest{ID: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	if s := task.Status.State; s != "TASK_STATE_PAUSED" || s.Succeeded() || s.Terminal() || s.Known() {
		t.Fatalf("state = %q", s)
	}
}

func TestHeaderHook(t *testing.T) {
	a := newFakeAgent(t, "")
	a.handle(jsonAnswer(200, taskJSON))
	hook := func(ctx context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer abc")
		return nil
	}
	if _, err := a.client(t, a2a.BindingHTTPJSON, WithHeader(hook)).GetTask(context.Background(), &a2a.GetTaskRequest{ID: "t1"}); err != nil {
		t.Fatal(err)
	}
	if got := a.requests()[0].header.Get("Authorization"); got != "Bearer abc" {
		t.Errorf("Authorization = %q", got)
	}

	a.handle(jsonAnswer(200, taskJSON))
	denied := errors.New("no credential for this host")
	failing := func(context.Context, *http.Request) error { return denied }
	_, err := a.client(t, a2a.BindingHTTPJSON, WithHeader(failing)).GetTask(context.Background(), &a2a.GetTaskRequest{ID: "t1"})
	if !errors.Is(err, denied) {
		t.Fatalf("error = %v, want the hook's error", err)
	}
	if n := len(a.requests()); n != 0 {
		t.Errorf("%d requests sent after the hook failed", n)
	}
}

func TestNewClientFetchesCard(t *testing.T) {
	a := newFakeAgent(t, "acme")
	c, err := Dial(context.Background(), a.srv.URL+"/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	r := a.requests()[0]
	if r.method != "GET" || r.header.Get("Accept") != "application/json" || r.header.Get("A2A-Version") != "1.0" {
		t.Errorf("card request %s Accept=%q A2A-Version=%q", r.method, r.header.Get("Accept"), r.header.Get("A2A-Version"))
	}
	if in := c.Interface(); in.ProtocolBinding != a2a.BindingJSONRPC || in.Tenant != "acme" {
		t.Errorf("interface = %+v, want the first (JSON-RPC) one", in)
	}
	if c.Card().Name != "fake" {
		t.Errorf("card = %+v", c.Card())
	}
	c, err = Dial(context.Background(), a.srv.URL+"/.well-known/agent-card.json", WithBinding(a2a.BindingHTTPJSON))
	if err != nil {
		t.Fatal(err)
	}
	if in := c.Interface(); in.ProtocolBinding != a2a.BindingHTTPJSON {
		t.Errorf("forced binding gave %+v", in)
	}
}

func TestNewClientCardErrors(t *testing.T) {
	a := newFakeAgent(t, "")
	if _, err := Dial(context.Background(), "file:///etc/passwd"); err == nil {
		t.Error("file URL accepted")
	}
	if _, err := Dial(context.Background(), a.srv.URL+"/x", WithBinding("GRPC")); err == nil {
		t.Error("GRPC binding accepted")
	}
	a.handle(jsonAnswer(404, notFoundREST))
	if _, err := Dial(context.Background(), a.srv.URL+"/missing.json"); err == nil || !strings.Contains(err.Error(), "fetch agent card") {
		t.Errorf("missing card: %v", err)
	}
}

// TestCardFetchDoesNotFollowRedirects: the default client refuses
// redirects, so a card URL cannot bounce the client (and a hook's
// credential) to another host.
func TestCardFetchDoesNotFollowRedirects(t *testing.T) {
	other := newFakeAgent(t, "")
	a := newFakeAgent(t, "")
	a.handle(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.srv.URL+"/.well-known/agent-card.json", http.StatusFound)
	})
	if _, err := Dial(context.Background(), a.srv.URL+"/card"); err == nil {
		t.Fatal("redirected card fetch succeeded")
	}
	if n := len(other.requests()); n != 0 {
		t.Fatalf("redirect target got %d requests", n)
	}
}

func TestPickInterface(t *testing.T) {
	rpc := a2a.AgentInterface{URL: "https://a.example/rpc", ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0"}
	rest := a2a.AgentInterface{URL: "https://a.example/rest", ProtocolBinding: "HTTP+JSON", ProtocolVersion: "1.0", Tenant: "t1"}
	grpc := a2a.AgentInterface{URL: "a.example:443", ProtocolBinding: "GRPC", ProtocolVersion: "1.0"}
	old := a2a.AgentInterface{URL: "https://a.example/v03", ProtocolBinding: "JSONRPC", ProtocolVersion: "0.3"}
	future := a2a.AgentInterface{URL: "https://a.example/v2", ProtocolBinding: "JSONRPC", ProtocolVersion: "2.0"}
	minor := a2a.AgentInterface{URL: "https://a.example/v11", ProtocolBinding: "JSONRPC", ProtocolVersion: "1.1"}
	relative := a2a.AgentInterface{URL: "/rpc", ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0"}
	userinfo := a2a.AgentInterface{URL: "https://u:p@a.example/rpc", ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0"}
	custom := a2a.AgentInterface{URL: "https://a.example/x", ProtocolBinding: "https://example.com/binding", ProtocolVersion: "1.0"}
	tests := []struct {
		name     string
		ifaces   []a2a.AgentInterface
		forced   string
		want     a2a.AgentInterface
		wantBase string
		wantErr  bool
	}{
		{"first supported wins", []a2a.AgentInterface{grpc, rest, rpc}, "", rest, "https://a.example/rest", false},
		{"card order, not ours", []a2a.AgentInterface{rpc, rest}, "", rpc, "https://a.example/rpc", false},
		{"forced binding", []a2a.AgentInterface{rpc, rest}, a2a.BindingHTTPJSON, rest, "https://a.example/rest", false},
		{"0.3 and 2.0 skipped", []a2a.AgentInterface{old, future, rpc}, "", rpc, "https://a.example/rpc", false},
		{"1.1 is major 1", []a2a.AgentInterface{minor}, "", minor, "https://a.example/v11", false},
		{"relative URL skipped", []a2a.AgentInterface{relative, rpc}, "", rpc, "https://a.example/rpc", false},
		{"URL with credentials skipped", []a2a.AgentInterface{userinfo, rest}, "", rest, "https://a.example/rest", false},
		{"custom binding skipped", []a2a.AgentInterface{custom, rpc}, "", rpc, "https://a.example/rpc", false},
		{"nothing usable", []a2a.AgentInterface{grpc, old, custom}, "", a2a.AgentInterface{}, "", true},
		{"forced binding absent", []a2a.AgentInterface{rpc}, a2a.BindingHTTPJSON, a2a.AgentInterface{}, "", true},
		{"no interfaces", nil, "", a2a.AgentInterface{}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, base, err := clientPickInterface(&a2a.AgentCard{SupportedInterfaces: tt.ifaces}, tt.forced, "1")
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v, wantErr %v", err, tt.wantErr)
			}
			if got != tt.want || base != tt.wantBase {
				t.Errorf("got %+v %q, want %+v %q", got, base, tt.want, tt.wantBase)
			}
		})
	}
}

// --- streams ---

// sseEvents renders bare StreamResponse payloads as an SSE body of the
// binding: JSON-RPC envelopes with id, or the payload itself.
func sseEvents(binding string, id json.RawMessage, payloads ...string) string {
	var b strings.Builder
	for _, p := range payloads {
		if binding == a2a.BindingJSONRPC && !strings.HasPrefix(p, `{"jsonrpc"`) {
			p = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, p)
		}
		b.WriteString("data: ")
		b.WriteString(p)
		b.WriteString("\n\n")
	}
	return b.String()
}

const (
	evTask    = `{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_SUBMITTED"}}}`
	evStatus  = `{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}`
	evArt     = `{"artifactUpdate":{"taskId":"t1","contextId":"c1","artifact":{"artifactId":"a1","parts":[{"text":"hello"}]},"lastChunk":true}}`
	evFuture  = `{"generationUpdate":{"taskId":"t1","generation":"3"}}`
	evDone    = `{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}}`
	evUnknown = `{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_PAUSED"}}}`
)

// streamHandler answers a streaming call with body, which may contain %s for
// the JSON-RPC id, written in two parts split at offset split (-1: at once).
func streamHandler(t *testing.T, binding string, body func(id json.RawMessage) string, split int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var id json.RawMessage
		if binding == a2a.BindingJSONRPC {
			id = rpcID(t, r)
		}
		b := body(id)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		f := w.(http.Flusher)
		if split >= 0 && split <= len(b) {
			io.WriteString(w, b[:split])
			f.Flush()
			b = b[split:]
		}
		io.WriteString(w, b)
		f.Flush()
	}
}

func kinds(t *testing.T, s *Stream) ([]string, error) {
	t.Helper()
	var out []string
	for ev, err := range s.All() {
		if err != nil {
			return out, err
		}
		k := ev.Kind()
		if ev.StatusUpdate != nil {
			k += ":" + string(ev.StatusUpdate.Status.State)
		}
		out = append(out, k)
	}
	return out, nil
}

func TestStreamsOnBothBindings(t *testing.T) {
	want := []string{"task", "statusUpdate:TASK_STATE_WORKING", "artifactUpdate", "statusUpdate:TASK_STATE_COMPLETED"}
	for _, binding := range []string{a2a.BindingJSONRPC, a2a.BindingHTTPJSON} {
		t.Run(binding, func(t *testing.T) {
			a := newFakeAgent(t, "acme")
			c := a.client(t, binding)
			body := func(id json.RawMessage) string {
				return ": keep-alive\n\n" + sseEvents(binding, id, evTask, evStatus) + ": keep-alive\n\n" +
					strings.ReplaceAll(sseEvents(binding, id, evArt, evFuture, evDone), "\n", "\r\n")
			}
			a.handle(streamHandler(t, binding, body, -1))
			s, err := c.SendStreamingMessage(context.Background(), &a2a.SendMessageRequest{Message: testMessage})
			if err != nil {
				t.Fatal(err)
			}
			got, err := kinds(t, s)
			if err != nil || strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("events %v, %v; want %v", got, err, want)
			}
			r := a.requests()[0]
			if r.header.Get("Accept") != "text/event-stream" || r.header.Get("A2A-Version") != "1.0" {
				t.Errorf("headers Accept=%q A2A-Version=%q", r.header.Get("Accept"), r.header.Get("A2A-Version"))
			}
			wantPath := "/rpc"
			if binding == a2a.BindingHTTPJSON {
				wantPath = "/rest/acme/message:stream"
			}
			if r.method != "POST" || r.path != wantPath {
				t.Errorf("request %s %s, want POST %s", r.method, r.path, wantPath)
			}
			if binding == a2a.BindingJSONRPC && !bytes.Contains(r.body, []byte(`"method":"SendStreamingMessage"`)) {
				t.Errorf("body %s", r.body)
			}
		})
	}
}

// TestStreamChunkBoundaries writes each stream in two HTTP writes split at
// every byte offset; the events must be the same for every split.
func TestStreamChunkBoundaries(t *testing.T) {
	for _, binding := range []string{a2a.BindingJSONRPC, a2a.BindingHTTPJSON} {
		t.Run(binding, func(t *testing.T) {
			a := newFakeAgent(t, "")
			c := a.client(t, binding)
			body := func(id json.RawMessage) string {
				return strings.ReplaceAll(": ka\n\n"+sseEvents(binding, id, evTask, evDone), "\n", "\r\n")
			}
			n := len(body(json.RawMessage("1000")))
			for split := 0; split <= n; split++ {
				a.handle(streamHandler(t, binding, body, split))
				s, err := c.SubscribeToTask(context.Background(), &a2a.SubscribeToTaskRequest{ID: "t1"})
				if err != nil {
					t.Fatal(err)
				}
				got, err := kinds(t, s)
				if err != nil || strings.Join(got, ",") != "task,statusUpdate:TASK_STATE_COMPLETED" {
					t.Fatalf("split %d: events %v, %v", split, got, err)
				}
			}
		})
	}
}

func TestStreamUnknownStateKept(t *testing.T) {
	a := newFakeAgent(t, "")
	a.handle(streamHandler(t, a2a.BindingHTTPJSON, func(json.RawMessage) string { return sseEvents(a2a.BindingHTTPJSON, nil, evUnknown) }, -1))
	s, err := a.client(t, a2a.BindingHTTPJSON).SubscribeToTask(context.Background(), &a2a.SubscribeToTaskRequest{ID: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := s.Next()
	if err != nil {
		t.Fatal(err)
	}
	if st := ev.StatusUpdate.Status.State; st != "TASK_STATE_PAUSED" || st.Succeeded() {
		t.Fatalf("state %q", st)
	}
	if _, err := s.Next(); err != io.EOF {
		t.Fatalf("end = %v, want io.EOF", err)
	}
}

func TestStreamErrorMidStream(t *testing.T) {
	for _, binding := range []string{a2a.BindingJSONRPC, a2a.BindingHTTPJSON} {
		t.Run(binding, func(t *testing.T) {
			a := newFakeAgent(t, "")
			body := func(id json.RawMessage) string {
				errEv := notFoundREST
				if binding == a2a.BindingJSONRPC {
					errEv = fmt.Sprintf(notFoundRPC, id)
				}
				return sseEvents(binding, id, evTask, errEv, evDone)
			}
			a.handle(streamHandler(t, binding, body, -1))
			s, err := a.client(t, binding).SubscribeToTask(context.Background(), &a2a.SubscribeToTaskRequest{ID: "t1"})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if ev, err := s.Next(); err != nil || ev.Task == nil {
				t.Fatalf("first event %v, %v", ev, err)
			}
			_, err = s.Next()
			if !errors.Is(err, a2a.ErrTaskNotFound) {
				t.Fatalf("error = %v, want ErrTaskNotFound", err)
			}
			if _, again := s.Next(); again != err {
				t.Fatalf("second call = %v, want the same error", again)
			}
		})
	}
}

func TestStreamErrorsBeforeFirstEvent(t *testing.T) {
	tests := []struct {
		name    string
		binding string
		h       func(t *testing.T) http.HandlerFunc
		want    error
	}{
		{"rpc error envelope at 200", a2a.BindingJSONRPC, func(t *testing.T) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, notFoundRPC, rpcID(t, r))
			}
		}, a2a.ErrTaskNotFound},
		{"rest 404", a2a.BindingHTTPJSON, func(*testing.T) http.HandlerFunc { return jsonAnswer(404, notFoundREST) }, a2a.ErrTaskNotFound},
		{"rest 200 json, not a stream", a2a.BindingHTTPJSON, func(*testing.T) http.HandlerFunc { return jsonAnswer(200, evTask) }, a2a.ErrInvalidAgentResponse},
		{"rest 502 html", a2a.BindingHTTPJSON, func(*testing.T) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(502)
			}
		}, a2a.ErrInternal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newFakeAgent(t, "")
			a.handle(tt.h(t))
			_, err := a.client(t, tt.binding).SubscribeToTask(context.Background(), &a2a.SubscribeToTaskRequest{ID: "t1"})
			if !errors.Is(err, tt.want) {
				t.Fatalf("error = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestStreamEventCap(t *testing.T) {
	a := newFakeAgent(t, "")
	big := `{"task":{"id":"t1","status":{"state":"TASK_STATE_WORKING"},"metadata":{"pad":"` + strings.Repeat("x", 8192) + `"}}}`
	a.handle(streamHandler(t, a2a.BindingHTTPJSON, func(json.RawMessage) string { return sseEvents(a2a.BindingHTTPJSON, nil, evTask, big) }, -1))
	s, err := a.client(t, a2a.BindingHTTPJSON, WithMaxResponseBytes(1024)).SubscribeToTask(context.Background(), &a2a.SubscribeToTaskRequest{ID: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(); !errors.Is(err, ErrResponseTooLarge) {
		t.Fatalf("error = %v, want ErrResponseTooLarge", err)
	}
}

func TestStreamCutInsideEvent(t *testing.T) {
	a := newFakeAgent(t, "")
	a.handle(streamHandler(t, a2a.BindingHTTPJSON, func(json.RawMessage) string { return sseEvents(a2a.BindingHTTPJSON, nil, evTask) + `data: {"statusUp` }, -1))
	s, err := a.client(t, a2a.BindingHTTPJSON).SubscribeToTask(context.Background(), &a2a.SubscribeToTaskRequest{ID: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := kinds(t, s)
	if len(got) != 1 || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("events %v, error %v; want one event then io.ErrUnexpectedEOF", got, err)
	}
}

func TestStreamRPCEventWithForeignIDRejected(t *testing.T) {
	a := newFakeAgent(t, "")
	a.handle(streamHandler(t, a2a.BindingJSONRPC, func(json.RawMessage) string {
		return sseEvents(a2a.BindingJSONRPC, json.RawMessage("424242"), evTask)
	}, -1))
	s, err := a.client(t, a2a.BindingJSONRPC).SubscribeToTask(context.Background(), &a2a.SubscribeToTaskRequest{ID: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(); !errors.Is(err, a2a.ErrInvalidAgentResponse) {
		t.Fatalf("error = %v, want ErrInvalidAgentResponse", err)
	}
}

func TestSubscribeFallsBackToGETOn405(t *testing.T) {
	a := newFakeAgent(t, "acme")
	sse := streamHandler(t, a2a.BindingHTTPJSON, func(json.RawMessage) string { return sseEvents(a2a.BindingHTTPJSON, nil, evTask, evDone) }, -1)
	a.handle(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			w.Header().Set("Allow", "GET")
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		sse(w, r)
	})
	s, err := a.client(t, a2a.BindingHTTPJSON).SubscribeToTask(context.Background(), &a2a.SubscribeToTaskRequest{ID: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := kinds(t, s); err != nil || len(got) != 2 {
		t.Fatalf("events %v, %v", got, err)
	}
	reqs := a.requests()
	if len(reqs) != 2 || reqs[0].method != "POST" || reqs[1].method != "GET" {
		t.Fatalf("requests %+v, want POST then GET", reqs)
	}
	for _, r := range reqs {
		if r.path != "/rest/acme/tasks/t1:subscribe" || r.header.Get("A2A-Version") != "1.0" {
			t.Errorf("%s %s A2A-Version=%q", r.method, r.path, r.header.Get("A2A-Version"))
		}
	}
	if len(reqs[1].body) != 0 {
		t.Errorf("GET carried a body: %s", reqs[1].body)
	}
}

func TestSubscribeDoesNotRetryOtherErrors(t *testing.T) {
	a := newFakeAgent(t, "")
	a.handle(jsonAnswer(404, notFoundREST))
	if _, err := a.client(t, a2a.BindingHTTPJSON).SubscribeToTask(context.Background(), &a2a.SubscribeToTaskRequest{ID: "t1"}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Fatalf("error = %v", err)
	}
	if n := len(a.requests()); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
}

// blockingStream sends one event, then holds the stream open until the
// client goes away, and reports that on gone.
func blockingStream(gone chan<- struct{}) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sseEvents(a2a.BindingHTTPJSON, nil, evTask))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		close(gone)
	}
}

func TestStreamAllBreakClosesConnection(t *testing.T) {
	a := newFakeAgent(t, "")
	gone := make(chan struct{})
	a.handle(blockingStream(gone))
	s, err := a.client(t, a2a.BindingHTTPJSON).SubscribeToTask(context.Background(), &a2a.SubscribeToTaskRequest{ID: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	for ev, err := range s.All() {
		if err != nil || ev.Task == nil {
			t.Fatalf("event %v, %v", ev, err)
		}
		break
	}
	<-gone // the server saw the client leave
	if _, err := s.Next(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Next after All = %v, want net.ErrClosed", err)
	}
}

func TestStreamCloseUnblocksNext(t *testing.T) {
	a := newFakeAgent(t, "")
	gone := make(chan struct{})
	a.handle(blockingStream(gone))
	s, err := a.client(t, a2a.BindingHTTPJSON).SubscribeToTask(context.Background(), &a2a.SubscribeToTaskRequest{ID: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		_, err := s.Next()
		done <- err
	}()
	s.Close()
	if err := <-done; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Next = %v, want net.ErrClosed", err)
	}
	<-gone
}

func TestStreamContextCancelEndsStream(t *testing.T) {
	a := newFakeAgent(t, "")
	gone := make(chan struct{})
	a.handle(blockingStream(gone))
	ctx, cancel := context.WithCancel(context.Background())
	s, err := a.client(t, a2a.BindingHTTPJSON).SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := s.Next(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next = %v, want context.Canceled", err)
	}
	<-gone
}

// BenchmarkClientStream reads a 64-event JSON-RPC stream from a loopback
// server, decoding every event.
func BenchmarkClientStream(b *testing.B) {
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, strings.ReplaceAll(body, "ID", string(req.ID)))
	}))
	defer srv.Close()
	body = strings.Repeat(sseEvents(a2a.BindingJSONRPC, json.RawMessage("ID"), evStatus), 64)
	card := &a2a.AgentCard{SupportedInterfaces: []a2a.AgentInterface{{URL: srv.URL, ProtocolBinding: a2a.BindingJSONRPC, ProtocolVersion: "1.0"}}}
	c, err := New(card, WithHTTPClient(srv.Client()))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		s, err := c.SubscribeToTask(context.Background(), &a2a.SubscribeToTaskRequest{ID: "t1"})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for _, err := range s.All() {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 64 {
			b.Fatalf("events = %d", n)
		}
	}
}

// FuzzClientEvent decodes arbitrary event data as both bindings do and as an
// error body. Nothing may panic; a decoded event always has a known kind,
// and an error is never nil-with-event.
func FuzzClientEvent(f *testing.F) {
	f.Add([]byte(evTask))
	f.Add([]byte(evFuture))
	f.Add([]byte(notFoundREST))
	f.Add([]byte(`{"jsonrpc":"2.0","id":7,"result":` + evArt + `}`))
	f.Add([]byte(fmt.Sprintf(notFoundRPC, "7")))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"7","result":{"task":{"id":"t","status":{"state":3}}}}`))
	f.Add([]byte(`{"error":"boom"}`))
	f.Add([]byte(`{"error":{"code":-32001,"data":"x","details":[1,{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":5,"metadata":{"k":[]}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, decode := range []func() (*a2a.StreamResponse, error){
			func() (*a2a.StreamResponse, error) { return clientRESTEvent("fuzz", data) },
			func() (*a2a.StreamResponse, error) { return clientRPCEvent("fuzz", 7, data) },
		} {
			ev, err := decode()
			if err != nil && ev != nil {
				t.Fatalf("event %+v with error %v", ev, err)
			}
			if ev != nil && ev.Kind() == "" {
				t.Fatalf("event of unknown kind returned: %s", data)
			}
		}
		for _, status := range []int{200, 400, 404, 502} {
			if e := clientErrorBody(status, data); e != nil && e.Code == 0 {
				t.Fatalf("error body %s gave code 0", data)
			}
		}
	})
}
