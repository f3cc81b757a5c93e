package hops

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/examples/demoagent"
	"github.com/a2a-mcp-bridge/bridge/policy"
	"github.com/a2a-mcp-bridge/bridge/ratelimit"
	"github.com/a2a-mcp-bridge/bridge/request"
)

func keyConfig(name, key string, groups ...string) auth.APIKeyConfig {
	sum := sha256.Sum256([]byte(key))
	return auth.APIKeyConfig{Name: name, SHA256: hex.EncodeToString(sum[:]), Groups: groups}
}

// securedDemo serves the demo agent behind API keys, a policy and limits.
func securedDemo(t *testing.T, rules []ratelimit.Rule) *httptest.Server {
	t.Helper()
	keys, err := auth.NewAPIKeys([]auth.APIKeyConfig{keyConfig("alice", "alice-key", "staff"), keyConfig("bob", "bob-key", "staff"), keyConfig("mallory", "mallory-key")}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := policy.Compile(policy.Config{Default: "deny", Rules: []policy.Rule{
		{Name: "staff", Allow: `principal.groups.exists(g, g == "staff")`},
	}})
	if err != nil {
		t.Fatal(err)
	}
	lim, err := ratelimit.New(ratelimit.Config{Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	hops := &Chain{Authn: auth.NewChain(auth.ChainOptions{}, keys), Authz: eng, Limits: lim, Realm: "bridge"}
	mgr, err := taskmanager.New(taskmanager.Config{Store: store.NewMemory(), Executor: &demoagent.Agent{Tick: 20 * time.Millisecond}, PollInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Manager: mgr, Card: demoagent.Card("http://example.invalid/a2a/echo"), Guard: hops.A2AGuard("echo", request.DirLocal)})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(hops.ProtectA2A(srv))
	t.Cleanup(func() { ts.Close(); mgr.Wait() })
	return ts
}

type reply struct {
	status int
	header http.Header
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func call(t *testing.T, ts *httptest.Server, key, method string, params any) reply {
	t.Helper()
	p, _ := json.Marshal(params)
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/", bytes.NewReader([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, p))))
	req.Header.Set("A2A-Version", "1.0")
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r reply
	_ = json.NewDecoder(resp.Body).Decode(&r)
	r.status, r.header = resp.StatusCode, resp.Header
	return r
}

func msg(text, taskID string) a2a.SendMessageRequest {
	return a2a.SendMessageRequest{Message: &a2a.Message{MessageID: "m", TaskID: taskID, Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(text)}}}
}

func TestCallWithoutCredentialsIsChallenged(t *testing.T) {
	ts := securedDemo(t, nil)
	r := call(t, ts, "", "ListTasks", a2a.ListTasksRequest{})
	if r.status != 401 || r.Error == nil || r.Error.Code != a2a.ErrUnauthenticated.Code || !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
		t.Fatalf("status %d, error %+v, challenge %q", r.status, r.Error, r.header.Get("WWW-Authenticate"))
	}
	if r := call(t, ts, "revoked-or-unknown-key", "ListTasks", a2a.ListTasksRequest{}); r.status != 401 {
		t.Fatalf("unknown key: status %d", r.status)
	}
	resp, err := ts.Client().Get(ts.URL + "/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("the public card needs no credentials, got %d", resp.StatusCode)
	}
}

func TestPolicyDenialIsForbidden(t *testing.T) {
	ts := securedDemo(t, nil)
	r := call(t, ts, "mallory-key", "SendMessage", msg("hi", ""))
	if r.status != 403 || r.Error == nil || r.Error.Code != a2a.ErrPermissionDenied.Code {
		t.Fatalf("status %d error %+v", r.status, r.Error)
	}
}

func TestRateLimitAnswers429WithRetryAfter(t *testing.T) {
	ts := securedDemo(t, []ratelimit.Rule{{Name: "per-principal", Per: ratelimit.Fields{"principal"}, Rate: "3/m"}})
	for i := 0; i < 3; i++ {
		if r := call(t, ts, "alice-key", "ListTasks", a2a.ListTasksRequest{}); r.Error != nil {
			t.Fatalf("call %d refused: %+v", i, r.Error)
		}
	}
	r := call(t, ts, "alice-key", "ListTasks", a2a.ListTasksRequest{})
	if r.status != 429 || r.Error == nil || r.Error.Code != a2a.ErrRateLimited.Code || r.header.Get("Retry-After") == "" || r.header.Get("RateLimit-Policy") == "" {
		t.Fatalf("status %d error %+v headers %v", r.status, r.Error, r.header)
	}
	if r := call(t, ts, "bob-key", "ListTasks", a2a.ListTasksRequest{}); r.Error != nil {
		t.Fatalf("bob is limited by alice's calls: %+v", r.Error)
	}
}

func TestPrincipalBCannotSeeOrTouchPrincipalAsTask(t *testing.T) {
	ts := securedDemo(t, nil)
	r := call(t, ts, "alice-key", "SendMessage", msg("/interview", ""))
	var res a2a.SendMessageResponse
	if err := json.Unmarshal(r.Result, &res); err != nil || res.Task == nil {
		t.Fatalf("alice's send: %s %+v", r.Result, r.Error)
	}
	id := res.Task.ID
	for name, c := range map[string]struct {
		method string
		params any
	}{
		"read":      {"GetTask", a2a.GetTaskRequest{ID: id}},
		"cancel":    {"CancelTask", a2a.CancelTaskRequest{ID: id}},
		"subscribe": {"SubscribeToTask", a2a.SubscribeToTaskRequest{ID: id}},
		"continue":  {"SendMessage", msg("Mallory", id)},
	} {
		r := call(t, ts, "bob-key", c.method, c.params)
		if r.Error == nil || r.Error.Code != a2a.ErrTaskNotFound.Code {
			t.Errorf("bob %s alice's task: %+v (want TaskNotFound, never forbidden)", name, r.Error)
		}
	}
	var list a2a.ListTasksResponse
	_ = json.Unmarshal(call(t, ts, "bob-key", "ListTasks", a2a.ListTasksRequest{}).Result, &list)
	if list.TotalSize != 0 {
		t.Fatalf("bob lists %d of alice's tasks", list.TotalSize)
	}
	var got a2a.Task
	r = call(t, ts, "alice-key", "GetTask", a2a.GetTaskRequest{ID: id})
	if err := json.Unmarshal(r.Result, &got); err != nil || got.Status.State != a2a.TaskStateInputRequired {
		t.Fatalf("alice's task changed by bob's attempts: %s", r.Result)
	}
	_ = context.Background()
}
