package publish_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/publish"
)

// fullStore is a store with every write capability the task manager uses.
type fullStore interface {
	taskmanager.Store
	taskmanager.LeasedTaskCreator
	taskmanager.LeaseReleasingUpdater
	taskmanager.EventfulTaskCreator
}

// writeCounter records the task writes made through it.
type writeCounter struct {
	fullStore
	mu  sync.Mutex
	ops []string
}

func (w *writeCounter) log(op string) {
	w.mu.Lock()
	w.ops = append(w.ops, op)
	w.mu.Unlock()
}

func (w *writeCounter) writes() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.ops)
}

func (w *writeCounter) CreateTask(ctx context.Context, owner string, t *a2a.Task) error {
	w.log("CreateTask")
	return w.fullStore.CreateTask(ctx, owner, t)
}

func (w *writeCounter) CreateLeasedTask(ctx context.Context, owner string, t *a2a.Task, holder string, ttl time.Duration) error {
	w.log("CreateLeasedTask")
	return w.fullStore.CreateLeasedTask(ctx, owner, t, holder, ttl)
}

func (w *writeCounter) CreateTaskWithEvents(ctx context.Context, owner string, t *a2a.Task, evs []a2a.StreamResponse, holder string, ttl time.Duration) (*taskmanager.TaskRecord, error) {
	w.log("CreateTaskWithEvents")
	return w.fullStore.CreateTaskWithEvents(ctx, owner, t, evs, holder, ttl)
}

func (w *writeCounter) UpdateTask(ctx context.Context, owner string, t *a2a.Task, version int64, evs []a2a.StreamResponse) (*taskmanager.TaskRecord, error) {
	w.log("UpdateTask")
	return w.fullStore.UpdateTask(ctx, owner, t, version, evs)
}

func (w *writeCounter) UpdateTaskReleasing(ctx context.Context, owner string, t *a2a.Task, version int64, evs []a2a.StreamResponse, holder string) (*taskmanager.TaskRecord, error) {
	w.log("UpdateTaskReleasing")
	return w.fullStore.UpdateTaskReleasing(ctx, owner, t, version, evs, holder)
}

func (w *writeCounter) AcquireLease(ctx context.Context, id, holder string, ttl time.Duration) (bool, error) {
	w.log("AcquireLease")
	return w.fullStore.AcquireLease(ctx, id, holder, ttl)
}

func (w *writeCounter) ReleaseLease(ctx context.Context, id, holder string) error {
	w.log("ReleaseLease")
	return w.fullStore.ReleaseLease(ctx, id, holder)
}

// scripted is an MCP server of one tool, "t", that waits (on the caller's
// clock), may report progress or ask a question first, and answers.
type scripted struct {
	wait     time.Duration
	progress bool
	ask      bool
	isError  bool
}

func (scripted) Tools(context.Context) ([]connector.Tool, error) {
	return []connector.Tool{{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)}}, nil
}

