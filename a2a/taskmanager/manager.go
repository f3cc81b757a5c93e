package taskmanager

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// Config configures a task manager. Zero values take the defaults.
type Config struct {
	// Store keeps tasks, events, leases and push configs. Required.
	Store Store
	// Executor is the agent's backend. Required.
	Executor Executor
	// Holder identifies this process in run leases (default: a random id).
	Holder string
	// LeaseTTL is how long a run lease lasts without renewal (default 15s).
	LeaseTTL time.Duration
	// LeaseWait bounds how long a message for a busy task waits for the
	// task's run lease before it is refused (default 10s).
	LeaseWait time.Duration
	// CancelGrace is how long a cancelled executor may take to stop before
	// the task is marked CANCELED without it (default 5s).
	CancelGrace time.Duration
	// PollInterval is the fallback re-read interval of followers, in case a
	// store wake-up is missed (default 1s).
	PollInterval time.Duration
	// OnEvent, if set, is called after every persisted event (push delivery).
	OnEvent func(ctx context.Context, owner string, task *a2a.Task, ev a2a.StreamResponse)
	// Logger receives the manager's logs (default slog.Default()).
	Logger *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Manager enforces the task lifecycle over a store and runs the executor.
type Manager struct {
	store  Store
	exec   Executor
	holder string
	// execPrefix and execSeq name executions in run leases: this
	// instance's holder and a nonce of its own (a restarted replica with
	// the same holder must not take over a lease its predecessor left), then
	// a counter.
	execPrefix   string
	execSeq      atomic.Uint64
	leaseTTL     time.Duration
	leaseWait    time.Duration
	cancelGrace  time.Duration
	pollInterval time.Duration
	onEvent      func(ctx context.Context, owner string, task *a2a.Task, ev a2a.StreamResponse)
	log          *slog.Logger
	clock        func() time.Time
	// epoch is when the manager was made: leases are timed from it on
	// the monotonic clock (see monotonic).
	epoch time.Time

	mu       sync.Mutex
	running  map[string]*execution
	stopping bool // Stop has begun: new messages are refused
	wg       sync.WaitGroup
}

// New returns a task manager.
func New(cfg Config) (*Manager, error) {
	if cfg.Store == nil || cfg.Executor == nil {
		return nil, errors.New("taskmanager: manager needs a store and an executor")
	}
	m := &Manager{
		store: cfg.Store, exec: cfg.Executor, holder: cfg.Holder,
		leaseTTL: cfg.LeaseTTL, leaseWait: cfg.LeaseWait, cancelGrace: cfg.CancelGrace,
		pollInterval: cfg.PollInterval, onEvent: cfg.OnEvent, log: cfg.Logger, clock: cfg.Now,
		running: map[string]*execution{}, epoch: time.Now(),
	}
	if m.holder == "" {
		m.holder = uuid.NewString()
	}
	m.execPrefix = m.holder + "/" + uuid.NewString() + "/"
	if m.leaseTTL <= 0 {
		m.leaseTTL = 15 * time.Second
	}
	if m.leaseWait <= 0 {
		m.leaseWait = 10 * time.Second
	}
	if m.cancelGrace <= 0 {
		m.cancelGrace = 5 * time.Second
	}
	if m.pollInterval <= 0 {
		m.pollInterval = time.Second
	}
	if m.log == nil {
		m.log = slog.Default()
	}
	if m.clock == nil {
		m.clock = time.Now
	}
	return m, nil
}

func (m *Manager) now() time.Time { return m.clock().UTC().Truncate(time.Microsecond) }

// monotonic is t as nanoseconds since m.epoch, and at turns it back into a
// time: both on the monotonic clock, so that a step of the wall clock
// neither delays nor hastens a lease renewal.
func (m *Manager) monotonic(t time.Time) int64 { return int64(t.Sub(m.epoch)) }

func (m *Manager) at(n int64) time.Time { return m.epoch.Add(time.Duration(n)) }

// Store returns the manager's store.
func (m *Manager) Store() Store { return m.store }

// Wait blocks until every running execution has returned.
func (m *Manager) Wait() { m.wg.Wait() }

func (m *Manager) published(ctx context.Context, owner string, rec *TaskRecord, ev a2a.StreamResponse) {
	if m.onEvent != nil {
		m.onEvent(ctx, owner, &rec.Task, ev)
	}
}

// execution is one run of the executor for one message.
type execution struct {
	// holder names this execution in the task's run lease.
	holder string
	// leased reports that the execution holds the task's run lease. A
	// message to an existing task takes it before the executor starts. A
	// new task's id is known to no one until the task exists, so its lease
	// is taken with the task, in the same write (CreateLeasedTask, or
	// CreateTaskWithEvents when the task is created with its first
	// events), and not at all when the task is created already finished
	// (a blocking call answered in one upstream reply, or whose first
	// events end it): nothing can run on a finished task, and recovery
	// looks only at running ones.
	leased atomic.Bool
	// leaseSent is when the write that took the run lease, or last renewed
	// it, was sent (Manager.monotonic). The store counts the TTL from when
	// it ran that write, never earlier, so the lease holds at least until
	// leaseSent + TTL, and the next renewal is due a third of the TTL after
	// leaseSent.
	leaseSent atomic.Int64
	// leaseLost reports that the guard stopped the execution because its
	// run lease ran out (see failLostLease).
	leaseLost atomic.Bool
	req       *Request
	up        *Updater
	cancel    context.CancelFunc
	done      chan struct{}
	// startSeq is the last event seq before this execution (continuations).
	startSeq int64
	// startRec is the task as it was when the run started (continuations).
	startRec *TaskRecord
	// cancelOnce makes the executor's Cancel run once per execution.
	cancelOnce sync.Once
	// runCtx is set when the caller runs the execution itself.
	runCtx context.Context
	// reqv and upv are where req and up point: the three live and die
	// together, and one allocation is two fewer per call (the allocation
	// profile of bridge serve under load).
	reqv Request
	upv  Updater
}

// validateMessage checks a caller's message before anything is stored.
func validateMessage(msg *a2a.Message) error {
	var v []a2a.FieldViolation
	if msg == nil {
		return a2a.ErrInvalidParams.With("message is required").WithViolation("message", "required")
	}
	if msg.MessageID == "" {
		v = append(v, a2a.FieldViolation{Field: "message.messageId", Description: "required"})
	}
	if msg.Role != a2a.RoleUser {
		v = append(v, a2a.FieldViolation{Field: "message.role", Description: "must be ROLE_USER"})
	}
	if len(msg.Parts) == 0 {
		v = append(v, a2a.FieldViolation{Field: "message.parts", Description: "at least one part is required"})
	}
	if len(v) > 0 {
		e := a2a.ErrInvalidParams.Withf("invalid message: %s %s", v[0].Field, v[0].Description)
		e.Violations = v
		return e
	}
	return nil
}

// start validates a message, takes the run lease and starts the executor.
// blocking says the caller waits for the final state without streaming.
func (m *Manager) start(ctx context.Context, owner string, p *a2a.SendMessageRequest, blocking, owned bool) (*execution, error) {
	if p == nil {
		return nil, a2a.ErrInvalidParams.With("params are required")
	}
	m.mu.Lock()
	stopping := m.stopping
	m.mu.Unlock()
	if stopping {
		return nil, errStopping()
	}
	if err := validateMessage(p.Message); err != nil {
		return nil, err
	}
	if cfg := p.Configuration; cfg != nil && cfg.HistoryLength != nil && *cfg.HistoryLength < 0 {
		return nil, a2a.ErrInvalidParams.With("configuration.historyLength must not be negative")
	}
	msg := p.Message
	if !owned {
		msg = msg.Clone()
	}
	base := context.WithoutCancel(ctx)
	ex := &execution{done: make(chan struct{}), holder: m.holderName()}
	ex.reqv = Request{Owner: owner, Config: p.Configuration, Metadata: p.Metadata, Context: base, Blocking: blocking}
	req := &ex.reqv
	ex.req = req
	if msg.TaskID != "" {
		rec, err := m.store.GetTask(ctx, owner, msg.TaskID)
		if err != nil {
			return nil, err
		}
		if rec.Task.Status.State.Terminal() {
			return nil, a2a.ErrUnsupportedOperation.Withf("task %s is %s; a terminal task cannot take more messages", msg.TaskID, rec.Task.Status.State).WithMeta("taskId", msg.TaskID)
		}
		if msg.ContextID != "" && msg.ContextID != rec.Task.ContextID {
			return nil, a2a.ErrInvalidParams.Withf("message.contextId %q does not match the context of task %s", msg.ContextID, msg.TaskID)
		}
		sent, err := m.acquire(ctx, msg.TaskID, ex.holder)
		if err != nil {
			return nil, err
		}
		ex.leaseSent.Store(m.monotonic(sent))
		ex.leased.Store(true)
		// Re-read under the lease: the previous run may have changed it.
		rec, err = m.store.GetTask(ctx, owner, msg.TaskID)
		if err == nil && rec.Task.Status.State.Terminal() {
			err = a2a.ErrUnsupportedOperation.Withf("task %s is %s; a terminal task cannot take more messages", msg.TaskID, rec.Task.Status.State)
		}
		if err != nil {
			_ = m.store.ReleaseLease(context.WithoutCancel(ctx), msg.TaskID, ex.holder)
			return nil, err
		}
		msg.ContextID = rec.Task.ContextID
		// rec is this call's own copy from the store: no clone needed.
		next := &rec.Task
		next.History = append(next.History, *msg)
		nrec, err := m.store.UpdateTask(ctx, owner, next, rec.Version, nil)
		if err != nil {
			_ = m.store.ReleaseLease(context.WithoutCancel(ctx), msg.TaskID, ex.holder)
			return nil, fmt.Errorf("taskmanager: record message: %w", err)
		}
		// The executor gets its own copy: the record may be the store's.
		req.Task = nrec.Task.Clone()
		ex.startSeq = nrec.LastSeq
		ex.startRec = nrec
		req.TaskID = msg.TaskID
		if err := m.storeInlinePush(ctx, req); err != nil {
			_ = m.store.ReleaseLease(context.WithoutCancel(ctx), msg.TaskID, ex.holder)
			return nil, err
		}
	} else {
		// The run lease is taken with the task (see execution.leased).
		// Time-ordered ids: the stores' indexes on them grow at one end (NewID).
		msg.TaskID = NewID()
		if msg.ContextID == "" {
			msg.ContextID = NewID()
		}
	}
	req.Message, req.TaskID, req.ContextID = msg, msg.TaskID, msg.ContextID
	ex.upv = Updater{m: m, req: req, ex: ex, first: make(chan struct{})}
	ex.up = &ex.upv
	if ex.startRec != nil {
		ex.up.rec = ex.startRec
	}
	runCtx, cancel := context.WithCancel(base)
	ex.cancel = cancel
	m.mu.Lock()
	m.running[req.TaskID] = ex
	m.mu.Unlock()
	m.wg.Add(1)
	if blocking {
		// The caller runs it (see SendMessage): it would only wait anyway.
		ex.runCtx = runCtx
	} else {
		go m.run(runCtx, ex)
	}
	return ex, nil
}

// holderName names a new execution in its task's run lease: the
// instance's prefix and a sequence number, built in one allocation (a
// concatenation of FormatUint's string makes two).
func (m *Manager) holderName() string {
	var buf [96]byte
	b := append(buf[:0], m.execPrefix...)
	b = strconv.AppendUint(b, m.execSeq.Add(1), 36)
	return string(b)
}

// acquire takes a task's run lease, waiting up to LeaseWait for it, and
// returns when the write that took it was sent.
func (m *Manager) acquire(ctx context.Context, taskID, holder string) (time.Time, error) {
	// The lease is almost always free (always for a new task): try once
	// before paying for a watch and a timer.
	sent := time.Now()
	ok, err := m.store.AcquireLease(ctx, taskID, holder, m.leaseTTL)
	if err != nil {
		return time.Time{}, fmt.Errorf("taskmanager: acquire run lease: %w", err)
	}
	if ok {
		return sent, nil
	}
	deadline := time.NewTimer(m.leaseWait)
	defer deadline.Stop()
	ch, stop := m.store.Watch(ctx, taskID)
	defer stop()
	for {
		sent := time.Now()
		ok, err := m.store.AcquireLease(ctx, taskID, holder, m.leaseTTL)
		if err != nil {
			return time.Time{}, fmt.Errorf("taskmanager: acquire run lease: %w", err)
		}
		if ok {
			return sent, nil
		}
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-deadline.C:
			return time.Time{}, a2a.ErrUnsupportedOperation.Withf("task %s is still processing a previous message; send again when it asks for input", taskID).WithMeta("taskId", taskID)
		case <-ch:
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// run executes one message and guarantees the task ends the run in a
// terminal or interrupted state.
func (m *Manager) run(ctx context.Context, ex *execution) {
	defer m.wg.Done()
	defer close(ex.done)
	defer func() {
		m.mu.Lock()
		if m.running[ex.req.TaskID] == ex {
			delete(m.running, ex.req.TaskID)
		}
		m.mu.Unlock()
		if ex.leased.Load() {
			_ = m.store.ReleaseLease(context.Background(), ex.req.TaskID, ex.holder)
		}
		ex.cancel()
	}()
	// The guard starts only once the execution has run for a while: most
	// executions end before a lease renewal is due, and a cancel of a task
	// running here reaches it directly (CancelTask); a cancel flag set on
	// another replica is seen when the guard starts.
	watchDone := make(chan struct{})
	guardTimer := time.AfterFunc(m.guardDelay(), func() { m.guard(ctx, ex, watchDone) })
	defer func() {
		guardTimer.Stop()
		close(watchDone)
	}()

	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				m.log.Error("a2a: executor panicked", "task", ex.req.TaskID, "panic", fmt.Sprint(r))
				err = fmt.Errorf("executor panicked")
			}
		}()
		return m.exec.Execute(ctx, ex.req, ex.up)
	}()
	up := ex.up
	up.mu.Lock()
	final, created, replied := up.final, up.rec != nil, up.replied
	up.mu.Unlock()
	switch {
	case replied:
	case !created && err != nil:
		// Nothing was created: the caller gets the error itself.
		up.mu.Lock()
		up.firstErr = err
		up.mu.Unlock()
		up.signalFirst()
	case !final:
		text := "the agent ended without reaching a final state"
		if err != nil {
			text = "the agent failed: " + safeMessage(err)
		}
		if ex.leaseLost.Load() {
			m.failLostLease(ex)
		} else if ctx.Err() != nil {
			m.forceCancel(ex.req.Owner, ex.req.TaskID, "canceled")
		} else if ferr := up.Fail(context.Background(), text); ferr != nil && !errors.Is(ferr, ErrTaskClosed) {
			m.log.Error("a2a: could not mark task failed", "task", ex.req.TaskID, "err", ferr)
		}
		up.signalFirst()
	}
	if err != nil {
		m.log.Warn("a2a: executor returned an error", "task", ex.req.TaskID, "err", err)
	}
}

