package front_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/card"
	"github.com/a2a-mcp-bridge/bridge/a2a/client"
	"github.com/a2a-mcp-bridge/bridge/a2a/front"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/examples/demoagent"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// upstreamOwner is the one owner the upstream knows: the bridge.
const upstreamOwner = "bridge"

// staticCred is a hand-written Credentials: it replaces Authorization and
// records the caller it was applied for.
type staticCred struct {
	value string

	mu      sync.Mutex
	callers []string
}

func (c *staticCred) Apply(_ context.Context, req *http.Request, caller *request.Principal) error {
	req.Header.Set("Authorization", c.value)
	c.mu.Lock()
	defer c.mu.Unlock()
	if caller != nil {
		c.callers = append(c.callers, caller.Subject)
	}
	return nil
}

// upstream is the demo agent behind an server.Server with a single owner, and
// a record of the Authorization headers it received.
type upstream struct {
	srv   *httptest.Server
	store *store.Memory
	mgr   *taskmanager.Manager

	mu      sync.Mutex
	auths   []string
	methods []string // JSON-RPC methods received
	// immediate makes the upstream answer every SendMessage at once (as if
	// the caller set returnImmediately), like agents that answer a
	// blocking send before the task stops.
	immediate bool
}

func (u *upstream) seenMethods() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.methods...)
}

func (u *upstream) answerImmediately() {
	u.mu.Lock()
	u.immediate = true
	u.mu.Unlock()
}

