package taskmanager_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/examples/demoagent"
)

func TestRecoveryInterval(t *testing.T) {
	for _, tt := range []struct {
		ttl, want time.Duration
	}{
		{15 * time.Second, 3750 * time.Millisecond},
		{2 * time.Second, 500 * time.Millisecond},
		{time.Minute, 4 * time.Second},
		{100 * time.Millisecond, 100 * time.Millisecond},
	} {
		if got := taskmanager.RecoveryInterval(tt.ttl); got != tt.want {
			t.Errorf("RecoveryInterval(%s) = %s, want %s", tt.ttl, got, tt.want)
		}
	}
}

// orphanedTask stores a WORKING task with two events whose run lease,
// held by an executor that died at once, runs out ttl from now.
func orphanedTask(t *testing.T, st *store.Memory, id string, ttl time.Duration) {
	t.Helper()
	ctx := context.Background()
	now := time.Now()
	task := &a2a.Task{ID: id, ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: &now},
		History: []a2a.Message{{MessageID: "m-" + id, Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hello")}}}}
	if err := st.CreateTask(ctx, "alice", task); err != nil {
		t.Fatal(err)
	}
	if ok, err := st.AcquireLease(ctx, id, "dead-process/exec", ttl); err != nil || !ok {
		t.Fatalf("lease: %v %v", ok, err)
	}
	working := *task
	working.Status = a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &now}
	if _, err := st.UpdateTask(ctx, "alice", &working, 1, []a2a.StreamResponse{{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: id, ContextID: "c", Status: working.Status}}}); err != nil {
		t.Fatal(err)
	}
}

func stateOf(t *testing.T, st taskmanager.Store, id string) a2a.TaskState {
	t.Helper()
	rec, err := st.GetTask(context.Background(), "alice", id)
	if err != nil {
		t.Fatal(err)
	}
	return rec.Task.Status.State
}

// TestExecutorDied_TaskFailedWithinLeaseTTL: a task whose executor died is
// left alone while its lease runs, then FAILED by the maintenance loop
// within the lease TTL plus one recovery interval, its history intact and
// its watchers woken; a task whose lease had already run out when the
// process started is failed at start-up.
func TestExecutorDied_TaskFailedWithinLeaseTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const ttl = 15 * time.Second
		st := store.NewMemory()
		orphanedTask(t, st, "stale", time.Millisecond)
		time.Sleep(time.Millisecond)
		orphanedTask(t, st, "dying", ttl)
		changes, stop := st.Watch(context.Background(), "dying")
		defer stop()

		mt, err := taskmanager.NewMaintainer(taskmanager.MaintainerConfig{Store: st, LeaseTTL: ttl})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); mt.Run(ctx) }()

		synctest.Wait()
		if got := stateOf(t, st, "stale"); got != a2a.TaskStateFailed {
			t.Errorf("a task orphaned before start-up is %s at start-up, want FAILED", got)
		}
		time.Sleep(ttl - time.Millisecond)
		synctest.Wait()
		if got := stateOf(t, st, "dying"); got != a2a.TaskStateWorking {
			t.Fatalf("failed under a live lease: %s", got)
		}
		select {
		case <-changes:
			t.Fatal("watchers woken while the lease runs")
		default:
		}
		time.Sleep(taskmanager.RecoveryInterval(ttl) + time.Millisecond)
		synctest.Wait()
		if got := stateOf(t, st, "dying"); got != a2a.TaskStateFailed {
			t.Fatalf("state %s %s after the lease ran out, want FAILED", got, taskmanager.RecoveryInterval(ttl))
		}
		select {
		case <-changes:
		default:
			t.Error("watchers were not woken by the FAILED event")
		}
		rec, _ := st.GetTask(context.Background(), "alice", "dying")
		if len(rec.Task.History) != 2 || rec.Task.History[0].MessageID != "m-dying" || rec.Task.History[1].Parts[0].Text != taskmanager.OrphanMessage {
			t.Errorf("history after recovery: %+v", rec.Task.History)
		}
		evs, _ := st.Events(context.Background(), "alice", "dying", 0, 0)
		if len(evs) != 2 || evs[1].Event.StatusUpdate == nil || evs[1].Event.StatusUpdate.Status.State != a2a.TaskStateFailed {
			t.Errorf("event log after recovery: %+v", evs)
		}
		cancel()
		<-done
	})
}

