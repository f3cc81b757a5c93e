package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/client"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/store/storetest"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/examples/demoagent"
	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
)

// gatedAgent is an executor the test steers. A new task emits WORKING
// "started", then waits for the gate before each of its steps, then ends
// COMPLETED (or INPUT_REQUIRED when askInput). A follow-up message emits
// "resumed" and completes. Executions are counted across replicas.
type gatedAgent struct {
	steps        int
	askInput     bool
	ignoreCancel bool
	gate         chan struct{}
	shared       *execLog
}

// execLog records what executions did, on every replica.
type execLog struct {
	mu        sync.Mutex
	entries   []string
	running   atomic.Int32
	overlap   atomic.Bool
	cancelled chan string
	lateErrs  chan error
}

func newExecLog() *execLog {
	return &execLog{cancelled: make(chan string, 4), lateErrs: make(chan error, 16)}
}

func (l *execLog) add(s string) {
	l.mu.Lock()
	l.entries = append(l.entries, s)
	l.mu.Unlock()
}

func (l *execLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.entries...)
}

func (g *gatedAgent) Execute(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) error {
	if g.shared.running.Add(1) > 1 {
		g.shared.overlap.Store(true)
	}
	defer g.shared.running.Add(-1)
	first := req.Task == nil
	g.shared.add(fmt.Sprintf("start %s first=%v", req.Message.MessageID, first))
	defer g.shared.add("end " + req.Message.MessageID)
	if !first {
		if err := u.Working(ctx, "resumed"); err != nil {
			return err
		}
		return u.Complete(ctx, "done after input")
	}
	if err := u.Working(ctx, "started"); err != nil {
		return err
	}
	for i := 1; i <= g.steps; i++ {
		select {
		case <-g.gate:
		case <-ctx.Done():
			if !g.ignoreCancel {
				return ctx.Err()
			}
			<-g.gate
		}
		if err := u.Working(ctx, fmt.Sprintf("step %d", i)); err != nil {
			g.shared.lateErrs <- err
			return err
		}
	}
	if g.askInput {
		return u.InputRequired(ctx, "more?")
	}
	return u.Complete(ctx, "done")
}

func (g *gatedAgent) Cancel(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) error {
	g.shared.cancelled <- req.TaskID
	if g.ignoreCancel {
		return nil
	}
	return u.Status(ctx, a2a.TaskStateCanceled, u.NewAgentMessage(a2a.TextPart("stopped by the executor")))
}

// replica is one bridge: its own pool on the shared database, its own
// manager, its own HTTP server.
type replica struct {
	store  taskmanager.Store
	mgr    *taskmanager.Manager
	client *client.Client
}

