package taskmanager_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
)

// writeLog is a store that records the writes the task manager makes.
type writeLog struct {
	*store.Memory
	mu     sync.Mutex
	writes []string
}

func (w *writeLog) log(op string) {
	w.mu.Lock()
	w.writes = append(w.writes, op)
	w.mu.Unlock()
}

func (w *writeLog) ops() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.writes)
}

func (w *writeLog) CreateTask(ctx context.Context, owner string, t *a2a.Task) error {
	w.log("CreateTask")
	return w.Memory.CreateTask(ctx, owner, t)
}

func (w *writeLog) CreateLeasedTask(ctx context.Context, owner string, t *a2a.Task, holder string, ttl time.Duration) error {
	w.log("CreateLeasedTask")
	return w.Memory.CreateLeasedTask(ctx, owner, t, holder, ttl)
}

func (w *writeLog) CreateTaskWithEvents(ctx context.Context, owner string, t *a2a.Task, evs []a2a.StreamResponse, holder string, ttl time.Duration) (*taskmanager.TaskRecord, error) {
	w.log("CreateTaskWithEvents")
	return w.Memory.CreateTaskWithEvents(ctx, owner, t, evs, holder, ttl)
}

func (w *writeLog) UpdateTask(ctx context.Context, owner string, t *a2a.Task, version int64, evs []a2a.StreamResponse) (*taskmanager.TaskRecord, error) {
	w.log("UpdateTask")
	return w.Memory.UpdateTask(ctx, owner, t, version, evs)
}

func (w *writeLog) UpdateTaskReleasing(ctx context.Context, owner string, t *a2a.Task, version int64, evs []a2a.StreamResponse, holder string) (*taskmanager.TaskRecord, error) {
	w.log("UpdateTaskReleasing")
	return w.Memory.UpdateTaskReleasing(ctx, owner, t, version, evs, holder)
}

func (w *writeLog) AcquireLease(ctx context.Context, id, holder string, ttl time.Duration) (bool, error) {
	w.log("AcquireLease")
	return w.Memory.AcquireLease(ctx, id, holder, ttl)
}

func (w *writeLog) RenewLease(ctx context.Context, id, holder string, ttl time.Duration) (bool, error) {
	w.log("RenewLease")
	return w.Memory.RenewLease(ctx, id, holder, ttl)
}

func (w *writeLog) ReleaseLease(ctx context.Context, id, holder string) error {
	w.log("ReleaseLease")
	return w.Memory.ReleaseLease(ctx, id, holder)
}

var (
	_ taskmanager.LeasedTaskCreator     = (*writeLog)(nil)
	_ taskmanager.LeaseReleasingUpdater = (*writeLog)(nil)
	_ taskmanager.EventfulTaskCreator   = (*writeLog)(nil)
)

// twoWrites is a writeLog without taskmanager.EventfulTaskCreator: a new
// task's first events are written after its creation, as a store without
// the capability has them.
type twoWrites struct {
	taskmanager.Store
	w *writeLog
}

func (s twoWrites) CreateLeasedTask(ctx context.Context, owner string, t *a2a.Task, holder string, ttl time.Duration) error {
	return s.w.CreateLeasedTask(ctx, owner, t, holder, ttl)
}

func (s twoWrites) UpdateTaskReleasing(ctx context.Context, owner string, t *a2a.Task, version int64, evs []a2a.StreamResponse, holder string) (*taskmanager.TaskRecord, error) {
	return s.w.UpdateTaskReleasing(ctx, owner, t, version, evs, holder)
}

// stores are the stores of the write-count tables: with the capability of
// creating a task with its first events, and without.
func stores() []struct {
	name  string
	log   *writeLog
	store taskmanager.Store
	one   bool
} {
	a, b := &writeLog{Memory: store.NewMemory()}, &writeLog{Memory: store.NewMemory()}
	return []struct {
		name  string
		log   *writeLog
		store taskmanager.Store
		one   bool
	}{
		{"creates with events", a, a, true},
		{"two writes", b, twoWrites{Store: b, w: b}, false},
	}
}

// funcExecutor runs fn for every message.
type funcExecutor func(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) error

