package taskmanager_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/store/storetest"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
)

// diffStores are the stores the differential EmitAll test runs on: memory
// (with and without creating a task with its events), SQLite and, when
// BRIDGE_TEST_POSTGRES_URL is set, PostgreSQL.
func diffStores(t *testing.T) []struct {
	name string
	open func(t *testing.T) taskmanager.Store
} {
	return []struct {
		name string
		open func(t *testing.T) taskmanager.Store
	}{
		{"memory", func(*testing.T) taskmanager.Store { return store.NewMemory() }},
		{"memory two writes", func(*testing.T) taskmanager.Store {
			w := &writeLog{Memory: store.NewMemory()}
			return twoWrites{Store: w, w: w}
		}},
		{"sqlite", func(t *testing.T) taskmanager.Store {
			s, err := store.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "tasks.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}},
		{"postgres", openPostgres},
	}
}

// openPostgres opens a PostgreSQL store on a schema of its own, dropped at
// cleanup; it skips without BRIDGE_TEST_POSTGRES_URL.
func openPostgres(t *testing.T) taskmanager.Store {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := store.OpenPostgres(ctx, storetest.PostgresSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// event builds a fresh event from a short spec (events are handed over to
// the updater, so each run gets its own): "status STATE", "artifact ID
// TEXT", "append ID TEXT", "empty-artifact ID", "task STATE" (a snapshot
// with artifact "snap"), "message", "empty".
func event(spec string) a2a.StreamResponse {
	f := strings.Fields(spec)
	switch f[0] {
	case "status":
		return a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{Status: a2a.TaskStatus{State: a2a.TaskState(f[1])}}}
	case "artifact", "append":
		return a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{
			Artifact: a2a.Artifact{ArtifactID: f[1], Parts: []a2a.Part{a2a.TextPart(f[2])}}, Append: f[0] == "append"}}
	case "empty-artifact":
		return a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{Artifact: a2a.Artifact{ArtifactID: f[1]}}}
	case "task":
		return a2a.StreamResponse{Task: &a2a.Task{Status: a2a.TaskStatus{State: a2a.TaskState(f[1])},
			Artifacts: []a2a.Artifact{{ArtifactID: "snap", Parts: []a2a.Part{a2a.TextPart("snapshot")}}}}}
	case "message":
		return a2a.StreamResponse{Message: &a2a.Message{MessageID: "agent-msg", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("no")}}}
	case "empty":
		return a2a.StreamResponse{}
	}
	panic("unknown event spec " + spec)
}

// outcome is everything a run of a sequence leaves, with the ids that
// differ from run to run (task, context, generated message ids) masked.
type outcome struct {
	errIndex  int    // the event that failed, -1 if none did
	err       string // its error
	closed    bool   // the error is ErrTaskClosed
	task      string // the stored task
	lastSeq   int64
	log       []string // the stored event log, "seq event"
	stream    []string // what a SendStreamingMessage caller read
	published []string // what OnEvent saw, in order
}

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// masked is v as JSON with the task's ids and generated ids masked.
func masked(t *testing.T, v any, taskID, contextID string) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.NewReplacer(taskID, "TASK", contextID, "CONTEXT").Replace(string(b))
	return uuidRE.ReplaceAllString(s, "UUID")
}