// safeMessage is the text of an error that may be shown to the caller.
func safeMessage(err error) string {
	var e *a2a.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}

// guardDelay is how long an execution runs before its guard starts: well
// within the first lease renewal and the poll interval.
func (m *Manager) guardDelay() time.Duration {
	d := min(m.leaseTTL/6, m.pollInterval/2)
	return max(d, time.Millisecond)
}

// guard renews the run lease and turns a cancel flag, set on any replica,
// into a call of the executor's Cancel.
func (m *Manager) guard(ctx context.Context, ex *execution, done <-chan struct{}) {
	ch, stop := m.store.Watch(ctx, ex.req.TaskID)
	defer stop()
	renewEvery := m.leaseTTL / 3
	// The poll also bounds how soon a lease taken after the guard started
	// (a new task's, see execution.leased) is first seen here.
	poll := time.NewTicker(min(m.pollInterval, renewEvery))
	defer poll.Stop()
	// Renewals keep a timer of their own, due a third of the TTL after the
	// lease was taken or last renewed (leaseSent): counted from the guard's
	// start, or from when a renewal returned, or only checked at poll
	// ticks, they came up to two thirds of the TTL apart, and a loaded
	// store or process then let a live execution's lease run out.
	renew := time.NewTimer(renewEvery)
	defer renew.Stop()
	cancelled := false
	check := true // check the cancel flag once at start
	for {
		if !check {
			select {
			case <-done:
				return
			case <-ch:
			case <-poll.C:
			case <-renew.C:
			}
		}
		check = false
		if ex.leased.Load() {
			due := m.at(ex.leaseSent.Load()).Add(renewEvery)
			if !time.Now().Before(due) {
				sent := time.Now()
				ok, err := m.store.RenewLease(context.Background(), ex.req.TaskID, ex.holder, m.leaseTTL)
				if err == nil && !ok {
					m.log.Error("a2a: run lease lost; stopping the executor", "task", ex.req.TaskID)
					ex.leaseLost.Store(true)
					ex.cancel()
					return
				}
				if err == nil {
					ex.leaseSent.Store(m.monotonic(sent))
					due = sent.Add(renewEvery)
				}
			}
			// A failed renewal is due still: the poll tries again.
			if wait := time.Until(due); wait > 0 {
				renew.Reset(wait)
			}
		}
		if cancelled {
			continue
		}
		if yes, err := m.store.CancelRequested(context.Background(), ex.req.TaskID); err == nil && yes {
			cancelled = true
			m.cancelExecution(ex)
		}
	}
}