func (f funcExecutor) Execute(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) error {
	return f(ctx, req, u)
}
func (funcExecutor) Cancel(context.Context, *taskmanager.Request, *taskmanager.Updater) error {
	return nil
}

func userMessage(id string) *a2a.SendMessageRequest {
	return &a2a.SendMessageRequest{Message: &a2a.Message{MessageID: id, Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hi")}}}
}

// TestBlockingCallSettledInOneAnswerIsOneWrite: a blocking call whose
// executor answers with a finished task (the front proxy relaying one
// upstream reply) costs the store one write: the task, created finished,
// with no run lease taken and given back around it.
func TestBlockingCallSettledInOneAnswerIsOneWrite(t *testing.T) {
	st := &writeLog{Memory: store.NewMemory()}
	mgr, err := taskmanager.New(taskmanager.Config{Store: st, Executor: funcExecutor(func(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) error {
		return u.Emit(ctx, a2a.StreamResponse{Task: &a2a.Task{Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}}})
	})})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := mgr.SendMessage(context.Background(), "alice", userMessage("m1"))
	if err != nil || resp.Task == nil || resp.Task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("SendMessage = %+v, %v", resp, err)
	}
	if got := st.ops(); !slices.Equal(got, []string{"CreateTask"}) {
		t.Fatalf("writes = %v, want [CreateTask]", got)
	}
	if _, err := st.GetTask(context.Background(), "alice", resp.Task.ID); err != nil {
		t.Fatalf("the answered task is not stored: %v", err)
	}
}

// TestNewRunningTaskIsCreatedWithItsLease: a new task that is still running
// is created together with its execution's run lease and its first event
// (one write; two on a store that cannot create with events), holds the
// lease while it runs, so it is never an orphan and no second execution can
// take it, and gives it back with the write that ends the task (one write).
func TestNewRunningTaskIsCreatedWithItsLease(t *testing.T) {
	for _, sc := range stores() {
		t.Run(sc.name, func(t *testing.T) {
			st := sc.log
			working, finish := make(chan string), make(chan struct{})
			mgr, err := taskmanager.New(taskmanager.Config{Store: sc.store, Executor: funcExecutor(func(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) error {
				if err := u.Working(ctx, "on it"); err != nil {
					return err
				}
				working <- req.TaskID
				<-finish
				return u.Complete(ctx, "")
			})})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			done := make(chan error, 1)
			go func() {
				_, err := mgr.SendMessage(ctx, "alice", userMessage("m1"))
				done <- err
			}()
			id := <-working
			running := []string{"CreateLeasedTask", "UpdateTask"}
			if sc.one {
				running = []string{"CreateTaskWithEvents"}
			}
			if got := st.ops(); !slices.Equal(got, running) {
				t.Errorf("writes while running = %v, want %v", got, running)
			}
			if ok, err := st.Memory.AcquireLease(ctx, id, "intruder", time.Minute); err != nil || ok {
				t.Errorf("another execution took the running task's lease: %v, %v", ok, err)
			}
			if refs, err := st.Orphans(ctx, "", 10); err != nil || len(refs) != 0 {
				t.Errorf("the running task is an orphan: %v, %v", refs, err)
			}
			close(finish)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if got, want := st.ops(), append(running, "UpdateTaskReleasing"); !slices.Equal(got, want) {
				t.Errorf("writes = %v, want %v", got, want)
			}
			if ok, err := st.Memory.AcquireLease(ctx, id, "next", time.Minute); err != nil || !ok {
				t.Errorf("the finished execution kept the lease: %v, %v", ok, err)
			}
			if evs, err := st.Events(ctx, "alice", id, 0, 0); err != nil || len(evs) != 2 || evs[0].Seq != 1 || evs[1].Seq != 2 {
				t.Errorf("events = %+v, %v; want WORKING at 1, COMPLETED at 2", evs, err)
			}
		})
	}
}