// rewrite records a JSON-RPC request's method and applies immediate.
func (u *upstream) rewrite(r *http.Request) {
	if r.Method != http.MethodPost || r.Body == nil {
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var env map[string]any
	if json.Unmarshal(body, &env) == nil {
		method, _ := env["method"].(string)
		u.mu.Lock()
		u.methods = append(u.methods, method)
		immediate := u.immediate
		u.mu.Unlock()
		if params, ok := env["params"].(map[string]any); ok && immediate && method == "SendMessage" {
			cfg, _ := params["configuration"].(map[string]any)
			if cfg == nil {
				cfg = map[string]any{}
			}
			cfg["returnImmediately"] = true
			params["configuration"] = cfg
			body, _ = json.Marshal(env)
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
}

func (u *upstream) seenAuth() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.auths...)
}

// taskIDs lists every task the upstream holds.
func (u *upstream) taskIDs(t *testing.T) []string {
	t.Helper()
	page, err := u.store.ListTasks(context.Background(), upstreamOwner, taskmanager.TaskQuery{Limit: 100})
	if err != nil {
		t.Fatalf("upstream list: %v", err)
	}
	var ids []string
	for _, tk := range page.Tasks {
		ids = append(ids, tk.ID, tk.ContextID)
	}
	return ids
}

func newUpstream(t testing.TB, streaming bool) *upstream {
	t.Helper()
	up := &upstream{store: store.NewMemory()}
	mgr, err := taskmanager.New(taskmanager.Config{
		Store: up.store, Executor: &demoagent.Agent{Tick: 20 * time.Millisecond},
		PollInterval: 20 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	up.mgr = mgr
	var h http.Handler
	up.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		up.mu.Lock()
		up.auths = append(up.auths, r.Header.Get("Authorization"))
		up.mu.Unlock()
		up.rewrite(r)
		h.ServeHTTP(w, r.WithContext(server.WithOwner(r.Context(), upstreamOwner)))
	}))
	c := demoagent.Card(up.srv.URL)
	c.Capabilities.Streaming = a2a.Ptr(streaming)
	s, err := server.New(server.Config{Manager: mgr, Card: c, KeepAlive: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	h = s
	t.Cleanup(func() { up.srv.Close(); mgr.Wait() })
	return up
}

// bridge is the proxy executor behind a manager and an server.Server whose
// owner is the X-Test-User header.
type bridge struct {
	up    *upstream
	px    *front.Proxy
	cred  *staticCred
	srv   *httptest.Server
	store *store.Memory
}

func newBridge(t testing.TB, streaming bool) *bridge {
	t.Helper()
	up := newUpstream(t, streaming)
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	b := &bridge{up: up, cred: &staticCred{value: "Bearer upstream-secret"}, store: store.NewMemory()}
	px, err := front.New(context.Background(), front.Config{
		CardURL:     up.srv.URL + "/.well-known/agent-card.json",
		HTTPClient:  up.srv.Client(),
		Credentials: b.cred,
		StateKey:    key,
	})
	if err != nil {
		t.Fatalf("front.New: %v", err)
	}
	b.px = px
	mgr, err := taskmanager.New(taskmanager.Config{Store: b.store, Executor: px, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler
	b.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		if u := r.Header.Get("X-Test-User"); u != "" {
			ctx = server.WithOwner(ctx, u)
			ctx = request.WithPrincipal(ctx, &request.Principal{Subject: u, Issuer: "test", Method: "test"})
		}
		h.ServeHTTP(w, r.WithContext(ctx))
	}))
	s, err := server.New(server.Config{Manager: mgr, Card: px.Card(b.srv.URL, false), KeepAlive: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	h = s
	t.Cleanup(func() { b.srv.Close(); mgr.Wait() })
	return b
}

// client returns a bridge client acting as user, sending its own bearer
// token (which must never reach the upstream).
func (b *bridge) client(t testing.TB, user string) *client.Client {
	t.Helper()
	c, err := client.Dial(context.Background(), b.srv.URL+"/.well-known/agent-card.json",
		client.WithHTTPClient(b.srv.Client()),
		client.WithHeader(func(_ context.Context, r *http.Request) error {
			r.Header.Set("X-Test-User", user)
			r.Header.Set("Authorization", "Bearer caller-token-of-"+user)
			return nil
		}))
	if err != nil {
		t.Fatalf("bridge client: %v", err)
	}
	return c
}

func userMsg(text string) *a2a.Message {
	return &a2a.Message{MessageID: newID(), Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(text)}}
}

var idSeq struct {
	sync.Mutex
	n int
}

func newID() string {
	idSeq.Lock()
	defer idSeq.Unlock()
	idSeq.n++
	return "msg-" + time.Now().Format("150405.000000") + "-" + string(rune('a'+idSeq.n%26))
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func artifactText(tk *a2a.Task) string {
	var b strings.Builder
	for _, a := range tk.Artifacts {
		for _, p := range a.Parts {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// assertNoUpstreamIDs fails when any upstream task or context id appears in
// v's JSON form.
func assertNoUpstreamIDs(t *testing.T, b *bridge, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range b.up.taskIDs(t) {
		if id != "" && bytes.Contains(data, []byte(id)) {
			t.Fatalf("upstream id %s is visible to the caller in %s", id, data)
		}
	}
}

func TestCardServedWithBridgeURLs(t *testing.T) {
	b := newBridge(t, true)
	c := b.client(t, "alice").Card()
	up := demoagent.Card("http://x")
	if c.Name != up.Name || c.Description != up.Description {
		t.Errorf("name/description = %q/%q, want the upstream's", c.Name, c.Description)
	}
	want := []a2a.AgentInterface{
		{URL: b.srv.URL, ProtocolBinding: a2a.BindingJSONRPC, ProtocolVersion: a2a.ProtocolVersion},
		{URL: b.srv.URL + "/rest", ProtocolBinding: a2a.BindingHTTPJSON, ProtocolVersion: a2a.ProtocolVersion},
	}
	if got, _ := json.Marshal(c.SupportedInterfaces); string(got) != string(mustJSON(t, want)) {
		t.Errorf("interfaces = %s, want %s", got, mustJSON(t, want))
	}
	if len(c.Skills) != len(up.Skills) || c.Skills[0].ID != "echo" {
		t.Errorf("skills = %+v, want the upstream's %d skills", c.Skills, len(up.Skills))
	}
	if c.Capabilities.Streaming == nil || !*c.Capabilities.Streaming || c.Capabilities.PushNotifications == nil || *c.Capabilities.PushNotifications {
		t.Errorf("capabilities = %+v, want streaming on, push off (the bridge's setting)", c.Capabilities)
	}
	if len(c.Signatures) != 0 {
		t.Errorf("signatures kept: %d", len(c.Signatures))
	}
	if strings.Contains(string(mustJSON(t, c)), b.up.srv.URL) {
		t.Errorf("the served card names the upstream URL")
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestFlow runs the caller-facing flow against a streaming and a
// non-streaming upstream.
func TestFlow(t *testing.T) {
	for _, tc := range []struct {
		name      string
		streaming bool
	}{{"streaming upstream", true}, {"blocking upstream", false}} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBridge(t, tc.streaming)
			cl := b.client(t, "alice")
			ctx := ctxT(t)

			// Blocking echo.
			resp, err := cl.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("hello")})
			if err != nil {
				t.Fatalf("send: %v", err)
			}
			tk := resp.Task
			if tk == nil || tk.Status.State != a2a.TaskStateCompleted || artifactText(tk) != "echo: hello" {
				t.Fatalf("echo task = %+v", resp)
			}
			assertNoUpstreamIDs(t, b, resp)

			// Multi-turn.
			resp, err = cl.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("/interview")})
			if err != nil || resp.Task == nil || resp.Task.Status.State != a2a.TaskStateInputRequired {
				t.Fatalf("interview = %+v, %v", resp, err)
			}
			m := userMsg("Ada")
			m.TaskID, m.ContextID = resp.Task.ID, resp.Task.ContextID
			resp2, err := cl.SendMessage(ctx, &a2a.SendMessageRequest{Message: m})
			if err != nil || resp2.Task == nil || resp2.Task.Status.State != a2a.TaskStateCompleted {
				t.Fatalf("interview answer = %+v, %v", resp2, err)
			}
			if resp2.Task.ID != resp.Task.ID || artifactText(resp2.Task) != "Hello, Ada!" {
				t.Fatalf("interview answer task %s artifacts %q, want task %s greeting Ada", resp2.Task.ID, artifactText(resp2.Task), resp.Task.ID)
			}
			assertNoUpstreamIDs(t, b, resp2)

			// Direct message and failure.
			resp, err = cl.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("/message")})
			if err != nil || resp.Message == nil || resp.Task != nil {
				t.Fatalf("/message = %+v, %v; want a direct message", resp, err)
			}
			resp, err = cl.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("/fail")})
			if err != nil || resp.Task == nil || resp.Task.Status.State != a2a.TaskStateFailed {
				t.Fatalf("/fail = %+v, %v", resp, err)
			}

			// Get and list.
			got, err := cl.GetTask(ctx, &a2a.GetTaskRequest{ID: tk.ID})
			if err != nil || got.ID != tk.ID || artifactText(got) != "echo: hello" {
				t.Fatalf("get = %+v, %v", got, err)
			}
			list, err := cl.ListTasks(ctx, &a2a.ListTasksRequest{})
			if err != nil || len(list.Tasks) != 3 {
				t.Fatalf("list = %+v, %v; want 3 tasks", list, err)
			}
			assertNoUpstreamIDs(t, b, list)

			// The upstream saw only the bridge's credential.
			for _, a := range b.up.seenAuth() {
				if a != "Bearer upstream-secret" {
					t.Fatalf("upstream received Authorization %q", a)
				}
			}
		})
	}
}

