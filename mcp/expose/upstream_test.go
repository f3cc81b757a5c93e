package expose_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	a2aclient "github.com/a2a-mcp-bridge/bridge/a2a/client"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/a2a/v03"
	"github.com/a2a-mcp-bridge/bridge/examples/demoagent"
	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
	"github.com/a2a-mcp-bridge/bridge/mcp/expose"
)

// methods counts the JSON-RPC methods the demo agent is sent.
type methods struct {
	mu sync.Mutex
	n  map[string]int
}

// countMethods makes d count the A2A methods it gets.
func countMethods(d *demo) *methods {
	m := &methods{n: map[string]int{}}
	f := func(r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			return
		}
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
		var env struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(b, &env) == nil && env.Method != "" {
			m.mu.Lock()
			m.n[env.Method]++
			m.mu.Unlock()
		}
	}
	d.observe.Store(&f)
	return m
}

func (m *methods) get() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]int{}
	for k, v := range m.n {
		out[k] = v
	}
	return out
}

// TestUpstreamMethodFollowsWhatTheCallerUses: a call streams from the agent
// only when the events are used (a progress token, or the call runs as an
// MCP task); otherwise one blocking SendMessage. An agent whose card does not
// stream always gets SendMessage.
func TestUpstreamMethodFollowsWhatTheCallerUses(t *testing.T) {
	for _, tc := range []struct {
		name      string
		streaming bool
		token     mcp.ProgressToken
		task      bool
		want      string
	}{
		{"streaming agent, no progress token", true, nil, false, "SendMessage"},
		{"streaming agent, progress token", true, "p1", false, "SendStreamingMessage"},
		{"streaming agent, numeric progress token", true, 7, false, "SendStreamingMessage"},
		{"streaming agent, MCP task", true, nil, true, "SendStreamingMessage"},
		{"blocking agent, no progress token", false, nil, false, "SendMessage"},
		{"blocking agent, progress token", false, "p1", false, "SendMessage"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, d := echoBridge(t, func(c *a2a.AgentCard) { c.Capabilities.Streaming = a2a.Ptr(tc.streaming) })
			m := countMethods(d)
			tok := b.token(t, "alice")
			if tc.task {
				tk := b.startTask(t, tok, "hello")
				if got := b.waitTask(t, tok, tk.TaskID, func(w wireTask) bool { return w.Status == "completed" }); got.Status != "completed" {
					t.Fatalf("task status %q", got.Status)
				}
			} else {
				var meta *mcp.Meta
				if tc.token != nil {
					meta = &mcp.Meta{ProgressToken: tc.token}
				}
				res := call(t, b.connect(t, tok), context.Background(), "echo", map[string]any{"message": "hello"}, meta)
				if res.IsError || !strings.Contains(texts(res), "hello") {
					t.Fatalf("result %q", texts(res))
				}
				if sc := structured(t, res); sc["taskId"] == "" || sc["state"] != "completed" {
					t.Fatalf("structured content %v", sc)
				}
			}
			got := m.get()
			other := "SendStreamingMessage"
			if tc.want == other {
				other = "SendMessage"
			}
			if got[tc.want] != 1 || got[other] != 0 {
				t.Fatalf("agent got %v, want one %s", got, tc.want)
			}
		})
	}
}