// TestRecoveryLeavesLocalExecutionsAlone: a task this process runs is not
// failed when its lease renewal is late (Local says it is alive).
func TestRecoveryLeavesLocalExecutionsAlone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := store.NewMemory()
		orphanedTask(t, st, "late", time.Millisecond)
		orphanedTask(t, st, "dead", time.Millisecond)
		time.Sleep(time.Millisecond)
		mt, err := taskmanager.NewMaintainer(taskmanager.MaintainerConfig{Store: st, Local: func(id string) bool { return id == "late" }})
		if err != nil {
			t.Fatal(err)
		}
		n, err := mt.Recover(context.Background())
		if err != nil || n != 1 {
			t.Fatalf("Recover = %d, %v; want 1", n, err)
		}
		if got := stateOf(t, st, "late"); got != a2a.TaskStateWorking {
			t.Errorf("local task %s, want WORKING", got)
		}
		if got := stateOf(t, st, "dead"); got != a2a.TaskStateFailed {
			t.Errorf("orphan %s, want FAILED", got)
		}
	})
}

// TestRecoveryPagesThroughManyOrphans: one pass ends every orphan, not only
// the first page of them.
func TestRecoveryPagesThroughManyOrphans(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := store.NewMemory()
		for i := range 250 {
			orphanedTask(t, st, "t"+string(rune('a'+i/26))+string(rune('a'+i%26)), time.Millisecond)
		}
		time.Sleep(time.Millisecond)
		mt, err := taskmanager.NewMaintainer(taskmanager.MaintainerConfig{Store: st})
		if err != nil {
			t.Fatal(err)
		}
		if n, err := mt.Recover(context.Background()); err != nil || n != 250 {
			t.Fatalf("Recover = %d, %v; want 250", n, err)
		}
	})
}

// TestManagerStop_FailsRunningTaskAndRefusesNewMessages: Stop marks a task
// still running FAILED with the shutdown message (its history intact),
// cancels the executor, and refuses messages from then on.
func TestManagerStop_FailsRunningTaskAndRefusesNewMessages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := store.NewMemory()
		m, err := taskmanager.New(taskmanager.Config{Store: st, Executor: &demoagent.Agent{Tick: 10 * time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		msg := func(text string) *a2a.SendMessageRequest {
			return &a2a.SendMessageRequest{Message: &a2a.Message{MessageID: "m-" + text, Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(text)}},
				Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true}}
		}
		res, err := m.SendMessage(ctx, "alice", msg("/slow 600"))
		if err != nil || res.Task == nil {
			t.Fatalf("send: %v %+v", err, res)
		}
		id := res.Task.ID
		// The demo agent's first tick: the task is WORKING, its run not over.
		time.Sleep(10 * time.Millisecond)
		synctest.Wait()
		if got := stateOf(t, st, id); got != a2a.TaskStateWorking {
			t.Fatalf("after the first tick: %s, want WORKING", got)
		}
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := m.Stop(sctx, ""); err != nil {
			t.Fatalf("Stop: %v", err)
		}
		rec, _ := st.GetTask(ctx, "alice", id)
		if rec.Task.Status.State != a2a.TaskStateFailed || rec.Task.Status.Message == nil || rec.Task.Status.Message.Parts[0].Text != taskmanager.ShutdownMessage {
			t.Errorf("after Stop: %s %+v", rec.Task.Status.State, rec.Task.Status.Message)
		}
		if rec.Task.History[0].MessageID != "m-/slow 600" {
			t.Errorf("history lost its first message: %+v", rec.Task.History[0])
		}
		if m.Running(id) {
			t.Error("the execution still runs after Stop")
		}
		_, err = m.SendMessage(ctx, "alice", msg("hello"))
		if ae := a2a.AsError(err); ae == nil || ae.Reason != a2a.ErrUnavailable.Reason {
			t.Errorf("a message after Stop: %v, want UNAVAILABLE", err)
		}
	})
}