// TestNewTaskFinishedByItsFirstEventsIsOneWrite: a blocking call whose
// executor's first events end the task (an artifact and COMPLETED, or
// FAILED) costs one write, the task created finished with no run lease;
// subscribers and OnEvent see the same events as with two writes.
func TestNewTaskFinishedByItsFirstEventsIsOneWrite(t *testing.T) {
	finishes := []struct {
		name  string
		state a2a.TaskState
		emit  func(ctx context.Context, u *taskmanager.Updater) error
	}{
		{"artifact and completed", a2a.TaskStateCompleted, func(ctx context.Context, u *taskmanager.Updater) error {
			return u.EmitAll(ctx,
				a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{Artifact: a2a.Artifact{Name: "a", Parts: []a2a.Part{a2a.TextPart("42")}}, LastChunk: true}},
				a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}}})
		}},
		{"failed", a2a.TaskStateFailed, func(ctx context.Context, u *taskmanager.Updater) error { return u.Fail(ctx, "no") }},
	}
	for _, f := range finishes {
		for _, sc := range stores() {
			t.Run(f.name+"/"+sc.name, func(t *testing.T) {
				var published []string
				var mu sync.Mutex
				mgr, err := taskmanager.New(taskmanager.Config{Store: sc.store,
					OnEvent: func(_ context.Context, _ string, _ *a2a.Task, ev a2a.StreamResponse) {
						mu.Lock()
						defer mu.Unlock()
						if ev.ArtifactUpdate != nil {
							published = append(published, "artifact")
						} else {
							published = append(published, string(ev.StatusUpdate.Status.State))
						}
					},
					Executor: funcExecutor(func(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) error {
						return f.emit(ctx, u)
					})})
				if err != nil {
					t.Fatal(err)
				}
				ctx := context.Background()
				resp, err := mgr.SendMessage(ctx, "alice", userMessage("m1"))
				if err != nil || resp.Task == nil || resp.Task.Status.State != f.state {
					t.Fatalf("SendMessage = %+v, %v", resp, err)
				}
				want := []string{"CreateLeasedTask", "UpdateTaskReleasing"}
				if sc.one {
					want = []string{"CreateTaskWithEvents"}
				}
				if got := sc.log.ops(); !slices.Equal(got, want) {
					t.Errorf("writes = %v, want %v", got, want)
				}
				rec, err := sc.log.GetTask(ctx, "alice", resp.Task.ID)
				if err != nil || rec.Version != 2 || rec.Task.Status.State != f.state || len(rec.Task.History) == 0 {
					t.Fatalf("stored task = %+v, %v", rec, err)
				}
				evs, err := sc.log.Events(ctx, "alice", resp.Task.ID, 0, 0)
				if err != nil || int64(len(evs)) != rec.LastSeq || len(evs) != len(published) {
					t.Fatalf("events = %d (last seq %d), %v; published %v", len(evs), rec.LastSeq, err, published)
				}
				if ok, err := sc.log.Memory.AcquireLease(ctx, resp.Task.ID, "next", time.Minute); err != nil || !ok {
					t.Errorf("a lease is left on the finished task: %v, %v", ok, err)
				}
			})
		}
	}
}

// TestSlowFirstEventKeepsTheExecution: an executor whose first event comes
// after several lease renewals would have been due is not stopped as if
// it had lost a lease it has not taken yet; its lease is renewed once taken.
func TestSlowFirstEventKeepsTheExecution(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &writeLog{Memory: store.NewMemory()}
		const ttl = 3 * time.Second
		mgr, err := taskmanager.New(taskmanager.Config{Store: st, LeaseTTL: ttl, PollInterval: 100 * time.Millisecond,
			Executor: funcExecutor(func(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) error {
				select {
				case <-time.After(4 * ttl):
				case <-ctx.Done():
					return ctx.Err()
				}
				if err := u.Working(ctx, "started late"); err != nil {
					return err
				}
				select {
				case <-time.After(2 * ttl):
				case <-ctx.Done():
					return ctx.Err()
				}
				return u.Complete(ctx, "done")
			})})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := mgr.SendMessage(context.Background(), "alice", userMessage("m1"))
		if err != nil {
			t.Fatal(err)
		}
		if st := resp.Task.Status.State; st != a2a.TaskStateCompleted {
			t.Fatalf("state = %s, want COMPLETED (the execution was stopped)", st)
		}
		renewals := 0
		for _, op := range st.ops() {
			if op == "RenewLease" {
				renewals++
			}
		}
		if renewals == 0 {
			t.Error("the lease taken with the task was never renewed in two TTLs")
		}
		mgr.Wait()
	})
}

