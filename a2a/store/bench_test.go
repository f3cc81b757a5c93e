package store_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/store/storetest"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
)

// benchStores opens each store kind for a benchmark: a writer and a reader
// (the same store, or for "postgres-2replicas" a second pool whose wake-ups
// come only through LISTEN/NOTIFY).
func benchStores(b *testing.B) []struct {
	name   string
	writer taskmanager.Store
	reader taskmanager.Store
} {
	m := store.NewMemory()
	sq := openSQLite(b, filepath.Join(b.TempDir(), "bench.db"))
	out := []struct {
		name   string
		writer taskmanager.Store
		reader taskmanager.Store
	}{{"memory", m, m}, {"sqlite", sq, sq}}
	if u := postgresURLOrEmpty(b); u != "" {
		pa, pb := openPostgres(b, u), openPostgres(b, u)
		out = append(out,
			struct {
				name   string
				writer taskmanager.Store
				reader taskmanager.Store
			}{"postgres", pa, pa},
			struct {
				name   string
				writer taskmanager.Store
				reader taskmanager.Store
			}{"postgres-2replicas", pa, pb})
	}
	return out
}

func postgresURLOrEmpty(b *testing.B) string {
	if os.Getenv("BRIDGE_TEST_POSTGRES_URL") == "" {
		b.Log("BRIDGE_TEST_POSTGRES_URL is not set; PostgreSQL benchmarks skipped")
		return ""
	}
	return storetest.PostgresSchema(b)
}

func benchEvent() a2a.StreamResponse {
	return a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{Status: a2a.TaskStatus{
		State:   a2a.TaskStateWorking,
		Message: &a2a.Message{MessageID: "m", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("progress: 42% of the work is done")}},
	}}}
}

// BenchmarkAppend measures one event appended and published: UpdateTask
// (compare-and-swap, event row, snapshot, wake-up) one after another.
func BenchmarkAppend(b *testing.B) {
	for _, s := range benchStores(b) {
		if s.writer != s.reader {
			continue // a second reader changes nothing for the writer
		}
		b.Run(s.name, func(b *testing.B) {
			ctx := context.Background()
			id := "bench-append-" + s.name
			task := &a2a.Task{ID: id, ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}
			if err := s.writer.CreateTask(ctx, "alice", task); err != nil {
				b.Fatal(err)
			}
			evs := []a2a.StreamResponse{benchEvent()}
			version := int64(1)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				rec, err := s.writer.UpdateTask(ctx, "alice", task, version, evs)
				if err != nil {
					b.Fatal(err)
				}
				version = rec.Version
			}
		})
	}
}

// BenchmarkSubscribeLatency measures, per event, the time from the start of
// UpdateTask to a watcher's wake-up and its Events read returning the event
// (ns/op), and the part after UpdateTask returned (wake-ns/op).
func BenchmarkSubscribeLatency(b *testing.B) {
	for _, s := range benchStores(b) {
		b.Run(s.name, func(b *testing.B) {
			ctx := context.Background()
			id := "bench-sub-" + s.name
			task := &a2a.Task{ID: id, ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}
			if err := s.writer.CreateTask(ctx, "alice", task); err != nil {
				b.Fatal(err)
			}
			ch, stop := s.reader.Watch(ctx, id)
			defer stop()
			evs := []a2a.StreamResponse{benchEvent()}
			version, seen := int64(1), int64(0)
			var wake time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				rec, err := s.writer.UpdateTask(ctx, "alice", task, version, evs)
				if err != nil {
					b.Fatal(err)
				}
				written := time.Now()
				version = rec.Version
				for seen < rec.LastSeq {
					select {
					case <-ch:
					case <-time.After(10 * time.Second):
						b.Fatal("no wake-up")
					}
					got, err := s.reader.Events(ctx, "alice", id, seen, 64)
					if err != nil {
						b.Fatal(err)
					}
					if len(got) > 0 {
						seen = got[len(got)-1].Seq
					}
				}
				wake += time.Since(written)
			}
			b.ReportMetric(float64(wake.Nanoseconds())/float64(b.N), "wake-ns/op")
		})
	}
}