// TestBlockingSendIsOneUpstreamCall: a blocking caller sees only the
// outcome, so the bridge makes one blocking call upstream even when the
// upstream streams; a streaming caller, a caller that wants the task at
// once and a caller with a webhook get the upstream's stream.
func TestBlockingSendIsOneUpstreamCall(t *testing.T) {
	b := newBridge(t, true)
	cl := b.client(t, "alice")
	ctx := ctxT(t)
	resp, err := cl.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("/slow 1")})
	if err != nil || resp.Task == nil || resp.Task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("blocking send = %+v, %v", resp, err)
	}
	if got := b.up.seenMethods(); strings.Join(got, ",") != "SendMessage" {
		t.Fatalf("upstream methods = %v, want one SendMessage", got)
	}
	resp, err = cl.SendMessage(ctx, &a2a.SendMessageRequest{
		Message:       userMsg("/slow 1"),
		Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true},
	})
	if err != nil || resp.Task == nil {
		t.Fatalf("non-blocking send = %+v, %v", resp, err)
	}
	if got := b.up.seenMethods(); strings.Join(got, ",") != "SendMessage,SendStreamingMessage" {
		t.Fatalf("upstream methods = %v, want the non-blocking send relayed as a stream", got)
	}
	// The whole history of the streamed task arrives, in order.
	s, err := cl.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: resp.Task.ID})
	if err == nil {
		for _, err := range s.All() {
			if err != nil {
				break
			}
		}
	}
	tk, err := cl.GetTask(ctx, &a2a.GetTaskRequest{ID: resp.Task.ID})
	if err != nil || tk.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("task after the stream = %+v, %v", tk, err)
	}
	if len(tk.History) < 3 {
		t.Fatalf("history of the streamed task has %d messages, want the caller's message and the WORKING updates", len(tk.History))
	}
}