// TestEmitAllIsOneWrite: events emitted together are one store write, and
// a subscriber reads each of them, in order.
func TestEmitAllIsOneWrite(t *testing.T) {
	for _, sc := range stores() {
		t.Run(sc.name, func(t *testing.T) { testEmitAllIsOneWrite(t, sc.log, sc.store, sc.one) })
	}
}

func testEmitAllIsOneWrite(t *testing.T, st *writeLog, s taskmanager.Store, one bool) {
	mgr, err := taskmanager.New(taskmanager.Config{Store: s, Executor: funcExecutor(func(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) error {
		if err := u.Working(ctx, "on it"); err != nil {
			return err
		}
		return u.EmitAll(ctx,
			a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{Artifact: a2a.Artifact{Name: "a", Parts: []a2a.Part{a2a.TextPart(taskmanager.LeaseLostMessage)}}, LastChunk: true}},
			a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}}})
	})})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = mgr.SendStreamingMessage(context.Background(), "alice", userMessage("m1"), func(ev *a2a.StreamResponse) error {
		switch {
		case ev.Task != nil:
			got = append(got, "task")
		case ev.StatusUpdate != nil:
			got = append(got, string(ev.StatusUpdate.Status.State))
		case ev.ArtifactUpdate != nil:
			if ev.ArtifactUpdate.Artifact.ArtifactID == "" {
				t.Error("an artifact emitted without an id was stored without one")
			}
			got = append(got, "artifact")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"task", string(a2a.TaskStateWorking), "artifact", string(a2a.TaskStateCompleted)}
	if !slices.Equal(got, want) {
		t.Errorf("stream = %v, want %v", got, want)
	}
	writes := []string{"CreateLeasedTask", "UpdateTask", "UpdateTaskReleasing"}
	if one {
		writes = []string{"CreateTaskWithEvents", "UpdateTaskReleasing"}
	}
	if ops := st.ops(); !slices.Equal(ops, writes) {
		t.Errorf("writes = %v, want %v: the artifact and the end in one", ops, writes)
	}
}

// TestEmitAllStoresTheEndBeforeAnEventAfterIt: an event after the one that
// ends the task is refused (ErrTaskClosed, naming it), as it would be
// emitted alone after it, and the events before it are stored all the
// same, in one write that gives the run lease back.
func TestEmitAllStoresTheEndBeforeAnEventAfterIt(t *testing.T) {
	st := &writeLog{Memory: store.NewMemory()}
	var emitErr, failErr error
	mgr, err := taskmanager.New(taskmanager.Config{Store: st, Executor: funcExecutor(func(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) error {
		if err := u.Working(ctx, "on it"); err != nil {
			return err
		}
		emitErr = u.EmitAll(ctx,
			a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}}},
			a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{Artifact: a2a.Artifact{Name: "late", Parts: []a2a.Part{a2a.TextPart(taskmanager.LeaseLostMessage)}}}})
		failErr = u.Fail(ctx, "done")
		return nil
	})})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := mgr.SendMessage(context.Background(), "alice", userMessage("m1"))
	if err != nil {
		t.Fatal(err)
	}
	var ee *taskmanager.EventError
	if !errors.As(emitErr, &ee) || ee.Index != 1 || !errors.Is(emitErr, taskmanager.ErrTaskClosed) {
		t.Errorf("EmitAll with an event after the end = %v, want ErrTaskClosed for event 1", emitErr)
	}
	if !errors.Is(failErr, taskmanager.ErrTaskClosed) {
		t.Errorf("Fail after the end = %v, want ErrTaskClosed", failErr)
	}
	if resp.Task.Status.State != a2a.TaskStateCompleted || len(resp.Task.Artifacts) != 0 {
		t.Errorf("task = %s with %d artifacts, want COMPLETED with none: the end before the refused event is stored, nothing after it", resp.Task.Status.State, len(resp.Task.Artifacts))
	}
	if got, want := st.ops(), []string{"CreateTaskWithEvents", "UpdateTaskReleasing"}; !slices.Equal(got, want) {
		t.Errorf("writes = %v, want %v", got, want)
	}
}

