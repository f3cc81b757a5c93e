package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	a2aclient "github.com/a2a-mcp-bridge/bridge/a2a/client"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/store/storetest"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/bench"
	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
)

func TestMain(m *testing.M) { os.Exit(bridgetest.Main(m)) }

// servedBridge is one `bridge serve` process.
type servedBridge struct {
	*bridgetest.Proc
	base string
}

// startServe runs `bridge serve` on config at addr with storeURL and waits
// until /readyz answers 200 (the store answers, the fronted agent's card is
// loaded).
func startServe(t *testing.T, bin, config, addr, storeURL string) *servedBridge {
	t.Helper()
	b := &servedBridge{base: "http://" + addr}
	b.Proc = bridgetest.StartProc(t, "bridge serve", bridgetest.Command("", nil, bin, "serve", "--config", config, "--store", storeURL),
		bridgetest.HTTPOK(b.base+"/readyz"))
	return b
}

// kill ends the process with SIGKILL: no shutdown, no flush, nothing run.
func (b *servedBridge) kill(*testing.T) { b.Kill() }

// TestAcknowledgedEventsSurviveSIGKILL runs `bridge serve` in front of an
// agent with callers making blocking and streaming calls at once, kills the
// process with SIGKILL right after the 40th acknowledged answer, and then
// finds in the store every task and event any caller was given: each
// blocking answer's task as answered, and each streamed event in the
// task's event log at its place. The restarted bridge serves them too. Run
// on SQLite (the default, grouped commits; and with synchronous=normal) and
// on PostgreSQL (batched writes) when BRIDGE_TEST_POSTGRES_URL is set.
func TestAcknowledgedEventsSurviveSIGKILL(t *testing.T) {
	bin := bridgetest.BridgeBinary(t)
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "tasks.db")
		killAfterAnswers(t, bin, "sqlite:"+path, func(ctx context.Context) (taskmanager.Store, error) {
			return store.OpenSQLite(ctx, path)
		})
	})
	// synchronous=normal syncs the WAL only at checkpoints: what a process
	// kill cannot take back (the kernel holds the commit) must survive it.
	t.Run("sqlite-synchronous-normal", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "tasks.db")
		killAfterAnswers(t, bin, "sqlite:"+path+"?synchronous=normal", func(ctx context.Context) (taskmanager.Store, error) {
			return store.OpenSQLite(ctx, path)
		})
	})
	t.Run("postgres", func(t *testing.T) {
		u := storetest.PostgresSchema(t)
		killAfterAnswers(t, bin, u, func(ctx context.Context) (taskmanager.Store, error) {
			return store.OpenPostgres(ctx, u)
		})
	})
}

// streamed is what one streaming caller was given: the task and the events
// after its first snapshot.
type streamed struct {
	taskID string
	events []a2a.StreamResponse
}