// upstreamCanceled waits until the demo agent's only task is CANCELED.
func upstreamCanceled(t *testing.T, d *demo) {
	t.Helper()
	cl, err := a2aclient.Dial(context.Background(), d.cardURL)
	if err != nil {
		t.Fatal(err)
	}
	bridgetest.Eventually(t, 20*time.Second, "the upstream task CANCELED", func() error {
		lst, err := cl.ListTasks(context.Background(), &a2a.ListTasksRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if len(lst.Tasks) == 1 && lst.Tasks[0].Status.State == a2a.TaskStateCanceled {
			return nil
		}
		return fmt.Errorf("upstream tasks: %s", states(lst.Tasks))
	})
}

// states is each task's id and state, for failure messages.
func states(tasks []a2a.Task) string {
	var b strings.Builder
	for _, t := range tasks {
		fmt.Fprintf(&b, "%s=%s ", t.ID, t.Status.State)
	}
	return b.String()
}

// A blocking send names no task before its answer: a call without a
// progress token that times out still cancels the task it started.
func TestBlockingCallTimeoutCancelsUpstreamTask(t *testing.T) {
	d := startDemo(t, nil)
	m := countMethods(d)
	b := startBridge(t, []expose.AgentConfig{{Alias: "echo", CardURL: d.cardURL, Timeout: 300 * time.Millisecond}}, nil)
	c := b.connect(t, b.token(t, "alice"))
	res := call(t, c, context.Background(), "echo", map[string]any{"message": "/slow 3600"}, nil)
	if !res.IsError || !strings.Contains(texts(res), "agent echo did not finish within") {
		t.Fatalf("result %q", texts(res))
	}
	upstreamCanceled(t, d)
	if got := m.get(); got["SendMessage"] != 1 || got["SendStreamingMessage"] != 0 || got["CancelTask"] != 1 {
		t.Fatalf("agent got %v", got)
	}
}

// ... and one the host cancels (notifications/cancelled) too.
func TestBlockingCallCancelCancelsUpstreamTask(t *testing.T) {
	b, d := echoBridge(t, nil)
	m := countMethods(d)
	c := b.connect(t, b.token(t, "alice"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		req := mcp.CallToolRequest{}
		req.Params.Name = "echo"
		req.Params.Arguments = map[string]any{"message": "/slow 30"}
		_, _ = c.CallTool(ctx, req)
	}()
	cl, err := a2aclient.Dial(context.Background(), d.cardURL)
	if err != nil {
		t.Fatal(err)
	}
	bridgetest.Eventually(t, 20*time.Second, "the upstream task WORKING", func() error {
		lst, err := cl.ListTasks(context.Background(), &a2a.ListTasksRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if len(lst.Tasks) == 1 && lst.Tasks[0].Status.State == a2a.TaskStateWorking {
			return nil
		}
		return fmt.Errorf("upstream tasks: %s", states(lst.Tasks))
	})
	cancel()
	<-done
	upstreamCanceled(t, d)
	if got := m.get(); got["SendMessage"] != 1 || got["SendStreamingMessage"] != 0 {
		t.Fatalf("agent got %v", got)
	}
}

// start03Demo is the demo agent speaking A2A 0.3 only: its card is a 0.3
// card, and it answers 0.3 requests (message/send, message/stream).
func start03Demo(t *testing.T) *demo {
	t.Helper()
	d := &demo{}
	mgr, err := taskmanager.New(taskmanager.Config{Store: store.NewMemory(), Executor: &demoagent.Agent{Tick: 5 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	d.srv = httptest.NewServer(mux)
	t.Cleanup(d.srv.Close)
	c := demoagent.Card(d.srv.URL)
	if d.a2a, err = server.New(server.Config{Manager: mgr, Card: c, Legacy: &v03.Dialect{}}); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(c)
	view, err := v03.CardJSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	_ = json.Unmarshal(view, &m)
	delete(m, "supportedInterfaces") // a 0.3 agent's card
	card03, _ := json.Marshal(m)
	mux.HandleFunc("/.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(card03)
	})
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f := d.observe.Load(); f != nil {
			(*f)(r)
		}
		d.a2a.ServeHTTP(w, r)
	}))
	d.cardURL = d.srv.URL + "/.well-known/agent-card.json"
	return d
}

// An A2A 0.3 agent has no ListTasks to find the task of a blocking send
// with: it is streamed to, progress token or not, so that a cancel still
// reaches its task.
func TestLegacyAgentIsStreamedTo(t *testing.T) {
	d := start03Demo(t)
	m := countMethods(d)
	b := startBridge(t, []expose.AgentConfig{{Alias: "echo", CardURL: d.cardURL}}, nil)
	res := call(t, b.connect(t, b.token(t, "alice")), context.Background(), "echo", map[string]any{"message": "hello"}, nil)
	if res.IsError || !strings.Contains(texts(res), "hello") {
		t.Fatalf("result %q", texts(res))
	}
	if got := m.get(); got["message/stream"] != 1 || got["message/send"] != 0 {
		t.Fatalf("agent got %v, want one message/stream", got)
	}
}