// TestBlockingAnswerBeforeTheEndIsFollowed: an upstream that answers a
// blocking send while its task still runs is followed to the final state
// over SubscribeToTask, so the caller still gets the outcome.
func TestBlockingAnswerBeforeTheEndIsFollowed(t *testing.T) {
	b := newBridge(t, true)
	b.up.answerImmediately()
	cl := b.client(t, "alice")
	ctx := ctxT(t)
	resp, err := cl.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("/slow 2")})
	if err != nil || resp.Task == nil || resp.Task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("blocking send = %+v, %v; want COMPLETED", resp, err)
	}
	if got := b.up.seenMethods(); strings.Join(got, ",") != "SendMessage,SubscribeToTask" {
		t.Fatalf("upstream methods = %v, want SendMessage then SubscribeToTask", got)
	}
	if artifactText(resp.Task) == "" {
		t.Fatalf("the outcome lost its artifact: %+v", resp.Task)
	}
	assertNoUpstreamIDs(t, b, resp)
}

// TestBlockingAnswerBeforeTheEndRefusedWithoutStreaming: without a way to
// follow the task, such an answer is an invalid agent response, not a
// task left WORKING forever.
func TestBlockingAnswerBeforeTheEndRefusedWithoutStreaming(t *testing.T) {
	b := newBridge(t, false)
	b.up.answerImmediately()
	cl := b.client(t, "alice")
	resp, err := cl.SendMessage(ctxT(t), &a2a.SendMessageRequest{Message: userMsg("/slow 2")})
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	if resp.Task == nil || resp.Task.Status.State != a2a.TaskStateFailed {
		t.Fatalf("blocking send = %+v; want the task FAILED", resp)
	}
}

func TestStreamingRelayedInOrder(t *testing.T) {
	b := newBridge(t, true)
	cl := b.client(t, "alice")
	ctx := ctxT(t)
	s, err := cl.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("/slow 2")})
	if err != nil {
		t.Fatal(err)
	}
	var trace []string
	var taskID string
	for ev, err := range s.All() {
		if err != nil {
			t.Fatalf("stream: %v (after %v)", err, trace)
		}
		assertNoUpstreamIDs(t, b, ev)
		switch {
		case ev.Task != nil:
			taskID = ev.Task.ID
			trace = append(trace, "task")
		case ev.StatusUpdate != nil:
			if ev.StatusUpdate.TaskID != taskID {
				t.Fatalf("status event of task %s, want %s", ev.StatusUpdate.TaskID, taskID)
			}
			trace = append(trace, string(ev.StatusUpdate.Status.State))
		case ev.ArtifactUpdate != nil:
			trace = append(trace, "artifact")
		}
	}
	want := []string{"task", string(a2a.TaskStateWorking), string(a2a.TaskStateWorking), string(a2a.TaskStateWorking), "artifact", string(a2a.TaskStateCompleted)}
	if strings.Join(trace, ",") != strings.Join(want, ",") {
		t.Fatalf("events = %v, want %v", trace, want)
	}
}