func killAfterAnswers(t *testing.T, bin, storeURL string, open func(context.Context) (taskmanager.Store, error)) {
	const answersBeforeKill = 40
	// The agent: the bench's fast agent, in this process; "progress …"
	// makes it report WORKING before its artifact.
	var upH http.Handler
	upSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { upH.ServeHTTP(w, r) }))
	defer upSrv.Close()
	up, err := bench.NewUpstream(upSrv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	upH = up.Handler

	addr := bridgetest.FreeAddr(t)
	config := filepath.Join(t.TempDir(), "bridge.yaml")
	if err := os.WriteFile(config, fmt.Appendf(nil, `listen: %s
auth: {anonymous: true}
policy: {default: allow}
front:
  a2a:
    - {name: agent, url: %s/.well-known/agent-card.json}
`, addr, upSrv.URL), 0o600); err != nil {
		t.Fatal(err)
	}
	br := startServe(t, bin, config, addr, storeURL)
	ctx := context.Background()
	client, err := a2aclient.Dial(ctx, br.base+"/a2a/agent/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var answered []*a2a.Task // blocking answers, as given
	var streams []*streamed  // streams, as read until the kill
	killed := make(chan struct{})
	var killOnce sync.Once
	var wg sync.WaitGroup
	send := func(text string) *a2a.SendMessageRequest {
		return &a2a.SendMessageRequest{Message: &a2a.Message{MessageID: text, Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(text)}}}
	}
	for w := range 6 {
		wg.Go(func() { // blocking callers
			for i := 0; ; i++ {
				select {
				case <-killed:
					return
				default:
				}
				resp, err := client.SendMessage(ctx, send(fmt.Sprintf("hello %d-%d", w, i)))
				if err != nil {
					return // the bridge is gone
				}
				if resp.Task == nil || resp.Task.Status.State != a2a.TaskStateCompleted {
					t.Errorf("answer: %+v", resp)
					return
				}
				mu.Lock()
				answered = append(answered, resp.Task)
				n := len(answered)
				mu.Unlock()
				if n >= answersBeforeKill {
					killOnce.Do(func() { br.kill(t); close(killed) })
					return
				}
			}
		})
	}
	for w := range 4 {
		wg.Go(func() { // streaming callers
			for i := 0; ; i++ {
				select {
				case <-killed:
					return
				default:
				}
				st, err := client.SendStreamingMessage(ctx, send(fmt.Sprintf("%s %d-%d", bench.ProgressPrefix, w, i)))
				if err != nil {
					return
				}
				s := &streamed{}
				for {
					ev, err := st.Next()
					if err != nil {
						break
					}
					if s.taskID == "" {
						if ev.Task == nil {
							t.Errorf("first event of a stream is not the task: %+v", ev)
							break
						}
						s.taskID = ev.Task.ID
						continue
					}
					s.events = append(s.events, *ev)
				}
				st.Close()
				if s.taskID != "" {
					mu.Lock()
					streams = append(streams, s)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	select {
	case <-killed:
	default:
		t.Fatalf("the callers stopped before %d answers (%d)", answersBeforeKill, len(answered))
	}

	// The process is dead: read the store as it was left.
	octx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	st, err := open(octx)
	if err != nil {
		t.Fatal(err)
	}
	owner := auth.AnonymousPrincipal().Key()
	for _, want := range answered {
		rec, err := st.GetTask(octx, owner, want.ID)
		if err != nil {
			t.Errorf("acknowledged task %s lost: %v", want.ID, err)
			continue
		}
		if rec.Task.Status.State != a2a.TaskStateCompleted || len(rec.Task.Artifacts) != 1 ||
			len(want.Artifacts) != 1 || rec.Task.Artifacts[0].Parts[0].Text != want.Artifacts[0].Parts[0].Text {
			t.Errorf("acknowledged task %s stored as %s with artifacts %+v; answered with %+v", want.ID, rec.Task.Status.State, rec.Task.Artifacts, want.Artifacts)
		}
	}
	streamedEvents := 0
	for _, s := range streams {
		evs, err := st.Events(octx, owner, s.taskID, 0, 0)
		if err != nil {
			t.Errorf("streamed task %s lost: %v", s.taskID, err)
			continue
		}
		if len(evs) < len(s.events) {
			t.Errorf("task %s: %d events streamed, %d stored", s.taskID, len(s.events), len(evs))
			continue
		}
		for i, ev := range s.events {
			if got, want := eventKey(&evs[i].Event), eventKey(&ev); got != want {
				t.Errorf("task %s event %d: stored %s, streamed %s", s.taskID, i+1, got, want)
			}
		}
		streamedEvents += len(s.events)
	}
	if closer, ok := st.(interface{ Close() error }); ok {
		_ = closer.Close()
	}
	if streamedEvents == 0 {
		t.Error("no streamed event to check: the streaming callers got nothing before the kill")
	}
	t.Logf("checked %d acknowledged answers and %d streamed events of %d streams", len(answered), streamedEvents, len(streams))

	// Restarted on the same store, the bridge serves what it acknowledged.
	br = startServe(t, bin, config, addr, storeURL)
	client, err = a2aclient.Dial(ctx, br.base+"/a2a/agent/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range answered {
		got, err := client.GetTask(ctx, &a2a.GetTaskRequest{ID: want.ID})
		if err != nil || got.Status.State != a2a.TaskStateCompleted {
			t.Errorf("after restart, task %s: %+v, %v", want.ID, got, err)
		}
	}
}

// eventKey names an event by what a caller relies on: its kind, the state
// it reports or the artifact it carries.
func eventKey(ev *a2a.StreamResponse) string {
	switch {
	case ev.StatusUpdate != nil:
		return "status " + string(ev.StatusUpdate.Status.State)
	case ev.ArtifactUpdate != nil:
		text := ""
		if ps := ev.ArtifactUpdate.Artifact.Parts; len(ps) > 0 {
			text = ps[0].Text
		}
		return "artifact " + ev.ArtifactUpdate.Artifact.ArtifactID + " " + text
	case ev.Task != nil:
		return "task " + string(ev.Task.Status.State)
	case ev.Message != nil:
		return "message " + ev.Message.MessageID
	}
	return "empty"
}

// TestAcknowledgedPublishCallsSurviveSIGKILL runs `bridge serve`
// publishing an MCP server as an A2A agent, with blocking callers calling
// its tool at once, kills the process with SIGKILL right after the 40th
// acknowledged answer, and then finds in the store every answered task
// whole: COMPLETED with the artifact the caller was given, and its event
// log (the artifact, then COMPLETED: a fast call's task is created with
// them, in one write). The restarted bridge serves them too. On SQLite
// and, when BRIDGE_TEST_POSTGRES_URL is set, on PostgreSQL.
func TestAcknowledgedPublishCallsSurviveSIGKILL(t *testing.T) {
	bin := bridgetest.BridgeBinary(t)
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "tasks.db")
		killAfterPublishAnswers(t, bin, "sqlite:"+path, func(ctx context.Context) (taskmanager.Store, error) {
			return store.OpenSQLite(ctx, path)
		})
	})
	t.Run("postgres", func(t *testing.T) {
		u := storetest.PostgresSchema(t)
		killAfterPublishAnswers(t, bin, u, func(ctx context.Context) (taskmanager.Store, error) {
			return store.OpenPostgres(ctx, u)
		})
	})
}

func killAfterPublishAnswers(t *testing.T, bin, storeURL string, open func(context.Context) (taskmanager.Store, error)) {
	const answersBeforeKill = 40
	mcpSrv := httptest.NewServer(bench.NewMCPServer(nil))
	defer mcpSrv.Close()
	addr := bridgetest.FreeAddr(t)
	config := filepath.Join(t.TempDir(), "bridge.yaml")
	if err := os.WriteFile(config, fmt.Appendf(nil, `listen: %s
auth: {anonymous: true}
policy: {default: allow}
publish:
  - name: tools
    http: {url: %s}
`, addr, mcpSrv.URL), 0o600); err != nil {
		t.Fatal(err)
	}
	br := startServe(t, bin, config, addr, storeURL)
	ctx := context.Background()
	client, err := a2aclient.Dial(ctx, br.base+"/a2a/tools/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var answered []*a2a.Task
	killed := make(chan struct{})
	var killOnce sync.Once
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-killed:
					return
				default:
				}
				part, err := a2a.DataPart(map[string]any{"tool": bench.MCPTool, "arguments": map[string]any{"text": fmt.Sprintf("hello %d-%d", w, i)}})
				if err != nil {
					t.Error(err)
					return
				}
				resp, err := client.SendMessage(ctx, &a2a.SendMessageRequest{Message: &a2a.Message{
					MessageID: fmt.Sprintf("m-%d-%d", w, i), Role: a2a.RoleUser, Parts: []a2a.Part{part}}})
				if err != nil {
					return // the bridge is gone
				}
				if resp.Task == nil || resp.Task.Status.State != a2a.TaskStateCompleted {
					t.Errorf("answer: %+v", resp)
					return
				}
				mu.Lock()
				answered = append(answered, resp.Task)
				n := len(answered)
				mu.Unlock()
				if n >= answersBeforeKill {
					killOnce.Do(func() { br.kill(t); close(killed) })
					return
				}
			}
		})
	}
	wg.Wait()
	select {
	case <-killed:
	default:
		t.Fatalf("the callers stopped before %d answers (%d)", answersBeforeKill, len(answered))
	}

	octx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	st, err := open(octx)
	if err != nil {
		t.Fatal(err)
	}
	owner := auth.AnonymousPrincipal().Key()
	for _, want := range answered {
		rec, err := st.GetTask(octx, owner, want.ID)
		if err != nil {
			t.Errorf("acknowledged task %s lost: %v", want.ID, err)
			continue
		}
		if rec.Task.Status.State != a2a.TaskStateCompleted || len(rec.Task.Artifacts) != 1 || len(want.Artifacts) != 1 ||
			rec.Task.Artifacts[0].Parts[0].Text != want.Artifacts[0].Parts[0].Text {
			t.Errorf("acknowledged task %s stored as %s with artifacts %+v; answered with %+v", want.ID, rec.Task.Status.State, rec.Task.Artifacts, want.Artifacts)
			continue
		}
		evs, err := st.Events(octx, owner, want.ID, 0, 0)
		if err != nil || int64(len(evs)) != rec.LastSeq || len(evs) < 2 {
			t.Errorf("acknowledged task %s: events %d (last seq %d), %v", want.ID, len(evs), rec.LastSeq, err)
			continue
		}
		art, end := evs[len(evs)-2].Event, evs[len(evs)-1].Event
		if art.ArtifactUpdate == nil || art.ArtifactUpdate.Artifact.Parts[0].Text != want.Artifacts[0].Parts[0].Text ||
			end.StatusUpdate == nil || end.StatusUpdate.Status.State != a2a.TaskStateCompleted {
			t.Errorf("acknowledged task %s: the log ends %s, %s", want.ID, eventKey(&art), eventKey(&end))
		}
	}
	if closer, ok := st.(interface{ Close() error }); ok {
		_ = closer.Close()
	}
	t.Logf("checked %d acknowledged publish answers", len(answered))

	br = startServe(t, bin, config, addr, storeURL)
	client, err = a2aclient.Dial(ctx, br.base+"/a2a/tools/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range answered {
		got, err := client.GetTask(ctx, &a2a.GetTaskRequest{ID: want.ID})
		if err != nil || got.Status.State != a2a.TaskStateCompleted {
			t.Errorf("after restart, task %s: %+v, %v", want.ID, got, err)
		}
	}
}