func (s scripted) CallTool(ctx context.Context, _ string, _ json.RawMessage, progress connector.ProgressFunc, elicit connector.ElicitFunc) (json.RawMessage, error) {
	if s.progress {
		progress(1, 2, "half way")
	}
	if s.ask {
		if _, err := elicit(ctx, connector.Elicitation{Message: "name?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)}); err != nil {
			return nil, err
		}
	}
	select {
	case <-time.After(s.wait):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if s.isError {
		return json.RawMessage(`{"isError":true,"content":[{"type":"text","text":"no"}]}`), nil
	}
	return json.RawMessage(`{"content":[{"type":"text","text":"42"}]}`), nil
}

func (scripted) OnToolsChanged(func([]connector.Tool)) {}

func newWriteFixture(t *testing.T, st fullStore, up publish.Upstream, cfg publish.Config) (*taskmanager.Manager, *writeCounter) {
	t.Helper()
	wc := &writeCounter{fullStore: st}
	cfg.Name, cfg.Store, cfg.Logger = "w", wc, quiet
	agent, err := publish.New(cfg, up)
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := taskmanager.New(taskmanager.Config{Store: wc, Executor: agent, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mgr.Wait)
	return mgr, wc
}

var (
	evWorking       = string(a2a.TaskStateWorking)
	evCompleted     = string(a2a.TaskStateCompleted)
	evFailed        = string(a2a.TaskStateFailed)
	evRejected      = string(a2a.TaskStateRejected)
	evInputRequired = string(a2a.TaskStateInputRequired)
)

// eventKinds names the events of a task's log: the state of a status
// update, "artifact" for an artifact.
func eventKinds(t *testing.T, st taskmanager.Store, id string) []string {
	t.Helper()
	evs, err := st.Events(context.Background(), "alice", id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, e := range evs {
		if e.Seq != int64(i+1) {
			t.Errorf("event %d has seq %d", i, e.Seq)
		}
		switch {
		case e.Event.ArtifactUpdate != nil:
			out = append(out, "artifact")
		case e.Event.StatusUpdate != nil:
			out = append(out, string(e.Event.StatusUpdate.Status.State))
		}
	}
	return out
}

// TestFastCallWrites counts the store writes of a call whose tool answers
// at once, on the memory and SQLite stores: a blocking call is one write
// (the task created finished), a streaming one keeps its WORKING first.
func TestFastCallWrites(t *testing.T) {
	refuse := func(context.Context, string, bool) error { return errors.New("not you") }
	cases := []struct {
		name      string
		up        scripted
		authorize func(context.Context, string, bool) error
		streaming bool
		state     a2a.TaskState
		writes    []string
		events    []string
	}{
		{"blocking, completed", scripted{}, nil, false, a2a.TaskStateCompleted,
			[]string{"CreateTaskWithEvents"}, []string{"artifact", evCompleted}},
		{"blocking, tool error", scripted{isError: true}, nil, false, a2a.TaskStateFailed,
			[]string{"CreateTaskWithEvents"}, []string{evFailed}},
		{"blocking, refused", scripted{}, refuse, false, a2a.TaskStateRejected,
			[]string{"CreateTaskWithEvents"}, []string{evRejected}},
		{"streaming, completed", scripted{}, nil, true, a2a.TaskStateCompleted,
			[]string{"CreateTaskWithEvents", "UpdateTaskReleasing"}, []string{evWorking, "artifact", evCompleted}},
	}
	stores := []struct {
		name string
		open func(t *testing.T) fullStore
	}{
		{"memory", func(*testing.T) fullStore { return store.NewMemory() }},
		{"sqlite", func(t *testing.T) fullStore {
			s, err := store.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "tasks.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			return s
		}},
	}
	for _, sc := range stores {
		for _, tc := range cases {
			t.Run(sc.name+"/"+tc.name, func(t *testing.T) {
				mgr, wc := newWriteFixture(t, sc.open(t), tc.up, publish.Config{Authorize: tc.authorize})
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				req := &a2a.SendMessageRequest{Message: dataMsg(t, call("t", nil))}
				var id string
				if tc.streaming {
					var seen []string
					err := mgr.SendStreamingMessage(ctx, "alice", req, func(ev *a2a.StreamResponse) error {
						switch {
						case ev.Task != nil:
							id = ev.Task.ID
						case ev.ArtifactUpdate != nil:
							seen = append(seen, "artifact")
						case ev.StatusUpdate != nil:
							seen = append(seen, string(ev.StatusUpdate.Status.State))
						}
						return nil
					})
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(seen, tc.events) {
						t.Errorf("streamed %v, want %v", seen, tc.events)
					}
				} else {
					resp, err := mgr.SendMessage(ctx, "alice", req)
					if err != nil || resp.Task == nil {
						t.Fatalf("SendMessage = %+v, %v", resp, err)
					}
					if resp.Task.Status.State != tc.state {
						t.Fatalf("state %s (%s), want %s", resp.Task.Status.State, statusText(resp.Task), tc.state)
					}
					id = resp.Task.ID
				}
				mgr.Wait()
				if got := wc.writes(); !slices.Equal(got, tc.writes) {
					t.Errorf("writes = %v, want %v", got, tc.writes)
				}
				if got := eventKinds(t, wc, id); !slices.Equal(got, tc.events) {
					t.Errorf("events = %v, want %v", got, tc.events)
				}
				rec, err := wc.GetTask(ctx, "alice", id)
				if err != nil || rec.Task.Status.State != tc.state {
					t.Fatalf("stored task: %+v, %v", rec, err)
				}
				if ok, err := wc.fullStore.AcquireLease(ctx, id, "next", time.Minute); err != nil || !ok {
					t.Errorf("a lease is left on the finished task: %v, %v", ok, err)
				}
			})
		}
	}
}

// TestSlowBlockingCallWritesWorkingAfterTheGrace: a blocking call that
// outlasts the grace gets its "calling tool" WORKING state written when the
// grace ends, not before; progress or a question writes it at once, before
// themselves. On the bubble's clock.
func TestSlowBlockingCallWritesWorkingAfterTheGrace(t *testing.T) {
	cases := []struct {
		name string
		up   scripted
		// early are the writes made before the grace ends.
		early  []string
		writes []string
		events []string
		state  a2a.TaskState
	}{
		{"slow", scripted{wait: time.Second}, nil,
			[]string{"CreateTaskWithEvents", "UpdateTaskReleasing"}, []string{evWorking, "artifact", evCompleted}, a2a.TaskStateCompleted},
		{"slow, failing", scripted{wait: time.Second, isError: true}, nil,
			[]string{"CreateTaskWithEvents", "UpdateTaskReleasing"}, []string{evWorking, evFailed}, a2a.TaskStateFailed},
		{"progress at once", scripted{wait: time.Second, progress: true}, []string{"CreateTaskWithEvents", "UpdateTask"},
			[]string{"CreateTaskWithEvents", "UpdateTask", "UpdateTaskReleasing"}, []string{evWorking, evWorking, "artifact", evCompleted}, a2a.TaskStateCompleted},
		{"question at once", scripted{ask: true}, []string{"CreateTaskWithEvents", "UpdateTask", "ReleaseLease"},
			[]string{"CreateTaskWithEvents", "UpdateTask", "ReleaseLease"}, []string{evWorking, evInputRequired}, a2a.TaskStateInputRequired},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mgr, wc := newWriteFixture(t, store.NewMemory(), tc.up, publish.Config{InputTimeout: time.Hour})
				type answer struct {
					task *a2a.Task
					err  error
				}
				done := make(chan answer, 1)
				go func() {
					resp, err := mgr.SendMessage(context.Background(), "alice", &a2a.SendMessageRequest{Message: dataMsg(t, call("t", nil))})
					if err != nil {
						done <- answer{err: err}
						return
					}
					done <- answer{task: resp.Task}
				}()
				time.Sleep(publish.WorkingGrace - time.Millisecond)
				synctest.Wait()
				if got := wc.writes(); !slices.Equal(got, tc.early) {
					t.Errorf("writes before the grace ends = %v, want %v", got, tc.early)
				}
				if tc.state != a2a.TaskStateInputRequired {
					time.Sleep(time.Millisecond)
					synctest.Wait()
					if got := wc.writes(); len(got) == 0 || got[0] != "CreateTaskWithEvents" {
						t.Errorf("writes once the grace ended = %v, want the task created WORKING", got)
					}
					page, err := wc.ListTasks(context.Background(), "alice", taskmanager.TaskQuery{})
					if err != nil || len(page.Tasks) != 1 || page.Tasks[0].Status.State != a2a.TaskStateWorking || len(page.Tasks[0].History) < 2 || page.Tasks[0].History[1].Parts[0].Text != "calling tool t" {
						t.Fatalf("tasks once the grace ended: %+v, %v", page, err)
					}
				}
				a := <-done
				if a.err != nil || a.task.Status.State != tc.state {
					t.Fatalf("SendMessage = %+v, %v; want %s", a.task, a.err, tc.state)
				}
				if got := wc.writes(); !slices.Equal(got, tc.writes) {
					t.Errorf("writes = %v, want %v", got, tc.writes)
				}
				if got := eventKinds(t, wc, a.task.ID); !slices.Equal(got, tc.events) {
					t.Errorf("events = %v, want %v", got, tc.events)
				}
				if tc.state == a2a.TaskStateInputRequired {
					if _, err := mgr.CancelTask(context.Background(), "alice", &a2a.CancelTaskRequest{ID: a.task.ID}); err != nil {
						t.Fatal(err)
					}
				}
				mgr.Wait()
			})
		})
	}
}
