package front_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/client"
	"github.com/a2a-mcp-bridge/bridge/a2a/front"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/examples/demoagent"
)

// writeCounter is a memory store that counts the task updates (writes of
// events onto an existing task).
type writeCounter struct {
	*store.Memory
	updates atomic.Int32
	events  atomic.Int32
}

func (c *writeCounter) UpdateTask(ctx context.Context, owner string, t *a2a.Task, version int64, evs []a2a.StreamResponse) (*taskmanager.TaskRecord, error) {
	c.updates.Add(1)
	c.events.Add(int32(len(evs)))
	return c.Memory.UpdateTask(ctx, owner, t, version, evs)
}

func (c *writeCounter) UpdateTaskReleasing(ctx context.Context, owner string, t *a2a.Task, version int64, evs []a2a.StreamResponse, holder string) (*taskmanager.TaskRecord, error) {
	c.updates.Add(1)
	c.events.Add(int32(len(evs)))
	return c.Memory.UpdateTaskReleasing(ctx, owner, t, version, evs, holder)
}

// TestStreamEventsSentBackToBackShareAWrite: an upstream that sends its
// task's WORKING state, artifact and COMPLETED state in one write of its
// event stream has them relayed in one store write after the creation,
// not three, and the caller's stream still gets every event, in order; a
// second burst after a pause is written apart from the first.
func TestStreamEventsSentBackToBackShareAWrite(t *testing.T) {
	mgrUp, err := taskmanager.New(taskmanager.Config{Store: store.NewMemory(), Executor: &demoagent.Agent{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mgrUp.Wait)
	var cardSrv *server.Server
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			cardSrv.ServeCard(w, r)
			return
		}
		var env struct {
			ID json.RawMessage `json:"id"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &env); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		ev := func(p string) string {
			return fmt.Sprintf("data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", env.ID, p)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		// The creation alone, then WORKING and an artifact in one write, a
		// pause, a second artifact and COMPLETED in one write.
		io.WriteString(w, ev(`{"task":{"id":"u1","contextId":"uc","status":{"state":"TASK_STATE_SUBMITTED"}}}`))
		w.(http.Flusher).Flush()
		time.Sleep(50 * time.Millisecond)
		io.WriteString(w, ev(`{"statusUpdate":{"taskId":"u1","contextId":"uc","status":{"state":"TASK_STATE_WORKING"}}}`)+
			ev(`{"artifactUpdate":{"taskId":"u1","contextId":"uc","artifact":{"artifactId":"a1","parts":[{"text":"one"}]},"lastChunk":true}}`))
		w.(http.Flusher).Flush()
		time.Sleep(50 * time.Millisecond)
		io.WriteString(w, ev(`{"artifactUpdate":{"taskId":"u1","contextId":"uc","artifact":{"artifactId":"a2","parts":[{"text":"two"}]},"lastChunk":true}}`)+
			ev(`{"statusUpdate":{"taskId":"u1","contextId":"uc","status":{"state":"TASK_STATE_COMPLETED"}}}`))
		w.(http.Flusher).Flush()
	}))
	t.Cleanup(up.Close)
	c := demoagent.Card(up.URL)
	c.Capabilities.Streaming = a2a.Ptr(true)
	if cardSrv, err = server.New(server.Config{Manager: mgrUp, Card: c}); err != nil {
		t.Fatal(err)
	}

	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	px, err := front.New(context.Background(), front.Config{
		CardURL: up.URL + "/.well-known/agent-card.json", HTTPClient: up.Client(), StateKey: key,
	})
	if err != nil {
		t.Fatal(err)
	}
	st := &writeCounter{Memory: store.NewMemory()}
	mgr, err := taskmanager.New(taskmanager.Config{Store: st, Executor: px, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mgr.Wait)
	var h http.Handler
	br := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(server.WithOwner(r.Context(), "alice")))
	}))
	t.Cleanup(br.Close)
	s, err := server.New(server.Config{Manager: mgr, Card: px.Card(br.URL, false)})
	if err != nil {
		t.Fatal(err)
	}
	h = s

	cl, err := client.Dial(context.Background(), br.URL+"/.well-known/agent-card.json", client.WithHTTPClient(br.Client()))
	if err != nil {
		t.Fatal(err)
	}
	stream, err := cl.SendStreamingMessage(context.Background(), &a2a.SendMessageRequest{Message: userMsg("go")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for ev, err := range stream.All() {
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case ev.Task != nil:
			got = append(got, "task "+string(ev.Task.Status.State))
		case ev.StatusUpdate != nil:
			got = append(got, "status "+string(ev.StatusUpdate.Status.State))
		case ev.ArtifactUpdate != nil:
			got = append(got, "artifact "+ev.ArtifactUpdate.Artifact.Parts[0].Text)
		}
	}
	want := fmt.Sprint([]string{"task " + string(a2a.TaskStateSubmitted), "status " + string(a2a.TaskStateWorking),
		"artifact one", "artifact two", "status " + string(a2a.TaskStateCompleted)})
	if fmt.Sprint(got) != want {
		t.Errorf("the caller's stream: %v, want %v", got, want)
	}
	if u, e := st.updates.Load(), st.events.Load(); u != 2 || e != 4 {
		t.Errorf("%d events in %d task updates, want 4 in 2 (one per burst)", e, u)
	}
}