func TestStreamingInterview(t *testing.T) {
	b := newBridge(t, true)
	cl := b.client(t, "alice")
	ctx := ctxT(t)
	last := func(m *a2a.Message) (string, a2a.TaskState) {
		s, err := cl.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: m})
		if err != nil {
			t.Fatal(err)
		}
		var id string
		var st a2a.TaskState
		for ev, err := range s.All() {
			if err != nil {
				t.Fatal(err)
			}
			if ev.Task != nil {
				id = ev.Task.ID
			}
			if ev.StatusUpdate != nil {
				st = ev.StatusUpdate.Status.State
			}
		}
		return id, st
	}
	id, st := last(userMsg("/interview"))
	if st != a2a.TaskStateInputRequired {
		t.Fatalf("first turn ended %s", st)
	}
	m := userMsg("Grace")
	m.TaskID = id
	if id2, st := last(m); id2 != id || st != a2a.TaskStateCompleted {
		t.Fatalf("second turn: task %s state %s, want %s COMPLETED", id2, st, id)
	}
	tk, err := cl.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
	if err != nil || artifactText(tk) != "Hello, Grace!" {
		t.Fatalf("get = %+v, %v", tk, err)
	}
}

// TestCancelReachesUpstream cancels a running /slow 30 through the bridge.
func TestCancelReachesUpstream(t *testing.T) {
	b := newBridge(t, true)
	cl := b.client(t, "alice")
	ctx := ctxT(t)
	s, err := cl.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("/slow 30")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var id string
	for {
		ev, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if ev.Task != nil {
			id = ev.Task.ID
		}
		if ev.StatusUpdate != nil && ev.StatusUpdate.Status.State == a2a.TaskStateWorking {
			break
		}
	}
	tk, err := cl.CancelTask(ctx, &a2a.CancelTaskRequest{ID: id})
	if err != nil || tk.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("cancel = %+v, %v", tk, err)
	}
	page, err := b.up.store.ListTasks(ctx, upstreamOwner, taskmanager.TaskQuery{Limit: 10})
	if err != nil || len(page.Tasks) != 1 {
		t.Fatalf("upstream tasks = %+v, %v", page, err)
	}
	if st := page.Tasks[0].Status.State; st != a2a.TaskStateCanceled {
		t.Fatalf("upstream task is %s, want CANCELED", st)
	}
	if page.Tasks[0].ID == id {
		t.Fatalf("the bridge handed out the upstream's task id")
	}
}

// TestCrossPrincipalTaskAccessDenied: the upstream has one owner for all
// (the bridge), yet bob cannot see, continue or cancel alice's task.
func TestCrossPrincipalTaskAccessDenied(t *testing.T) {
	b := newBridge(t, true)
	alice, bob := b.client(t, "alice"), b.client(t, "bob")
	ctx := ctxT(t)
	resp, err := alice.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("/interview")})
	if err != nil || resp.Task == nil {
		t.Fatalf("alice send: %+v, %v", resp, err)
	}
	id := resp.Task.ID
	if _, err := bob.GetTask(ctx, &a2a.GetTaskRequest{ID: id}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("bob get alice's task: err = %v, want task not found", err)
	}
	if _, err := bob.CancelTask(ctx, &a2a.CancelTaskRequest{ID: id}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("bob cancel alice's task: err = %v, want task not found", err)
	}
	m := userMsg("Mallory")
	m.TaskID = id
	if _, err := bob.SendMessage(ctx, &a2a.SendMessageRequest{Message: m}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("bob continue alice's task: err = %v, want task not found", err)
	}
	list, err := bob.ListTasks(ctx, &a2a.ListTasksRequest{})
	if err != nil || len(list.Tasks) != 0 {
		t.Errorf("bob list = %+v, %v; want none", list, err)
	}
	if tk, err := alice.GetTask(ctx, &a2a.GetTaskRequest{ID: id}); err != nil || tk.Status.State != a2a.TaskStateInputRequired {
		t.Errorf("alice's task after bob's attempts = %+v, %v", tk, err)
	}
}