// cancelExecution calls the executor's Cancel (bounded by CancelGrace)
// and then cancels the execution's context.
func (m *Manager) cancelExecution(ex *execution) {
	ex.cancelOnce.Do(func() {
		go func() {
			cctx, ccancel := context.WithTimeout(context.Background(), m.cancelGrace)
			defer ccancel()
			if err := m.exec.Cancel(cctx, ex.req, ex.up); err != nil {
				m.log.Warn("a2a: executor cancel failed", "task", ex.req.TaskID, "err", err)
			}
			ex.cancel()
		}()
	})
}

// LeaseLostMessage is the status text of a task whose execution was
// stopped because its run lease ran out.
const LeaseLostMessage = "the task's run lease ran out before it finished (its process or the task store was too slow to renew it); send the request again"

// failLostLease ends, FAILED, the task of an execution stopped because its
// run lease ran out, under the lease taken back: nobody cancelled it, so it
// is not CANCELED. When the lease cannot be taken back, another execution
// (a next message) or recovery holds it: the task is theirs, and is left
// as they make it.
func (m *Manager) failLostLease(ex *execution) {
	ctx := context.Background()
	if ok, err := m.store.AcquireLease(ctx, ex.req.TaskID, ex.holder, m.leaseTTL); err != nil || !ok {
		return
	}
	ex.leased.Store(true) // given back by the write that ends the task, or by run
	if err := ex.up.Fail(ctx, LeaseLostMessage); err != nil && !errors.Is(err, ErrTaskClosed) {
		m.log.Error("a2a: could not mark task failed", "task", ex.req.TaskID, "err", err)
	}
}

