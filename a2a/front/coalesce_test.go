package front_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
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
	"github.com/a2a-mcp-bridge/bridge/internal/syncbuf"
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

// relayBursts relays, through a front proxy over a writeCounter store, a
// streaming send to an upstream that answers with bursts of events: each
// burst (the result payloads of its events) in one write of its event
// stream, a pause between bursts. It returns what the caller's stream read
// ("task STATE", "status STATE[: text]", "artifact TEXT"), the store and
// the bridge's task manager logs.
func relayBursts(t *testing.T, bursts ...[]string) ([]string, *writeCounter, string) {
	t.Helper()
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
		w.Header().Set("Content-Type", "text/event-stream")
		for i, burst := range bursts {
			if i > 0 {
				time.Sleep(50 * time.Millisecond)
			}
			var b strings.Builder
			for _, p := range burst {
				fmt.Fprintf(&b, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", env.ID, p)
			}
			io.WriteString(w, b.String())
			w.(http.Flusher).Flush()
		}
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
	var logs syncbuf.Buffer
	st := &writeCounter{Memory: store.NewMemory()}
	mgr, err := taskmanager.New(taskmanager.Config{Store: st, Executor: px, PollInterval: 20 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
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
			e := "status " + string(ev.StatusUpdate.Status.State)
			if m := ev.StatusUpdate.Status.Message; m != nil && len(m.Parts) > 0 {
				e += ": " + m.Parts[0].Text
			}
			got = append(got, e)
		case ev.ArtifactUpdate != nil:
			got = append(got, "artifact "+ev.ArtifactUpdate.Artifact.Parts[0].Text)
		}
	}
	mgr.Wait()
	return got, st, logs.String()
}

// Upstream stream events of the task u1, for relayBursts.
const (
	upSubmitted = `{"task":{"id":"u1","contextId":"uc","status":{"state":"TASK_STATE_SUBMITTED"}}}`
	upWorking   = `{"statusUpdate":{"taskId":"u1","contextId":"uc","status":{"state":"TASK_STATE_WORKING"}}}`
	upCompleted = `{"statusUpdate":{"taskId":"u1","contextId":"uc","status":{"state":"TASK_STATE_COMPLETED"}}}`
	upBogus     = `{"statusUpdate":{"taskId":"u1","contextId":"uc","status":{"state":"TASK_STATE_BOGUS"}}}`
	upEmptyArt  = `{"artifactUpdate":{"taskId":"u1","contextId":"uc","artifact":{"artifactId":"e","parts":[]},"lastChunk":true}}`
	upMessage   = `{"message":{"messageId":"um","role":"ROLE_AGENT","parts":[{"text":"hello"}]}}`
)

func upArtifact(id, text string) string {
	return fmt.Sprintf(`{"artifactUpdate":{"taskId":"u1","contextId":"uc","artifact":{"artifactId":%q,"parts":[{"text":%q}]},"lastChunk":true}}`, id, text)
}

// TestStreamEventsSentBackToBackShareAWrite: an upstream that sends its
// task's WORKING state, artifact and COMPLETED state in one write of its
// event stream has them relayed in one store write after the creation,
// not three, and the caller's stream still gets every event, in order; a
// second burst after a pause is written apart from the first.
func TestStreamEventsSentBackToBackShareAWrite(t *testing.T) {
	// The creation alone, then WORKING and an artifact in one write, a
	// pause, a second artifact and COMPLETED in one write.
	got, st, _ := relayBursts(t, []string{upSubmitted},
		[]string{upWorking, upArtifact("a1", "one")},
		[]string{upArtifact("a2", "two"), upCompleted})
	want := fmt.Sprint([]string{"task " + string(a2a.TaskStateSubmitted), "status " + string(a2a.TaskStateWorking),
		"artifact one", "artifact two", "status " + string(a2a.TaskStateCompleted)})
	if fmt.Sprint(got) != want {
		t.Errorf("the caller's stream: %v, want %v", got, want)
	}
	if u, e := st.updates.Load(), st.events.Load(); u != 2 || e != 4 {
		t.Errorf("%d events in %d task updates, want 4 in 2 (one per burst)", e, u)
	}
}

// TestRefusedEventInABurstFailsAsIfRelayedAlone: an upstream event the
// task manager refuses (an unknown state, an artifact without parts), or
// one the relay refuses (a direct message on a task), in the middle of a
// back-to-back burst ends the relay as it did when each event was written
// alone: the events before it are all relayed, in the burst's one write,
// the task fails with the error logged, and nothing after it is relayed.
func TestRefusedEventInABurstFailsAsIfRelayedAlone(t *testing.T) {
	const failed = "status " + string(a2a.TaskStateFailed) + ": the agent failed: "
	cases := []struct {
		name    string
		refused string
		logged  string // in the manager's log of the executor's error
		answer  string // the failure the caller reads
	}{
		{"unknown state", upBogus, `executor emitted an invalid state \"TASK_STATE_BOGUS\"`, failed + "internal error"},
		{"artifact without parts", upEmptyArt, "executor emitted an artifact without parts", failed + "internal error"},
		{"direct message on a task", upMessage, "the upstream answered a task with a direct message", failed + "the upstream answered a task with a direct message"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, st, logs := relayBursts(t, []string{upSubmitted},
				[]string{upWorking, upArtifact("a1", "one"), tc.refused, upArtifact("a2", "two"), upCompleted})
			want := fmt.Sprint([]string{"task " + string(a2a.TaskStateSubmitted), "status " + string(a2a.TaskStateWorking),
				"artifact one", tc.answer})
			if fmt.Sprint(got) != want {
				t.Errorf("the caller's stream: %v, want %v", got, want)
			}
			if !strings.Contains(logs, "a2a: executor returned an error") || !strings.Contains(logs, tc.logged) {
				t.Errorf("the manager's log does not report the refusal (%s):\n%s", tc.logged, logs)
			}
			// The burst's two events before the refused one in one write,
			// then the failure.
			if u, e := st.updates.Load(), st.events.Load(); u != 2 || e != 3 {
				t.Errorf("%d events in %d task updates, want 3 in 2", e, u)
			}
		})
	}
}