// runSequence streams a message to a new manager on s whose executor emits
// pre one by one, then seq one by one (stopping at the first error) or with
// one EmitAll, and returns what it left.
func runSequence(t *testing.T, s taskmanager.Store, pre, seq []string, batch bool) outcome {
	t.Helper()
	clock := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	var published []a2a.StreamResponse
	out := outcome{errIndex: -1}
	mgr, err := taskmanager.New(taskmanager.Config{Store: s, PollInterval: 20 * time.Millisecond,
		Now: func() time.Time { return clock },
		OnEvent: func(_ context.Context, _ string, _ *a2a.Task, ev a2a.StreamResponse) {
			mu.Lock()
			published = append(published, ev)
			mu.Unlock()
		},
		Executor: funcExecutor(func(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) error {
			for _, p := range pre {
				if err := u.Emit(ctx, event(p)); err != nil {
					return fmt.Errorf("pre %s: %w", p, err)
				}
			}
			evs := make([]a2a.StreamResponse, len(seq))
			for i, sp := range seq {
				evs[i] = event(sp)
			}
			var failed error
			if batch {
				err := u.EmitAll(ctx, evs...)
				var ee *taskmanager.EventError
				if err != nil && !errors.As(err, &ee) {
					return fmt.Errorf("EmitAll returned %v, not an EventError", err)
				}
				if ee != nil {
					out.errIndex, failed = ee.Index, ee.Err
				}
			} else {
				for i := range evs {
					if err := u.Emit(ctx, evs[i]); err != nil {
						out.errIndex, failed = i, err
						break
					}
				}
			}
			if failed != nil {
				out.err, out.closed = failed.Error(), errors.Is(failed, taskmanager.ErrTaskClosed)
			}
			return nil
		})})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var stream []a2a.StreamResponse
	err = mgr.SendStreamingMessage(ctx, "alice", userMessage("m1"), func(ev *a2a.StreamResponse) error {
		stream = append(stream, *ev)
		return nil
	})
	mgr.Wait()
	if err != nil {
		t.Fatalf("SendStreamingMessage: %v", err)
	}
	if len(stream) == 0 || stream[0].Task == nil {
		t.Fatalf("the stream did not start with the task: %+v", stream)
	}
	taskID, contextID := stream[0].Task.ID, stream[0].Task.ContextID
	rec, err := s.GetTask(ctx, "alice", taskID)
	if err != nil {
		t.Fatal(err)
	}
	out.task, out.lastSeq = masked(t, &rec.Task, taskID, contextID), rec.LastSeq
	log, err := s.Events(ctx, "alice", taskID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range log {
		out.log = append(out.log, fmt.Sprintf("%d %s", e.Seq, masked(t, &e.Event, taskID, contextID)))
	}
	for i := range stream {
		out.stream = append(out.stream, masked(t, &stream[i], taskID, contextID))
	}
	mu.Lock()
	defer mu.Unlock()
	for i := range published {
		out.published = append(out.published, masked(t, &published[i], taskID, contextID))
	}
	return out
}

// TestEmitAllIsEmitOneByOne: an executor's events written with one EmitAll
// leave what Emit of each, in turn up to the first error, leaves: the same
// stored task and event log (seqs), the same subscriber stream and OnEvent
// deliveries, and the same error for the same event. A refused event in a
// batch neither takes the events before it down with it (they are stored
// and published) nor lets those after it in, on a new task (the batch
// creates it) and on a running one, on every store.
func TestEmitAllIsEmitOneByOne(t *testing.T) {
	W, C, S, I := "status TASK_STATE_WORKING", "status TASK_STATE_COMPLETED", "status TASK_STATE_SUBMITTED", "status TASK_STATE_INPUT_REQUIRED"
	cases := []struct {
		name    string
		seq     []string
		refused int // the event refused, -1 for none
	}{
		{"all taken", []string{W, "artifact a1 one", "append a1 two", C}, -1},
		{"submitted after working", []string{W, "artifact a1 one", S, C}, 2},
		{"unknown state in the middle", []string{W, "status TASK_STATE_BOGUS", C}, 1},
		{"unspecified state at the end", []string{W, "artifact a1 one", "status TASK_STATE_UNSPECIFIED"}, 2},
		{"empty artifact in the middle", []string{"artifact a1 one", "empty-artifact a2", C}, 1},
		{"empty artifact at the end", []string{W, "empty-artifact a2"}, 1},
		{"event after the end", []string{W, C, "artifact late x"}, 2},
		{"state after the end", []string{"artifact a1 one", "status TASK_STATE_FAILED", W}, 2},
		{"first event refused", []string{S, W, C}, 0},
		{"task event in the middle", []string{W, "task TASK_STATE_COMPLETED", "artifact late x"}, 2},
		{"task event first", []string{"task TASK_STATE_WORKING", "artifact a1 one", C}, -1},
		{"task event in an unknown state", []string{W, "task TASK_STATE_BOGUS", C}, 1},
		{"message event in the middle", []string{W, "message", C}, 1},
		{"empty event at the end", []string{W, "artifact a1 one", "empty"}, 2},
		{"interrupted, then on again", []string{I, W, "artifact a1 one"}, -1},
		{"refused after interrupted", []string{"artifact a1 one", I, S}, 2},
	}
	for _, sc := range diffStores(t) {
		t.Run(sc.name, func(t *testing.T) {
			s := sc.open(t)
			for _, tc := range cases {
				for _, variant := range []struct {
					name string
					pre  []string
				}{{"new task", nil}, {"running task", []string{W}}} {
					t.Run(tc.name+"/"+variant.name, func(t *testing.T) {
						one := runSequence(t, s, variant.pre, tc.seq, false)
						all := runSequence(t, s, variant.pre, tc.seq, true)
						if one.errIndex != tc.refused {
							t.Errorf("one by one: event %d refused (%s), want %d", one.errIndex, one.err, tc.refused)
						}
						if all.errIndex != one.errIndex || all.err != one.err || all.closed != one.closed {
							t.Errorf("refused: EmitAll event %d (%q, closed %v), one by one event %d (%q, closed %v)",
								all.errIndex, all.err, all.closed, one.errIndex, one.err, one.closed)
						}
						if all.task != one.task || all.lastSeq != one.lastSeq {
							t.Errorf("stored task:\nEmitAll    %s (last seq %d)\none by one %s (last seq %d)", all.task, all.lastSeq, one.task, one.lastSeq)
						}
						for _, d := range []struct {
							what     string
							all, one []string
						}{{"event log", all.log, one.log}, {"stream", all.stream, one.stream}, {"OnEvent", all.published, one.published}} {
							if strings.Join(d.all, "\n") != strings.Join(d.one, "\n") {
								t.Errorf("%s:\nEmitAll\n  %s\none by one\n  %s", d.what, strings.Join(d.all, "\n  "), strings.Join(d.one, "\n  "))
							}
						}
					})
				}
			}
		})
	}
}