// forceCancel marks a task CANCELED on the executor's behalf.
func (m *Manager) forceCancel(owner, taskID, text string) {
	ctx := context.Background()
	rec, err := m.store.GetTask(ctx, owner, taskID)
	if err != nil || rec.Task.Status.State.Terminal() {
		return
	}
	msg := &a2a.Message{MessageID: uuid.NewString(), ContextID: rec.Task.ContextID, TaskID: taskID, Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart(text)}}
	ev := a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{Status: a2a.TaskStatus{State: a2a.TaskStateCanceled, Message: msg}}}
	if _, err := m.apply(ctx, owner, rec, "", ev); err != nil && !errors.Is(err, ErrTaskClosed) {
		m.log.Error("a2a: could not mark task canceled", "task", taskID, "err", err)
	}
}

// waitFirst waits for the first outcome of an execution.
func (m *Manager) waitFirst(ctx context.Context, ex *execution) (*a2a.Message, *TaskRecord, error) {
	select {
	case <-ex.up.first:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	// What is read below is written once, before first is closed, and
	// never again (firstErr and firstMsg before signalFirst, created with
	// the task), so the close orders it and no lock is taken: the
	// executor holds up.mu for the whole of each store write, and waiting
	// for it here held the first event back until the events emitted right
	// after the creation were written too (on SQLite, one commit each).
	up := ex.up
	if up.firstErr != nil {
		return nil, nil, up.firstErr
	}
	if up.firstMsg != nil {
		return up.firstMsg, nil, nil
	}
	if ex.startRec != nil {
		return nil, ex.startRec, nil
	}
	// The creation snapshot: version 1, no events yet, so that a stream
	// starting from it sees every event.
	return nil, up.created, nil
}

// endsStream reports whether ev ends a stream: a terminal state always, an
// interrupted one when interruptedEnds.
func endsStream(ev *a2a.StreamResponse, interruptedEnds bool) bool {
	var st a2a.TaskState
	switch {
	case ev.StatusUpdate != nil:
		st = ev.StatusUpdate.Status.State
	case ev.Task != nil:
		st = ev.Task.Status.State
	default:
		return false
	}
	return st.Terminal() || (interruptedEnds && st.Interrupted())
}

// SendMessage handles a message and, unless returnImmediately is set, waits
// until the task is terminal or interrupted. The task it returns is
// read-only: it may share data with the stored task.
func (m *Manager) SendMessage(ctx context.Context, owner string, p *a2a.SendMessageRequest) (*a2a.SendMessageResponse, error) {
	return m.sendMessage(ctx, owner, p, false)
}

// SendMessageNoCopy is SendMessage for a request decoded for this call
// alone (the server's): its message is recorded as it is, without the copy
// that keeps a caller's own message apart from the task. The caller must
// not use p afterwards.
func (m *Manager) SendMessageNoCopy(ctx context.Context, owner string, p *a2a.SendMessageRequest) (*a2a.SendMessageResponse, error) {
	return m.sendMessage(ctx, owner, p, true)
}

// sendMessage is SendMessage. owned says p was decoded for this call alone
// (the server's requests): its message is then recorded as it is, without
// the copy that keeps a caller's own message apart from the task.
func (m *Manager) sendMessage(ctx context.Context, owner string, p *a2a.SendMessageRequest, owned bool) (*a2a.SendMessageResponse, error) {
	blocking := p == nil || p.Configuration == nil || !p.Configuration.ReturnImmediately
	ex, err := m.start(ctx, owner, p, blocking, owned)
	if err != nil {
		return nil, err
	}
	if ex.runCtx != nil {
		// A blocking caller runs the execution on its own goroutine: no
		// new goroutine, stack and hand-over for a call that only waits.
		// The execution's context is not the caller's, so a caller that
		// leaves does not cancel the task.
		m.run(ex.runCtx, ex)
	}
	msg, rec, err := m.waitFirst(ctx, ex)
	if err != nil {
		return nil, err
	}
	if msg != nil {
		return &a2a.SendMessageResponse{Message: msg}, nil
	}
	hl := historyLength(p.Configuration)
	if ex.runCtx != nil {
		// Run here: the record the execution settled in is the answer (a
		// settled task changes no more until its next message, which
		// waited for this run's lease). Records are never changed in
		// place, so a shallow copy is enough to trim.
		if t, ok := ex.up.settledTask(); ok {
			// The answer and its task in one allocation.
			a := &taskAnswer{task: t}
			a.resp.Task = trimOwned(&a.task, hl, true)
			return &a.resp, nil
		}
	}
	if p.Configuration != nil && p.Configuration.ReturnImmediately {
		if latest, err := m.store.GetTask(ctx, owner, rec.Task.ID); err == nil {
			rec = latest
		}
		return &a2a.SendMessageResponse{Task: trimTask(&rec.Task, hl, true)}, nil
	}
	// The run has ended (run guarantees a final or interrupted state) but
	// the state was not this execution's own write (the manager marked it
	// failed or canceled): read it.
	final, err := m.store.GetTask(ctx, owner, rec.Task.ID)
	if err != nil {
		return nil, err
	}
	return &a2a.SendMessageResponse{Task: trimOwned(&final.Task, hl, true)}, nil
}

// SendStreamingMessage handles a message and streams what happens: a direct
// message alone, or the task followed by its events until it is terminal or
// interrupted. send is called for each event in order.
func (m *Manager) SendStreamingMessage(ctx context.Context, owner string, p *a2a.SendMessageRequest, send func(*a2a.StreamResponse) error) error {
	return m.sendStreamingMessage(ctx, owner, p, send, false)
}

// SendStreamingMessageNoCopy is SendStreamingMessage for a request decoded
// for this call alone, as SendMessageNoCopy is SendMessage.
func (m *Manager) SendStreamingMessageNoCopy(ctx context.Context, owner string, p *a2a.SendMessageRequest, send func(*a2a.StreamResponse) error) error {
	return m.sendStreamingMessage(ctx, owner, p, send, true)
}

// sendStreamingMessage is SendStreamingMessage; owned as for sendMessage.
func (m *Manager) sendStreamingMessage(ctx context.Context, owner string, p *a2a.SendMessageRequest, send func(*a2a.StreamResponse) error, owned bool) error {
	ex, err := m.start(ctx, owner, p, false, owned)
	if err != nil {
		return err
	}
	msg, rec, err := m.waitFirst(ctx, ex)
	if err != nil {
		return err
	}
	if msg != nil {
		return send(&a2a.StreamResponse{Message: msg})
	}
	hl := historyLength(p.Configuration)
	if err := send(&a2a.StreamResponse{Task: trimTask(&rec.Task, hl, true)}); err != nil {
		return err
	}
	var sendErr error
	err = m.follow(ctx, owner, rec.Task.ID, rec.LastSeq, func(e StoredEvent) bool {
		if sendErr = send(&e.Event); sendErr != nil {
			return false
		}
		return !endsStream(&e.Event, true)
	})
	if sendErr != nil {
		return sendErr
	}
	return err
}

// GetTask returns a task of owner.
func (m *Manager) GetTask(ctx context.Context, owner string, p *a2a.GetTaskRequest) (*a2a.Task, error) {
	if p == nil || p.ID == "" {
		return nil, a2a.ErrInvalidParams.With("id is required").WithViolation("id", "required")
	}
	if p.HistoryLength != nil && *p.HistoryLength < 0 {
		return nil, a2a.ErrInvalidParams.With("historyLength must not be negative")
	}
	rec, err := m.store.GetTask(ctx, owner, p.ID)
	if err != nil {
		return nil, err
	}
	return trimOwned(&rec.Task, p.HistoryLength, true), nil
}

// ListTasks returns one page of the owner's tasks.
func (m *Manager) ListTasks(ctx context.Context, owner string, p *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	if p == nil {
		p = &a2a.ListTasksRequest{}
	}
	size := int32(50)
	if p.PageSize != nil {
		size = *p.PageSize
		if size < 1 || size > 100 {
			return nil, a2a.ErrInvalidParams.Withf("pageSize must be between 1 and 100, got %d", size).WithViolation("pageSize", "must be between 1 and 100")
		}
	}
	if p.HistoryLength != nil && *p.HistoryLength < 0 {
		return nil, a2a.ErrInvalidParams.With("historyLength must not be negative")
	}
	if p.Status != "" && !p.Status.Known() {
		return nil, a2a.ErrInvalidParams.Withf("unknown status %q", p.Status)
	}
	q := TaskQuery{ContextID: p.ContextID, Status: p.Status, UpdatedFrom: p.StatusTimestampAfter, Limit: int(size)}
	if q.Status == a2a.TaskStateUnspecified {
		q.Status = ""
	}
	if p.PageToken != "" {
		c, err := decodePageToken(owner, q, p.PageToken)
		if err != nil {
			return nil, a2a.ErrInvalidParams.Withf("pageToken: %v", err).WithViolation("pageToken", err.Error())
		}
		q.After = c
	}
	page, err := m.store.ListTasks(ctx, owner, q)
	if err != nil {
		return nil, err
	}
	withArtifacts := p.IncludeArtifacts != nil && *p.IncludeArtifacts
	resp := &a2a.ListTasksResponse{Tasks: make([]a2a.Task, 0, len(page.Tasks)), PageSize: size, TotalSize: int32(page.Total)}
	for i := range page.Tasks {
		resp.Tasks = append(resp.Tasks, *trimOwned(&page.Tasks[i], p.HistoryLength, withArtifacts))
	}
	if page.More && len(page.Tasks) > 0 {
		last := &page.Tasks[len(page.Tasks)-1]
		resp.NextPageToken = encodePageToken(owner, q, Cursor{Updated: statusTime(last), ID: last.ID})
	}
	return resp, nil
}

// CancelTask cancels a task wherever its executor runs and returns it once
// it is CANCELED (or the state it ended in meanwhile).
func (m *Manager) CancelTask(ctx context.Context, owner string, p *a2a.CancelTaskRequest) (*a2a.Task, error) {
	if p == nil || p.ID == "" {
		return nil, a2a.ErrInvalidParams.With("id is required").WithViolation("id", "required")
	}
	rec, err := m.store.GetTask(ctx, owner, p.ID)
	if err != nil {
		return nil, err
	}
	if st := rec.Task.Status.State; st.Terminal() {
		if st == a2a.TaskStateCanceled {
			return trimOwned(&rec.Task, nil, true), nil
		}
		return nil, a2a.ErrTaskNotCancelable.Withf("task %s is %s and cannot be canceled", p.ID, st).WithMeta("taskId", p.ID)
	}
	// Not running anywhere: cancel it here under the lease.
	holder := m.holder + "/cancel/" + uuid.NewString()
	if ok, err := m.store.AcquireLease(ctx, p.ID, holder, m.leaseTTL); err == nil && ok {
		m.forceCancel(owner, p.ID, "canceled")
		_ = m.store.ReleaseLease(context.WithoutCancel(ctx), p.ID, holder)
	} else {
		if err := m.store.RequestCancel(ctx, p.ID); err != nil {
			return nil, fmt.Errorf("taskmanager: request cancel: %w", err)
		}
		// Running here: cancel it at once (the guard may not have started).
		m.mu.Lock()
		ex := m.running[p.ID]
		m.mu.Unlock()
		if ex != nil {
			m.cancelExecution(ex)
		}
		wctx, wcancel := context.WithTimeout(ctx, m.cancelGrace+m.pollInterval)
		_ = m.follow(wctx, owner, p.ID, rec.LastSeq, func(e StoredEvent) bool { return !endsStream(&e.Event, false) })
		wcancel()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		m.forceCancel(owner, p.ID, fmt.Sprintf("canceled; the agent did not stop within %s", m.cancelGrace))
	}
	final, err := m.store.GetTask(ctx, owner, p.ID)
	if err != nil {
		return nil, err
	}
	return trimOwned(&final.Task, nil, true), nil
}

// SubscribeToTask streams a task: its current state first, then its events
// until it is terminal.
func (m *Manager) SubscribeToTask(ctx context.Context, owner string, p *a2a.SubscribeToTaskRequest, send func(*a2a.StreamResponse) error) error {
	if p == nil || p.ID == "" {
		return a2a.ErrInvalidParams.With("id is required").WithViolation("id", "required")
	}
	rec, err := m.store.GetTask(ctx, owner, p.ID)
	if err != nil {
		return err
	}
	if st := rec.Task.Status.State; st.Terminal() {
		return a2a.ErrUnsupportedOperation.Withf("task %s is %s; a terminal task has no more events", p.ID, st).WithMeta("taskId", p.ID)
	}
	if err := send(&a2a.StreamResponse{Task: trimOwned(&rec.Task, nil, true)}); err != nil {
		return err
	}
	var sendErr error
	err = m.follow(ctx, owner, p.ID, rec.LastSeq, func(e StoredEvent) bool {
		if sendErr = send(&e.Event); sendErr != nil {
			return false
		}
		return !endsStream(&e.Event, false)
	})
	if sendErr != nil {
		return sendErr
	}
	return err
}

func historyLength(c *a2a.SendMessageConfiguration) *int32 {
	if c == nil {
		return nil
	}
	return c.HistoryLength
}

// trimTask returns a copy of t with history cut to the n most recent
// messages (nil: all; 0: none) and artifacts dropped unless withArtifacts.
func trimTask(t *a2a.Task, n *int32, withArtifacts bool) *a2a.Task {
	return trimOwned(t.Clone(), n, withArtifacts)
}

// taskAnswer is a SendMessage answer with the task it points to.
type taskAnswer struct {
	resp a2a.SendMessageResponse
	task a2a.Task
}

// trimOwned is trimTask for a task the caller owns outright (a copy just
// read from the store): it trims t in place and returns it.
func trimOwned(c *a2a.Task, n *int32, withArtifacts bool) *a2a.Task {
	if n != nil {
		if *n == 0 {
			c.History = nil
		} else if int(*n) < len(c.History) {
			c.History = c.History[len(c.History)-int(*n):]
		}
	}
	if !withArtifacts {
		c.Artifacts = nil
	}
	return c
}