// plainStore is a store with none of the optional write interfaces.
type plainStore struct{ taskmanager.Store }

// TestStoreWithoutTheWriteInterfacesTakesAndGivesBackTheLease: a store
// that cannot create a task with its lease, nor release it with the final
// write, gets the lease taken before the task is created and given back
// after the run, as separate writes, with the same guarantees.
func TestStoreWithoutTheWriteInterfacesTakesAndGivesBackTheLease(t *testing.T) {
	log := &writeLog{Memory: store.NewMemory()}
	st := plainStore{log}
	working, finish := make(chan string), make(chan struct{})
	mgr, err := taskmanager.New(taskmanager.Config{Store: st, Executor: funcExecutor(func(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) error {
		if err := u.Working(ctx, "on it"); err != nil {
			return err
		}
		working <- req.TaskID
		<-finish
		return u.Complete(ctx, "")
	})})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	done := make(chan error, 1)
	go func() {
		_, err := mgr.SendMessage(ctx, "alice", userMessage("m1"))
		done <- err
	}()
	id := <-working
	if ok, err := log.Memory.AcquireLease(ctx, id, "intruder", time.Minute); err != nil || ok {
		t.Errorf("another execution took the running task's lease: %v, %v", ok, err)
	}
	close(finish)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := []string{"AcquireLease", "CreateTask", "UpdateTask", "UpdateTask", "ReleaseLease"}
	if got := log.ops(); !slices.Equal(got, want) {
		t.Errorf("writes = %v, want %v", got, want)
	}
	// Created by someone else meanwhile: the lease taken for it is given back.
	if err := taskmanager.CreateLeasedTask(ctx, st, "alice", &a2a.Task{ID: id, Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}, "late", time.Minute); !errors.Is(err, taskmanager.ErrExists) {
		t.Fatalf("CreateLeasedTask of an existing task = %v, want ErrExists", err)
	}
	if ok, err := log.Memory.AcquireLease(ctx, id, "next", time.Minute); err != nil || !ok {
		t.Errorf("the refused creation kept its lease: %v, %v", ok, err)
	}
}

// TestExecutorFailingBeforeAnyEventWritesNothing: an execution that fails
// before creating its task leaves nothing behind, lease included.
func TestExecutorFailingBeforeAnyEventWritesNothing(t *testing.T) {
	st := &writeLog{Memory: store.NewMemory()}
	mgr, err := taskmanager.New(taskmanager.Config{Store: st, Executor: funcExecutor(func(context.Context, *taskmanager.Request, *taskmanager.Updater) error {
		return a2a.ErrInvalidParams.With("no such skill")
	})})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mgr.SendMessage(context.Background(), "alice", userMessage("m1")); !errors.Is(err, a2a.ErrInvalidParams) {
		t.Fatalf("SendMessage = %v, want the executor's error", err)
	}
	if got := st.ops(); len(got) != 0 {
		t.Fatalf("writes = %v, want none", got)
	}
}

// slowRenewals is a store whose lease renewals take a while to reach it, as
// a loaded database's do: each one is checked against the lease's expiry
// only after delay.
type slowRenewals struct {
	*writeLog
	delay time.Duration
}

func (s *slowRenewals) RenewLease(ctx context.Context, id, holder string, ttl time.Duration) (bool, error) {
	time.Sleep(s.delay)
	return s.writeLog.RenewLease(ctx, id, holder, ttl)
}

// TestSlowLeaseRenewalsKeepTheExecution: renewals that take half the lease
// TTL to reach the store (a loaded database, a stalled process) still keep a
// long execution's lease: the manager renews every third of the TTL counted
// from when the lease was taken or its last renewal sent, so the execution is
// neither stopped nor ended CANCELED.
func TestSlowLeaseRenewalsKeepTheExecution(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const ttl = 3 * time.Second
		st := &slowRenewals{writeLog: &writeLog{Memory: store.NewMemory()}, delay: ttl / 2}
		mgr, err := taskmanager.New(taskmanager.Config{Store: st, LeaseTTL: ttl,
			Executor: funcExecutor(func(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) error {
				if err := u.Working(ctx, "on it"); err != nil {
					return err
				}
				select {
				case <-time.After(10 * ttl):
				case <-ctx.Done():
					return ctx.Err()
				}
				return u.Complete(ctx, "done")
			})})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := mgr.SendMessage(context.Background(), "alice", userMessage("m1"))
		if err != nil {
			t.Fatal(err)
		}
		if st := resp.Task.Status.State; st != a2a.TaskStateCompleted {
			t.Fatalf("state = %s (%+v), want COMPLETED: the execution lost its lease", st, resp.Task.Status.Message)
		}
		mgr.Wait()
		time.Sleep(st.delay) // a renewal under way when the run ended returns
	})
}