func newReplica(t *testing.T, st taskmanager.Store, exec taskmanager.Executor, cfg taskmanager.Config) *replica {
	t.Helper()
	cfg.Store, cfg.Executor = st, exec
	mgr, err := taskmanager.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	card := demoagent.Card("http://" + srv.Listener.Addr().String())
	s, err := server.New(server.Config{
		Manager: mgr, Card: card,
		Owner: func(context.Context) (string, error) { return "alice", nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = s
	srv.Start()
	client, err := client.New(card, client.WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		mgr.Wait()
	})
	return &replica{store: st, mgr: mgr, client: client}
}

func userMessage(id, taskID, text string) *a2a.Message {
	return &a2a.Message{MessageID: id, TaskID: taskID, Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(text)}}
}

// startTask sends a first message through r and returns the task id once
// the executor reported "started".
func startTask(t *testing.T, r *replica, msgID string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := r.client.SendMessage(ctx, &a2a.SendMessageRequest{
		Message:       userMessage(msgID, "", "go"),
		Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Task == nil {
		t.Fatalf("SendMessage returned no task: %+v", resp)
	}
	return resp.Task.ID
}

// collect reads a stream to its end and returns the events after the
// leading task snapshot, as JSON.
func collect(t *testing.T, s *client.Stream) ([]string, error) {
	defer s.Close()
	var out []string
	first := true
	for {
		ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if first {
			first = false
			if ev.Task == nil {
				return out, fmt.Errorf("stream starts with %s, want the task", ev.Kind())
			}
			continue
		}
		b, _ := json.Marshal(ev)
		out = append(out, string(b))
	}
}

func stateOf(evJSON string) a2a.TaskState {
	var ev a2a.StreamResponse
	_ = json.Unmarshal([]byte(evJSON), &ev)
	if ev.StatusUpdate != nil {
		return ev.StatusUpdate.Status.State
	}
	return ""
}

// twoReplicas opens two stores (two pools, two listeners) on one fresh
// schema: two replicas without sticky sessions.
func twoReplicas(t *testing.T) (taskmanager.Store, taskmanager.Store) {
	u := storetest.PostgresSchema(t)
	return openPostgres(t, u), openPostgres(t, u)
}

// TestReplicaSubscribeOnOtherReplicaSeesSameEvents: a subscriber on B to a
// task running on A gets the events a subscriber on A gets, in the same
// order, up to the terminal state. Polling is set to a minute, so only the
// cross-replica wake-ups (LISTEN/NOTIFY) can carry the events in time.
func TestReplicaSubscribeOnOtherReplicaSeesSameEvents(t *testing.T) {
	sa, sb := twoReplicas(t)
	log := newExecLog()
	agent := &gatedAgent{steps: 3, gate: make(chan struct{}), shared: log}
	cfg := taskmanager.Config{PollInterval: time.Minute, LeaseTTL: 5 * time.Second}
	a := newReplica(t, sa, agent, cfg)
	b := newReplica(t, sb, agent, cfg)

	id := startTask(t, a, "m1")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	streamA, err := a.client.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	streamB, err := b.client.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	var gotA, gotB []string
	var errA, errB error
	var wg sync.WaitGroup
	wg.Go(func() { gotA, errA = collect(t, streamA) })
	wg.Go(func() { gotB, errB = collect(t, streamB) })
	for range agent.steps {
		agent.gate <- struct{}{}
	}
	wg.Wait()
	if errA != nil || errB != nil {
		t.Fatalf("streams: A %v, B %v", errA, errB)
	}
	if len(gotA) != agent.steps+1 {
		t.Fatalf("A saw %d events, want %d:\n%s", len(gotA), agent.steps+1, strings.Join(gotA, "\n"))
	}
	if strings.Join(gotA, "\n") != strings.Join(gotB, "\n") {
		t.Errorf("replicas disagree:\nA:\n%s\nB:\n%s", strings.Join(gotA, "\n"), strings.Join(gotB, "\n"))
	}
	if st := stateOf(gotB[len(gotB)-1]); st != a2a.TaskStateCompleted {
		t.Errorf("B's stream ends at %s, want COMPLETED", st)
	}
	// What the streams carried is what the log holds.
	evs, err := sb.Events(ctx, "alice", id, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range evs {
		b, _ := json.Marshal(e.Event)
		if i >= len(gotB) || string(b) != gotB[i] {
			t.Errorf("log event %d (seq %d) differs from what B streamed", i, e.Seq)
		}
	}
}

// TestReplicaCancelOnOtherReplicaReachesExecutor: CancelTask on B calls
// the executor's Cancel on A, which ends the task itself.
func TestReplicaCancelOnOtherReplicaReachesExecutor(t *testing.T) {
	sa, sb := twoReplicas(t)
	log := newExecLog()
	agent := &gatedAgent{steps: 3, gate: make(chan struct{}), shared: log}
	// A minute of polling and of grace: only the wake-up can deliver the
	// cancel in time, and only the executor can end the task.
	cfg := taskmanager.Config{PollInterval: time.Minute, CancelGrace: time.Minute, LeaseTTL: 5 * time.Second}
	a := newReplica(t, sa, agent, cfg)
	b := newReplica(t, sb, agent, cfg)
	id := startTask(t, a, "m1")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	task, err := b.client.CancelTask(ctx, &a2a.CancelTaskRequest{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-log.cancelled:
		if got != id {
			t.Errorf("executor cancelled %s, want %s", got, id)
		}
	default:
		t.Fatal("CancelTask returned but the executor's Cancel was never called")
	}
	if task.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("task after cancel: %s, want CANCELED", task.Status.State)
	}
	if m := task.Status.Message; m == nil || len(m.Parts) == 0 || m.Parts[0].Text != "stopped by the executor" {
		t.Errorf("CANCELED was not written by the executor on A: status message %+v", m)
	}
}

// TestReplicaCancelIgnoredIsForcedAfterGrace: an executor on A that ignores
// the cancel is overruled after the grace; its later events are refused.
func TestReplicaCancelIgnoredIsForcedAfterGrace(t *testing.T) {
	sa, sb := twoReplicas(t)
	log := newExecLog()
	agent := &gatedAgent{steps: 1, ignoreCancel: true, gate: make(chan struct{}), shared: log}
	cfg := taskmanager.Config{PollInterval: 50 * time.Millisecond, CancelGrace: 300 * time.Millisecond, LeaseTTL: 5 * time.Second}
	a := newReplica(t, sa, agent, cfg)
	b := newReplica(t, sb, agent, cfg)
	id := startTask(t, a, "m1")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	task, err := b.client.CancelTask(ctx, &a2a.CancelTaskRequest{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	if task.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("task after cancel: %s, want CANCELED", task.Status.State)
	}
	if m := task.Status.Message; m == nil || len(m.Parts) == 0 || !strings.Contains(m.Parts[0].Text, "did not stop") {
		t.Errorf("status message %+v, want the forced-cancel text", m)
	}
	before, err := sb.GetTask(ctx, "alice", id)
	if err != nil {
		t.Fatal(err)
	}
	agent.gate <- struct{}{} // the stubborn executor emits its next step
	select {
	case err := <-log.lateErrs:
		if !errors.Is(err, taskmanager.ErrTaskClosed) {
			t.Errorf("late event: err = %v, want ErrTaskClosed", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the executor's late event was neither refused nor reported")
	}
	after, err := sa.GetTask(ctx, "alice", id)
	if err != nil {
		t.Fatal(err)
	}
	if after.LastSeq != before.LastSeq || after.Task.Status.State != a2a.TaskStateCanceled {
		t.Errorf("a late event landed: seq %d → %d, state %s", before.LastSeq, after.LastSeq, after.Task.Status.State)
	}
}

// TestReplicaSecondMessageWaitsForLease: a follow-up sent to B while the
// task runs on A waits for A's run lease: refused with a clear error after
// LeaseWait, or run once A is done; never two executions at once.
func TestReplicaSecondMessageWaitsForLease(t *testing.T) {
	sa, sb := twoReplicas(t)
	log := newExecLog()
	agent := &gatedAgent{steps: 1, askInput: true, gate: make(chan struct{}), shared: log}
	a := newReplica(t, sa, agent, taskmanager.Config{PollInterval: 50 * time.Millisecond, LeaseTTL: 5 * time.Second})
	impatient := newReplica(t, sb, agent, taskmanager.Config{PollInterval: 50 * time.Millisecond, LeaseWait: 200 * time.Millisecond})
	patient := newReplica(t, sb, agent, taskmanager.Config{PollInterval: time.Minute, LeaseWait: 30 * time.Second})
	id := startTask(t, a, "m1")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	_, err := impatient.client.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMessage("m2", id, "more")})
	if err == nil || !strings.Contains(err.Error(), "still processing a previous message") {
		t.Fatalf("follow-up while busy: err = %v, want the lease-wait refusal", err)
	}

	type result struct {
		resp *a2a.SendMessageResponse
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := patient.client.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMessage("m3", id, "more")})
		done <- result{resp, err}
	}()
	// Let the follow-up reach B and wait; then A's run may end.
	bridgetest.Eventually(t, 20*time.Second, "the task WORKING", func() error {
		rec, err := sa.GetTask(ctx, "alice", id)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Task.Status.State != a2a.TaskStateWorking {
			return fmt.Errorf("task %s", rec.Task.Status.State)
		}
		return nil
	})
	agent.gate <- struct{}{}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.resp.Task == nil || r.resp.Task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("follow-up result: %+v, want the task COMPLETED", r.resp)
	}
	if log.overlap.Load() {
		t.Error("two executions of one task ran at once")
	}
	want := []string{"start m1 first=true", "end m1", "start m3 first=false", "end m3"}
	if got := log.list(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("executions: %v, want %v (m2 must never run)", got, want)
	}
}

// dyingStore is a replica's store that stops answering writes, as when the
// replica's process is gone: its lease is neither renewed nor released.
type dyingStore struct {
	taskmanager.Store
	dead atomic.Bool
}

var errGone = errors.New("replica is gone")

func (d *dyingStore) UpdateTask(ctx context.Context, owner string, t *a2a.Task, v int64, evs []a2a.StreamResponse) (*taskmanager.TaskRecord, error) {
	if d.dead.Load() {
		return nil, errGone
	}
	return d.Store.UpdateTask(ctx, owner, t, v, evs)
}

func (d *dyingStore) RenewLease(ctx context.Context, id, holder string, ttl time.Duration) (bool, error) {
	if d.dead.Load() {
		return false, errGone
	}
	return d.Store.RenewLease(ctx, id, holder, ttl)
}

func (d *dyingStore) ReleaseLease(ctx context.Context, id, holder string) error {
	if d.dead.Load() {
		return errGone
	}
	return d.Store.ReleaseLease(ctx, id, holder)
}

// TestReplicaDeathFailsTaskAfterLeaseExpiry: a task whose replica died is
// ended FAILED by Recover on another replica once the lease expired; the
// events stored before are intact.
func TestReplicaDeathFailsTaskAfterLeaseExpiry(t *testing.T) {
	sa, sb := twoReplicas(t)
	log := newExecLog()
	agent := &gatedAgent{steps: 2, gate: make(chan struct{}), shared: log}
	dying := &dyingStore{Store: sa}
	a := newReplica(t, dying, agent, taskmanager.Config{PollInterval: 50 * time.Millisecond, LeaseTTL: time.Second})
	b := newReplica(t, sb, agent, taskmanager.Config{PollInterval: 50 * time.Millisecond, LeaseTTL: time.Second})
	id := startTask(t, a, "m1")
	agent.gate <- struct{}{} // step 1 is stored
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var before *taskmanager.TaskRecord
	bridgetest.Eventually(t, 20*time.Second, "step 1 stored", func() error {
		var err error
		if before, err = sb.GetTask(ctx, "alice", id); err != nil {
			t.Fatal(err)
		}
		if before.LastSeq != 2 {
			return fmt.Errorf("last seq %d, want 2", before.LastSeq)
		}
		return nil
	})
	// While A lives and renews its lease, nothing is an orphan.
	if n, err := b.mgr.Recover(ctx); err != nil || n != 0 {
		t.Fatalf("Recover while A is alive: %d, %v; want 0", n, err)
	}

	dying.dead.Store(true)
	var n int
	bridgetest.Eventually(t, 20*time.Second, "the dead replica's task recovered", func() error {
		var err error
		if n, err = b.mgr.Recover(ctx); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return errors.New("no task recovered yet")
		}
		return nil
	})
	if n != 1 {
		t.Errorf("Recover ended %d tasks, want 1", n)
	}
	rec, err := sb.GetTask(ctx, "alice", id)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Task.Status.State != a2a.TaskStateFailed {
		t.Fatalf("state %s, want FAILED", rec.Task.Status.State)
	}
	if m := rec.Task.Status.Message; m == nil || len(m.Parts) == 0 || m.Parts[0].Text != taskmanager.OrphanMessage {
		t.Errorf("status message %+v, want %q", m, taskmanager.OrphanMessage)
	}
	evs, err := sb.Events(ctx, "alice", id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, e := range evs {
		texts = append(texts, eventTextOf(e.Event))
	}
	want := []string{"started", "step 1", taskmanager.OrphanMessage}
	if strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Errorf("log after recovery: %q, want %q", texts, want)
	}
	if n, err := b.mgr.Recover(ctx); err != nil || n != 0 {
		t.Errorf("second Recover: %d, %v; want 0", n, err)
	}
	agent.gate <- struct{}{} // let A's executor goroutine finish
}

func eventTextOf(e a2a.StreamResponse) string {
	if e.StatusUpdate == nil || e.StatusUpdate.Status.Message == nil || len(e.StatusUpdate.Status.Message.Parts) == 0 {
		return ""
	}
	return e.StatusUpdate.Status.Message.Parts[0].Text
}

// TestRecoverLeavesLiveAndWaitingTasksAlone runs Recover over a memory
// store: a task running here, one waiting for input and a finished one stay.
func TestRecoverLeavesLiveAndWaitingTasksAlone(t *testing.T) {
	st := store.NewMemory()
	log := newExecLog()
	agent := &gatedAgent{steps: 1, gate: make(chan struct{}), shared: log}
	r := newReplica(t, st, agent, taskmanager.Config{PollInterval: 50 * time.Millisecond})
	id := startTask(t, r, "m1")
	ctx := context.Background()
	waiting := &a2a.Task{ID: "waiting", ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateInputRequired}}
	if err := st.CreateTask(ctx, "alice", waiting); err != nil {
		t.Fatal(err)
	}
	orphan := &a2a.Task{ID: "orphan", ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}
	if err := st.CreateTask(ctx, "bob", orphan); err != nil {
		t.Fatal(err)
	}
	n, err := r.mgr.Recover(ctx)
	if err != nil || n != 1 {
		t.Fatalf("Recover: %d, %v; want 1 (the orphan only)", n, err)
	}
	for owner, want := range map[string]a2a.TaskState{"alice/" + id: a2a.TaskStateWorking, "alice/waiting": a2a.TaskStateInputRequired, "bob/orphan": a2a.TaskStateFailed} {
		o, tid, _ := strings.Cut(owner, "/")
		rec, err := st.GetTask(ctx, o, tid)
		if err != nil || rec.Task.Status.State != want {
			t.Errorf("%s: %v, %v; want %s", owner, rec.Task.Status.State, err, want)
		}
	}
	agent.gate <- struct{}{}
}