// TestCallerTokenNeverForwarded: the upstream sees the configured
// credential only, and the credential hook sees the caller's principal.
func TestCallerTokenNeverForwarded(t *testing.T) {
	b := newBridge(t, true)
	ctx := ctxT(t)
	if _, err := b.client(t, "alice").SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("hi")}); err != nil {
		t.Fatal(err)
	}
	seen := b.up.seenAuth()
	if len(seen) < 2 { // card fetch + send
		t.Fatalf("upstream saw %d requests", len(seen))
	}
	for _, a := range seen {
		if strings.Contains(a, "caller-token") || a != "Bearer upstream-secret" {
			t.Fatalf("upstream received Authorization %q", a)
		}
	}
	b.cred.mu.Lock()
	defer b.cred.mu.Unlock()
	if len(b.cred.callers) == 0 || b.cred.callers[len(b.cred.callers)-1] != "alice" {
		t.Fatalf("credential hook callers = %v, want alice last", b.cred.callers)
	}
}

// TestCredentialNotSentToForeignInterfaceHost: a card naming an interface
// on another host does not get the credential sent there.
func TestCredentialNotSentToForeignInterfaceHost(t *testing.T) {
	var hits int
	var mu sync.Mutex
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
		http.Error(w, "no", http.StatusTeapot)
	}))
	defer foreign.Close()
	c := demoagent.Card(strings.Replace(foreign.URL, "127.0.0.1", "localhost", 1))
	cardSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(c)
	}))
	defer cardSrv.Close()
	key := make([]byte, 32)
	px, err := front.New(context.Background(), front.Config{
		CardURL: cardSrv.URL, HTTPClient: cardSrv.Client(), Credentials: &staticCred{value: "Bearer s"}, StateKey: key,
	})
	if err != nil {
		t.Fatal(err)
	}
	b := &bridge{store: store.NewMemory(), px: px}
	mgr, err := taskmanager.New(taskmanager.Config{Store: b.store, Executor: px})
	if err != nil {
		t.Fatal(err)
	}
	defer mgr.Wait()
	_, err = mgr.SendMessage(ctxT(t), "alice", &a2a.SendMessageRequest{Message: userMsg("hi")})
	if e := a2a.AsError(err); e.Reason != "AGENT_UNAVAILABLE" || !strings.Contains(e.Message, "credential") || strings.Contains(e.Message, "localhost") {
		t.Fatalf("send err = %v, want AGENT_UNAVAILABLE naming the credential and no host", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if hits != 0 {
		t.Fatalf("the foreign host received %d requests", hits)
	}
}

func TestStateKeyMustBe32Bytes(t *testing.T) {
	up := newUpstream(t, true)
	_, err := front.New(context.Background(), front.Config{
		CardURL: up.srv.URL + "/.well-known/agent-card.json", HTTPClient: up.srv.Client(), StateKey: []byte("short"),
	})
	if err == nil || err.Error() != "proxy: config: StateKey must be 32 bytes, got 5" {
		t.Fatalf("err = %v", err)
	}
}

func TestConfigRejectsBadCardURL(t *testing.T) {
	for _, u := range []string{"", "ftp://x/card", "/relative", "http://user:pw@host/card"} {
		_, err := front.New(context.Background(), front.Config{CardURL: u})
		if err == nil || err.Error() != "proxy: config: CardURL must be an absolute http or https URL without credentials" {
			t.Errorf("CardURL %q: err = %v", u, err)
		}
	}
}

// signedCardServer serves cardJSON as is.
func signedCardServer(t *testing.T, cardJSON []byte) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(cardJSON)
	}))
	t.Cleanup(s.Close)
	return s
}