// lapsingLease is a store whose lease renewals come too late: each reaches
// it only after the lease ran out. With steal set, another holder (a next
// message, recovery) has taken the lease by then.
type lapsingLease struct {
	*writeLog
	ttl   time.Duration
	steal bool
}

func (s *lapsingLease) RenewLease(ctx context.Context, id, holder string, ttl time.Duration) (bool, error) {
	time.Sleep(2 * s.ttl)
	if s.steal {
		if ok, err := s.writeLog.Memory.AcquireLease(ctx, id, "another", time.Hour); err != nil || !ok {
			return false, errors.New("the expired lease could not be taken over")
		}
	}
	return s.writeLog.RenewLease(ctx, id, holder, ttl)
}

// longRun works until its context ends.
func longRun(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) error {
	if err := u.Working(ctx, "on it"); err != nil {
		return err
	}
	<-ctx.Done()
	return ctx.Err()
}

// TestLeaseRunOutEndsTheTaskFailedNotCanceled: an execution whose run lease
// ran out (renewals too late) is stopped, and its task ends FAILED saying
// so, under the lease taken back: nobody cancelled it, so it is not
// CANCELED.
func TestLeaseRunOutEndsTheTaskFailedNotCanceled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const ttl = 3 * time.Second
		st := &lapsingLease{writeLog: &writeLog{Memory: store.NewMemory()}, ttl: ttl}
		mgr, err := taskmanager.New(taskmanager.Config{Store: st, LeaseTTL: ttl, Executor: funcExecutor(longRun)})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := mgr.SendMessage(context.Background(), "alice", userMessage("m1"))
		if err != nil {
			t.Fatal(err)
		}
		mgr.Wait()
		rec, err := st.GetTask(context.Background(), "alice", resp.Task.ID)
		if err != nil {
			t.Fatal(err)
		}
		if s := rec.Task.Status; s.State != a2a.TaskStateFailed || s.Message == nil || s.Message.Parts[0].Text != taskmanager.LeaseLostMessage {
			t.Fatalf("task after its lease ran out: %s %+v, want FAILED %q", s.State, s.Message, taskmanager.LeaseLostMessage)
		}
		if ok, err := st.Memory.AcquireLease(context.Background(), resp.Task.ID, "next", time.Minute); err != nil || !ok {
			t.Errorf("the lease taken back was kept: %v, %v", ok, err)
		}
	})
}

// TestLeaseTakenOverIsLeftToItsNewHolder: when another holder has taken
// over a lease that ran out (a next message, recovery), the stopped
// execution writes nothing more: the task is the new holder's.
func TestLeaseTakenOverIsLeftToItsNewHolder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const ttl = 3 * time.Second
		st := &lapsingLease{writeLog: &writeLog{Memory: store.NewMemory()}, ttl: ttl, steal: true}
		mgr, err := taskmanager.New(taskmanager.Config{Store: st, LeaseTTL: ttl, Executor: funcExecutor(longRun)})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := mgr.SendMessage(context.Background(), "alice", userMessage("m1"))
		if err != nil {
			t.Fatal(err)
		}
		mgr.Wait()
		rec, err := st.GetTask(context.Background(), "alice", resp.Task.ID)
		if err != nil {
			t.Fatal(err)
		}
		if s := rec.Task.Status.State; s != a2a.TaskStateWorking {
			t.Fatalf("task after its lease was taken over: %s %+v, want it left WORKING to the new holder", s, rec.Task.Status.Message)
		}
	})
}
