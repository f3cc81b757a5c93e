package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/a2a/v03"
	"github.com/a2a-mcp-bridge/bridge/examples/demoagent"
	"github.com/a2a-mcp-bridge/bridge/gateway"
)

// TestServerA2AV03: server.a2a_v03 and server.a2a_v03_card as configured:
// accept answers a 0.3 call of an authenticated caller, refuse answers
// -32009 as before; the card for readers naming no version follows
// a2a_v03_card.
func TestServerA2AV03(t *testing.T) {
	send := `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"data","data":{"tool":"echo","arguments":{"text":"hi"}}}]}}}`
	cases := []struct {
		name, extra string
		wantCode    int // 0: a 0.3 task
		wantCard03  bool
	}{
		{"default", "", 0, false},
		{"accept, card by default", "server: {a2a_v03: accept, a2a_v03_card: default}\n", 0, true},
		{"refuse", "server: {a2a_v03: refuse}\n", -32009, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := startWithYAML(t, startDemoAgent(t), c.extra)
			req, _ := http.NewRequest(http.MethodPost, e.url+"/a2a/tools", strings.NewReader(send))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+aliceKey)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var r struct {
				Result json.RawMessage
				Error  *struct{ Code int }
			}
			_ = json.NewDecoder(resp.Body).Decode(&r)
			resp.Body.Close()
			switch {
			case c.wantCode != 0 && (r.Error == nil || r.Error.Code != c.wantCode):
				t.Fatalf("got %+v %s, want error %d", r.Error, r.Result, c.wantCode)
			case c.wantCode == 0 && (r.Error != nil || !bytes.Contains(r.Result, []byte(`"kind":"task"`)) || !bytes.Contains(r.Result, []byte(`"completed"`))):
				t.Fatalf("got %+v %s, want a completed 0.3 task", r.Error, r.Result)
			}
			_, card := get(t, e.url+"/a2a/tools/.well-known/agent-card.json")
			if got := bytes.Contains(card, []byte(`"preferredTransport"`)); got != c.wantCard03 {
				t.Errorf("card without a version has the 0.3 members: %v, want %v", got, c.wantCard03)
			}
		})
	}
}

// upstream03 is an A2A 0.3 agent: its card has no supportedInterfaces, and
// it records the protocol version of every call it gets.
type upstream03 struct {
	srv      *httptest.Server
	mu       sync.Mutex
	versions map[string]int // "0.3 SendMessage": n
}

func startUpstream03(t *testing.T) *upstream03 {
	t.Helper()
	up := &upstream03{versions: map[string]int{}}
	mgr, err := taskmanager.New(taskmanager.Config{Store: store.NewMemory(), Executor: &demoagent.Agent{Tick: 5 * time.Millisecond}, Logger: quiet, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	card := demoagent.Card(base)
	as, err := server.New(server.Config{Manager: mgr, Card: card, Logger: quiet, Legacy: &v03.Dialect{},
		Guard: func(_ context.Context, c *server.Call) error {
			up.mu.Lock()
			up.versions[c.Version+" "+c.Method]++
			up.mu.Unlock()
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(card)
	view, err := v03.CardJSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	_ = json.Unmarshal(view, &m)
	delete(m, "supportedInterfaces") // a 0.3 agent's card
	card03, _ := json.Marshal(m)
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(card03)
	})
	mux.Handle("/", as)
	up.srv = httptest.NewUnstartedServer(mux)
	up.srv.Listener = ln
	up.srv.Start()
	t.Cleanup(func() { up.srv.Close(); mgr.Wait() })
	return up
}

// TestFrontA2AOf03Agent: front.a2a of an A2A 0.3 agent, through the
// gateway's authentication and owner scoping: the bridge serves its own
// signed 1.0 card for it, 1.0 callers get the whole flow, another
// principal sees none of the task, and the agent got 0.3 calls only.
func TestFrontA2AOf03Agent(t *testing.T) {
	up := startUpstream03(t)
	e := startFront(t, frontYAML(up.srv.URL, ""), gateway.Options{})
	_, body := get(t, e.url+"/a2a/agent/.well-known/agent-card.json", "A2A-Version", "1.0")
	var served a2a.AgentCard
	if err := json.Unmarshal(body, &served); err != nil || len(served.SupportedInterfaces) == 0 || served.SupportedInterfaces[0].ProtocolVersion != "1.0" ||
		!strings.HasPrefix(served.SupportedInterfaces[0].URL, e.url) || len(served.Signatures) == 0 {
		t.Fatalf("the bridge's card for a 0.3 agent: %s", body)
	}
	ctx := context.Background()
	alice, bob := e.client(t, aliceKey), e.client(t, bobKey)
	first, err := alice.SendMessage(ctx, &a2a.SendMessageRequest{Message: textMsg("/interview")})
	if err != nil || first.Task == nil || first.Task.Status.State != a2a.TaskStateInputRequired {
		t.Fatalf("alice: %+v, %v", first, err)
	}
	id := first.Task.ID
	if _, err := bob.GetTask(ctx, &a2a.GetTaskRequest{ID: id}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Fatalf("bob reads alice's task: %v", err)
	}
	m := textMsg("Ada")
	m.TaskID, m.ContextID = id, first.Task.ContextID
	st, err := alice.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: m})
	if err != nil {
		t.Fatal(err)
	}
	var last a2a.TaskState
	for ev, err := range st.All() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.StatusUpdate != nil {
			last = ev.StatusUpdate.Status.State
		}
	}
	if last != a2a.TaskStateCompleted {
		t.Fatalf("second turn ended %s", last)
	}
	slow, err := alice.SendMessage(ctx, &a2a.SendMessageRequest{Message: textMsg("/slow 30"), Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true}})
	if err != nil || slow.Task == nil {
		t.Fatalf("slow: %+v %v", slow, err)
	}
	if c, err := alice.CancelTask(ctx, &a2a.CancelTaskRequest{ID: slow.Task.ID}); err != nil || c.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("cancel: %+v %v", c, err)
	}
	up.mu.Lock()
	defer up.mu.Unlock()
	for k, n := range up.versions {
		if !strings.HasPrefix(k, "0.3 ") {
			t.Errorf("the 0.3 agent got %d calls %q", n, k)
		}
	}
	for _, k := range []string{"0.3 SendMessage", "0.3 SendStreamingMessage", "0.3 CancelTask"} {
		if up.versions[k] == 0 {
			t.Errorf("the 0.3 agent never got %q: %v", k, up.versions)
		}
	}
}