// BenchmarkConcurrentCalls measures the store writes of whole calls, as the
// task manager makes them, by 32 callers at once (b.SetParallelism over
// -cpu; run it with -cpu 1, as bench/run.sh pins the bridge to one core):
// "settled" is a blocking call answered in one upstream reply (the task is
// created finished, without a run lease: one write), "events" a call whose
// task goes through SUBMITTED (created with its lease), WORKING, then an
// artifact and COMPLETED in one write that also gives the lease back (the
// published MCP tool's path: three writes), "retained" is "settled" while
// finished tasks are pruned 1 s after they finished, every 100 ms (the
// steady state of `bridge serve` under retention: every task written is
// also deleted). "publish" is the published MCP tool's blocking call
// as the task manager now writes it: the task created with its artifact
// and COMPLETED folded in (taskmanager.EventfulTaskCreator, one write),
// the log as "events" leaves it but for the WORKING state a fast tool
// never shows; "publish-slow" one that outlasts the grace: created with
// its lease and WORKING, then the artifact and COMPLETED releasing the
// lease (two writes). Task and context ids are the task manager's
// (taskmanager.NewID). One op is one call.
func BenchmarkConcurrentCalls(b *testing.B) {
	for _, s := range benchStores(b) {
		if s.writer != s.reader {
			continue
		}
		for _, kind := range []string{"settled", "events", "retained", "publish", "publish-slow"} {
			b.Run(s.name+"/"+kind, func(b *testing.B) {
				if kind == "retained" {
					stop := make(chan struct{})
					done := make(chan struct{})
					go func() {
						defer close(done)
						tick := time.NewTicker(100 * time.Millisecond)
						defer tick.Stop()
						for {
							select {
							case <-stop:
								return
							case <-tick.C:
								if _, err := s.writer.Prune(context.Background(), time.Now().Add(-time.Second)); err != nil {
									b.Error(err)
									return
								}
							}
						}
					}()
					defer func() { close(stop); <-done }()
				}
				b.SetParallelism(32)
				b.ReportAllocs()
				cpu0 := bridgetest.ProcessCPU()
				b.RunParallel(func(pb *testing.PB) {
					ctx := context.Background()
					for pb.Next() {
						var err error
						switch kind {
						case "publish", "publish-slow":
							err = benchPublishCall(ctx, s.writer, taskmanager.NewID(), kind == "publish-slow")
						default:
							err = benchCall(ctx, s.writer, taskmanager.NewID(), kind == "events")
						}
						if err != nil {
							b.Error(err)
							return
						}
					}
				})
				bridgetest.ReportCPUPerOp(b, cpu0)
			})
		}
	}
}

// benchCall makes the store writes of one call, as the task manager does.
func benchCall(ctx context.Context, s taskmanager.Store, id string, events bool) error {
	holder := "h-" + id
	now := time.Now()
	ctxID := taskmanager.NewID()
	msg := a2a.Message{MessageID: "m-" + id, Role: a2a.RoleUser, TaskID: id, ContextID: ctxID, Parts: []a2a.Part{a2a.TextPart("hello from the benchmark")}}
	art := a2a.Artifact{ArtifactID: "a-" + id, Name: "echo", Parts: []a2a.Part{a2a.TextPart("echo: hello from the benchmark")}}
	if !events {
		t := &a2a.Task{ID: id, ContextID: ctxID, Status: a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: &now},
			History: []a2a.Message{msg}, Artifacts: []a2a.Artifact{art}}
		return s.CreateTask(ctx, "alice", t)
	}
	t := &a2a.Task{ID: id, ContextID: ctxID, Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: &now}, History: []a2a.Message{msg}}
	if err := taskmanager.CreateLeasedTask(ctx, s, "alice", t, holder, 15*time.Second); err != nil {
		return err
	}
	working := *t
	working.Status = a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &now}
	rec, err := s.UpdateTask(ctx, "alice", &working, 1, []a2a.StreamResponse{
		{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: id, ContextID: ctxID, Status: working.Status}}})
	if err != nil {
		return err
	}
	done := working
	done.Status = a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: &now}
	done.Artifacts = []a2a.Artifact{art}
	evs := []a2a.StreamResponse{
		{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{TaskID: id, ContextID: ctxID, Artifact: art, LastChunk: true}},
		{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: id, ContextID: ctxID, Status: done.Status}},
	}
	if lr, ok := s.(taskmanager.LeaseReleasingUpdater); ok {
		_, err = lr.UpdateTaskReleasing(ctx, "alice", &done, rec.Version, evs, holder)
		return err
	}
	if _, err := s.UpdateTask(ctx, "alice", &done, rec.Version, evs); err != nil {
		return err
	}
	return s.ReleaseLease(ctx, id, holder)
}

// benchPublishCall makes the store writes of one blocking call of a
// published MCP tool, as the task manager makes them on a store that is a
// taskmanager.EventfulTaskCreator: one for a fast tool, two for a slow one.
func benchPublishCall(ctx context.Context, s taskmanager.Store, id string, slow bool) error {
	holder := "h-" + id
	now := time.Now()
	ctxID := taskmanager.NewID()
	msg := a2a.Message{MessageID: "m-" + id, Role: a2a.RoleUser, TaskID: id, ContextID: ctxID, Parts: []a2a.Part{a2a.TextPart("hello from the benchmark")}}
	art := a2a.Artifact{ArtifactID: "a-" + id, Name: "echo", Parts: []a2a.Part{a2a.TextPart("echo: hello from the benchmark")}}
	created := &a2a.Task{ID: id, ContextID: ctxID, Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: &now}, History: []a2a.Message{msg}}
	done := *created
	done.Status = a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: &now}
	done.Artifacts = []a2a.Artifact{art}
	finish := []a2a.StreamResponse{
		{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{TaskID: id, ContextID: ctxID, Artifact: art, LastChunk: true}},
		{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: id, ContextID: ctxID, Status: done.Status}},
	}
	if !slow {
		_, err := taskmanager.CreateTaskWithEvents(ctx, s, "alice", created, &done, finish, "", 15*time.Second)
		return err
	}
	working := *created
	working.Status = a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &now}
	rec, err := taskmanager.CreateTaskWithEvents(ctx, s, "alice", created, &working, []a2a.StreamResponse{
		{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: id, ContextID: ctxID, Status: working.Status}}}, holder, 15*time.Second)
	if err != nil {
		return err
	}
	lr := s.(taskmanager.LeaseReleasingUpdater)
	_, err = lr.UpdateTaskReleasing(ctx, "alice", &done, rec.Version, finish, holder)
	return err
}