func TestCardVerification(t *testing.T) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sk, err := card.NewSigningKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	ks := &card.KeySet{Current: sk}
	raw := mustJSON(t, demoagent.Card("http://127.0.0.1:1/a2a"))
	signed, err := card.Sign(raw, ks)
	if err != nil {
		t.Fatal(err)
	}
	tampered := bytes.Replace(signed, []byte("Echo demo agent"), []byte("Evil demo agent"), 1)
	key := make([]byte, 32)
	for _, tc := range []struct {
		name    string
		body    []byte
		require bool
		wantErr error
	}{
		{"signed card verifies", signed, true, nil},
		{"unsigned card accepted when not required", raw, false, nil},
		{"TestRejectsUnsignedCardWhenRequired", raw, true, card.ErrNoSignature},
		{"TestRejectsTamperedCard", tampered, false, card.ErrBadSignature},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := signedCardServer(t, tc.body)
			px, err := front.New(context.Background(), front.Config{
				CardURL: s.URL, HTTPClient: s.Client(), StateKey: key,
				Verify: &front.CardVerification{Keys: ks, Options: card.VerifyOptions{RequireSignature: tc.require}},
			})
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(px.Card("http://bridge", true).Signatures) != 0 {
				t.Fatal("the bridge card keeps the upstream's signatures")
			}
		})
	}
}

// TestUpstreamIDsNotStoredInTheClear: the mapping in the task's metadata is
// sealed, so neither the caller nor a store reader sees the upstream ids.
func TestUpstreamIDsNotStoredInTheClear(t *testing.T) {
	b := newBridge(t, true)
	ctx := ctxT(t)
	resp, err := b.client(t, "alice").SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("/interview")})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := b.store.GetTask(ctx, "alice", resp.Task.ID)
	if err != nil {
		t.Fatal(err)
	}
	v, ok := rec.Task.Metadata[front.MappingKey].(string)
	if !ok || !strings.HasPrefix(v, "v1.") {
		t.Fatalf("mapping = %#v, want a sealed v1 value", rec.Task.Metadata[front.MappingKey])
	}
	assertNoUpstreamIDs(t, b, rec.Task)
}

// TestMovedMappingRejected: a sealed mapping copied onto another task (or
// another owner's task) does not open, so the continuation is refused and
// never reaches the upstream task it named.
func TestMovedMappingRejected(t *testing.T) {
	b := newBridge(t, true)
	ctx := ctxT(t)
	cl := b.client(t, "alice")
	r1, err := cl.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("/interview")})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := cl.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("/interview")})
	if err != nil {
		t.Fatal(err)
	}
	rec1, _ := b.store.GetTask(ctx, "alice", r1.Task.ID)
	rec2, err := b.store.GetTask(ctx, "alice", r2.Task.ID)
	if err != nil {
		t.Fatal(err)
	}
	next := rec2.Task.Clone()
	next.Metadata = a2a.Metadata{front.MappingKey: rec1.Task.Metadata[front.MappingKey]}
	if _, err := b.store.UpdateTask(ctx, "alice", next, rec2.Version, nil); err != nil {
		t.Fatal(err)
	}
	m := userMsg("Eve")
	m.TaskID = r2.Task.ID
	resp, err := cl.SendMessage(ctx, &a2a.SendMessageRequest{Message: m})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Task.Status.State != a2a.TaskStateFailed {
		t.Fatalf("continuation with a moved mapping ended %s, want FAILED", resp.Task.Status.State)
	}
	tk, err := cl.GetTask(ctx, &a2a.GetTaskRequest{ID: r1.Task.ID})
	if err != nil || tk.Status.State != a2a.TaskStateInputRequired {
		t.Fatalf("the task whose mapping was copied = %+v, %v; want it untouched", tk, err)
	}
}
