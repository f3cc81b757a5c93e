package taskmanager

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// Executor is an agent's backend. The task manager calls Execute once per
// incoming message, never twice at once for one task, and Cancel when a
// client cancels the task. An executor reports everything through the
// Updater; the manager persists each event before anyone sees it.
type Executor interface {
	// Execute handles one message. It returns when it has nothing more to do
	// for it: the task is terminal or waits for input. Its ctx is cancelled
	// when the task is cancelled.
	Execute(ctx context.Context, req *Request, u *Updater) error
	// Cancel asks the executor to stop work on the task. It may emit the
	// CANCELED state itself; if it does not, the manager does.
	Cancel(ctx context.Context, req *Request, u *Updater) error
}

// Request is what an executor gets for one incoming message.
type Request struct {
	// Message is the caller's message (its TaskID and ContextID are set).
	Message *a2a.Message
	// Task is the task before this message, nil when the message starts a new one.
	Task *a2a.Task
	// TaskID and ContextID of the task the message belongs to.
	TaskID    string
	ContextID string
	// Owner is the owner key of the task.
	Owner string
	// Config is the caller's send configuration, if any.
	Config *a2a.SendMessageConfiguration
	// Metadata is the request's metadata.
	Metadata a2a.Metadata
	// Context carries values of the incoming request (principal, trace) for
	// executors that call onwards; it is never cancelled by the caller leaving.
	Context context.Context
	// Blocking reports that the message came in a blocking SendMessage: the
	// caller waits for the task's final or interrupted state and sees no
	// intermediate event, and the task id is not known to anyone before the
	// first event. An executor may then do its work in fewer steps (the
	// front proxy makes one blocking call upstream instead of relaying a
	// stream; a published MCP tool that answers at once never reports
	// WORKING). Other subscribers and push deliveries still see every event
	// the executor emits. Such a call runs Execute on the caller's own
	// goroutine and answers when Execute returns.
	Blocking bool
}

// ErrTaskClosed is returned to an executor that emits after the task ended.
var ErrTaskClosed = errors.New("taskmanager: task is already in a terminal state; event refused")

// Updater is the executor's handle on its task: every call validates the
// event against the task lifecycle, persists it and publishes it.
type Updater struct {
	m   *Manager
	req *Request
	ex  *execution

	mu      sync.Mutex
	rec     *TaskRecord // nil until the task exists
	replied bool
	final   bool // this execution reached a terminal or interrupted state

	// created, firstErr and firstMsg are written under mu, once, before
	// first is closed, and never after: waitFirst reads them without mu
	// once first is closed.
	created  *TaskRecord // the task as this execution created it
	first    chan struct{}
	firstErr error
	firstMsg *a2a.Message
	once     sync.Once
}

func (u *Updater) signalFirst() { u.once.Do(func() { close(u.first) }) }

// settledTask returns a shallow copy of the task as this execution left
// it, if that is a terminal or interrupted state; else false.
func (u *Updater) settledTask() (a2a.Task, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.rec == nil {
		return a2a.Task{}, false
	}
	if st := u.rec.Task.Status.State; !st.Terminal() && !st.Interrupted() {
		return a2a.Task{}, false
	}
	return u.rec.Task, true
}

// State is the task's state as this execution has left it so far (empty
// before the task exists).
func (u *Updater) State() a2a.TaskState {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.rec == nil {
		return ""
	}
	return u.rec.Task.Status.State
}

// TaskID is the id of the task being updated.
func (u *Updater) TaskID() string { return u.req.TaskID }

// ContextID is the context of the task being updated.
func (u *Updater) ContextID() string { return u.req.ContextID }

// NewAgentMessage builds an agent message in the task's context.
func (u *Updater) NewAgentMessage(parts ...a2a.Part) *a2a.Message {
	return &a2a.Message{
		MessageID: uuid.NewString(),
		ContextID: u.req.ContextID,
		TaskID:    u.req.TaskID,
		Role:      a2a.RoleAgent,
		Parts:     parts,
	}
}

// Reply answers with a direct message and no task. It is allowed only as the
// first and only outcome of a message that did not name a task.
func (u *Updater) Reply(ctx context.Context, msg *a2a.Message) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.rec != nil || u.replied || u.req.Task != nil {
		return errors.New("taskmanager: a direct reply is only allowed before any task event of a new task")
	}
	m := msg.Clone()
	m.Role = a2a.RoleAgent
	m.ContextID = u.req.ContextID
	m.TaskID = ""
	if m.MessageID == "" {
		m.MessageID = uuid.NewString()
	}
	u.replied = true
	u.final = true
	u.firstMsg = m
	u.signalFirst()
	return nil
}

// Status moves the task to state with an optional agent message.
func (u *Updater) Status(ctx context.Context, state a2a.TaskState, msg *a2a.Message) error {
	if msg != nil {
		msg = msg.Clone()
		msg.Role = a2a.RoleAgent
		msg.TaskID, msg.ContextID = u.req.TaskID, u.req.ContextID
		if msg.MessageID == "" {
			msg.MessageID = uuid.NewString()
		}
	}
	return u.Emit(ctx, a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{
		TaskID: u.req.TaskID, ContextID: u.req.ContextID,
		Status: a2a.TaskStatus{State: state, Message: msg},
	}})
}

// Artifact adds an artifact, or a chunk of one when appendTo is true. Its
// parts and metadata are taken over, as by Emit.
func (u *Updater) Artifact(ctx context.Context, a a2a.Artifact, appendTo, lastChunk bool) error {
	if a.ArtifactID == "" {
		a.ArtifactID = uuid.NewString()
	}
	return u.Emit(ctx, a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{
		TaskID: u.req.TaskID, ContextID: u.req.ContextID,
		Artifact: a, Append: appendTo, LastChunk: lastChunk,
	}})
}

// textMessage builds an agent message from text ("" gives nil).
func (u *Updater) textMessage(text string) *a2a.Message {
	if text == "" {
		return nil
	}
	return u.NewAgentMessage(a2a.TextPart(text))
}

// Working reports progress with an optional status text.
func (u *Updater) Working(ctx context.Context, text string) error {
	return u.Status(ctx, a2a.TaskStateWorking, u.textMessage(text))
}

// Complete ends the task successfully.
func (u *Updater) Complete(ctx context.Context, text string) error {
	return u.Status(ctx, a2a.TaskStateCompleted, u.textMessage(text))
}

// Fail ends the task as failed with a message saying why.
func (u *Updater) Fail(ctx context.Context, text string) error {
	return u.Status(ctx, a2a.TaskStateFailed, u.textMessage(text))
}

// InputRequired pauses the task until the client sends another message.
func (u *Updater) InputRequired(ctx context.Context, text string) error {
	return u.Status(ctx, a2a.TaskStateInputRequired, u.textMessage(text))
}

// Emit validates, persists and publishes one event. The first task event of
// a new task creates it.
//
// Emit takes the event over, without a copy: the executor must not change
// it, nor anything it points to (messages, parts, artifacts, metadata),
// afterwards; the stored task and event log may share it. Build a new
// event for each call. (Status, Artifact and the other helpers build
// their own.)
func (u *Updater) Emit(ctx context.Context, ev a2a.StreamResponse) error {
	err := u.EmitAll(ctx, ev)
	if err == nil {
		return nil
	}
	// ee is declared here, not above: errors.As moves it to the heap, one
	// allocation on every call when it was declared before the nil check.
	var ee *EventError
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}

// EventError is the error of EmitAll when one of its events was not
// stored. The events before Index were stored (in one write) and
// published; the event at Index was refused, or its write failed, for Err;
// the events after it were not tried. That is what emitting the events
// one by one with Emit, up to the first error, leaves.
type EventError struct {
	Index int
	Err   error
}

func (e *EventError) Error() string {
	return fmt.Sprintf("taskmanager: event %d of a batch: %v", e.Index, e.Err)
}

func (e *EventError) Unwrap() error { return e.Err }

// EmitAll validates, persists and publishes several events in one store
// write: subscribers see each of them, in order, as if emitted one by one,
// but the store commits them together (an executor that learns an artifact
// and the final state from one answer pays one commit). Events are taken
// over as by Emit; an artifact without an id gets one.
//
// EmitAll is Emit of each event in turn, up to the first that fails, but
// for the number of writes: the events before it are stored and published
// all the same, and the error is an *EventError naming the event that
// failed (an event after one that ends the task fails with
// ErrTaskClosed). The events after it are not tried. The store is written
// once for the events that fold into the task (twice when they create it
// on a store that cannot create a task with its events, or when the first
// is a task snapshot that creates it).
func (u *Updater) EmitAll(ctx context.Context, evs ...a2a.StreamResponse) error {
	// Persisting must finish even if the executor's ctx was cancelled: a
	// CANCELED state is usually written right after cancellation.
	ctx = context.WithoutCancel(ctx)
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(evs) == 0 {
		return errors.New("taskmanager: empty event")
	}
	if u.replied {
		return &EventError{Index: 0, Err: errors.New("taskmanager: the executor already replied with a direct message")}
	}
	// n events are well formed; the one at n, if any, is refused for bad
	// once they are stored.
	n, bad := len(evs), error(nil)
	for i := range evs {
		if bad = wellFormed(&evs[i]); bad != nil {
			n = i
			break
		}
	}
	if n > 0 {
		if stored, err := u.emitLocked(ctx, evs[:n]); err != nil {
			return &EventError{Index: stored, Err: err}
		}
	}
	if bad != nil {
		return &EventError{Index: n, Err: bad}
	}
	return nil
}

// wellFormed checks what Emit refuses of an event whatever the task: a
// message, an empty event. It gives an artifact without an id one.
func wellFormed(ev *a2a.StreamResponse) error {
	switch {
	case ev.Message != nil:
		return errors.New("taskmanager: a message event is only allowed as a direct reply; use Reply or a status message")
	case ev.Task == nil && ev.StatusUpdate == nil && ev.ArtifactUpdate == nil:
		return errors.New("taskmanager: empty event")
	case ev.ArtifactUpdate != nil && ev.ArtifactUpdate.Artifact.ArtifactID == "":
		ev.ArtifactUpdate.Artifact.ArtifactID = uuid.NewString()
	}
	return nil
}

// emitLocked stores and publishes well-formed events up to the first the
// task refuses, and returns how many it stored and, when that is not all,
// why the next was not.
func (u *Updater) emitLocked(ctx context.Context, evs []a2a.StreamResponse) (stored int, _ error) {
	if u.rec == nil && evs[0].Task == nil {
		if done, n, err := u.createWithEventsLocked(ctx, evs); done {
			return n, err
		}
	}
	if u.rec == nil {
		if err := u.createLocked(ctx, evs[0].Task); err != nil {
			return 0, err
		}
		if evs[0].Task != nil {
			// The snapshot is the task as created: the event is stored.
			if st := u.rec.Task.Status.State; st.Terminal() || st.Interrupted() {
				u.final = true
			}
			u.signalFirst()
			stored, evs = 1, evs[1:]
			if len(evs) == 0 {
				return stored, nil
			}
		}
	}
	// The write that ends the task gives this execution's run lease back
	// with it (see execution.leased).
	holder := ""
	if u.ex != nil && u.ex.leased.Load() {
		holder = u.ex.holder
	}
	a, err := u.m.apply(ctx, u.req.Owner, u.rec, holder, evs...)
	if a.rec != nil {
		u.rec = a.rec
	}
	if a.released {
		u.ex.leased.Store(false)
	}
	if a.settled {
		u.final = true
	}
	if a.n > 0 {
		u.signalFirst()
	}
	return stored + a.n, err
}

// createWithEventsLocked creates a new task with its first events folded
// in, in one store write, when the store is an EventfulTaskCreator: the
// task as createLocked would create it (SUBMITTED) is the creation snapshot
// streams start from (version 1, no events), and the store holds what
// apply would have written onto it (version 2, events at seqs 1 to n). The
// lease follows execution.leased: none when the events end the task, else
// this execution's. The events fold up to the first the task refuses:
// those before it are created with the task, and stored reports how many,
// err why the next was refused. done is false when the task must take the
// two writes of createLocked and apply instead: the message continues a
// task, the store cannot, the request registers a webhook (its delivery
// cursor starts at the task's last seq when registered, so it must be
// registered before the events), or the first event does not fold (apply
// then refuses it, on the task created SUBMITTED, as it always did).
func (u *Updater) createWithEventsLocked(ctx context.Context, evs []a2a.StreamResponse) (done bool, stored int, _ error) {
	ec, ok := u.m.store.(EventfulTaskCreator)
	if !ok || u.req.Task != nil || u.ex == nil || (u.req.Config != nil && u.req.Config.TaskPushNotificationConfig != nil) {
		return false, 0, nil
	}
	now := u.m.now()
	t := u.newTask(now)
	next := *t // a shallow copy, as apply makes (see applyEvent)
	n, settled, refused := fold(&next, evs, now)
	if n == 0 {
		return false, 0, nil
	}
	holder := ""
	if !next.Status.State.Terminal() {
		holder = u.ex.holder
	}
	sent := time.Now()
	rec, err := ec.CreateTaskWithEvents(ctx, u.req.Owner, &next, evs[:n], holder, u.m.leaseTTL)
	if err != nil {
		return true, 0, fmt.Errorf("taskmanager: create task: %w", err)
	}
	if holder != "" {
		u.ex.leaseSent.Store(u.m.monotonic(sent))
		u.ex.leased.Store(true)
	}
	u.created = &TaskRecord{Task: *t, Version: 1}
	u.rec = rec
	for i := range evs[:n] {
		u.m.published(ctx, u.req.Owner, rec, evs[i])
	}
	if settled {
		u.final = true
	}
	u.signalFirst()
	return true, n, refused
}

// newTask is the task of a new message as created: SUBMITTED at now,
// history holding the caller's message.
func (u *Updater) newTask(now time.Time) *a2a.Task {
	return &a2a.Task{
		ID:        u.req.TaskID,
		ContextID: u.req.ContextID,
		Status:    a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: &now},
		History:   []a2a.Message{*u.req.Message},
	}
}

// createLocked creates the task of a new message (SUBMITTED, history holding
// the caller's message), or from the executor's own snapshot.
func (u *Updater) createLocked(ctx context.Context, snapshot *a2a.Task) error {
	if u.req.Task != nil {
		rec, err := u.m.store.GetTask(ctx, u.req.Owner, u.req.TaskID)
		if err != nil {
			return err
		}
		u.rec = rec
		return nil
	}
	// The SUBMITTED task is built only when there is no snapshot: built
	// and dropped, it cost three allocations per blocking relayed call.
	now := u.m.now()
	var t *a2a.Task
	if snapshot == nil {
		t = u.newTask(now)
	} else {
		t = snapshot // taken over, as every event (see Emit)
		t.ID, t.ContextID = u.req.TaskID, u.req.ContextID
		if t.Status.Timestamp == nil {
			ts := now
			t.Status.Timestamp = &ts
		}
		if len(t.History) == 0 {
			t.History = []a2a.Message{*u.req.Message}
		}
	}
	// A task created finished needs no run lease; any other is created
	// with this execution's (see execution.leased).
	if t.Status.State.Terminal() {
		if err := u.m.store.CreateTask(ctx, u.req.Owner, t); err != nil {
			return fmt.Errorf("taskmanager: create task: %w", err)
		}
	} else {
		sent := time.Now()
		if err := CreateLeasedTask(ctx, u.m.store, u.req.Owner, t, u.ex.holder, u.m.leaseTTL); err != nil {
			return fmt.Errorf("taskmanager: create task: %w", err)
		}
		u.ex.leaseSent.Store(u.m.monotonic(sent))
		u.ex.leased.Store(true)
	}
	// Records are replaced, never changed in place (see apply), so the
	// creation snapshot can be the first record itself.
	u.rec = &TaskRecord{Task: *t, Version: 1}
	u.created = u.rec
	return u.m.storeInlinePush(ctx, u.req)
}

// storeInlinePush registers the webhook a SendMessage carried in its
// configuration for the request's task.
func (m *Manager) storeInlinePush(ctx context.Context, req *Request) error {
	if req.Config == nil || req.Config.TaskPushNotificationConfig == nil {
		return nil
	}
	cfg := *req.Config.TaskPushNotificationConfig
	cfg.TaskID = req.TaskID
	if cfg.ID == "" {
		cfg.ID = uuid.NewString()
	}
	if err := m.store.PutPushConfig(ctx, req.Owner, &cfg); err != nil {
		return fmt.Errorf("taskmanager: register push notification config: %w", err)
	}
	return nil
}

// applied is what apply stored.
type applied struct {
	// rec is the task after the stored events (as given when none was
	// stored; nil when it could not be read back after a conflict).
	rec *TaskRecord
	// n counts the events stored, the first n of those given.
	n int
	// settled reports that the task was terminal or interrupted after one
	// of the stored events.
	settled bool
	// released reports that the write released holder's run lease.
	released bool
}

// apply writes evs onto the task, in one store write, with optimistic
// concurrency, retrying on conflicts. The events fold into the task one by
// one up to the first the task refuses (anything after a terminal state
// is refused with ErrTaskClosed): those before it are written and
// published, and the error says why it was refused; the events after it
// are not tried. When holder is set and the stored events end the task,
// the write also releases holder's run lease.
func (m *Manager) apply(ctx context.Context, owner string, rec *TaskRecord, holder string, evs ...a2a.StreamResponse) (applied, error) {
	// evs are the executor's, handed over (see Emit): applyEvent fills them
	// in place and the store may keep them.
	now := m.now()
	for attempt := 0; ; attempt++ {
		// A shallow copy: applyEvent replaces what it changes and never
		// writes into a slice it shares with rec, which others may read.
		next := rec.Task
		n, settled, refused := fold(&next, evs, now)
		if n == 0 {
			return applied{rec: rec}, refused
		}
		var nrec *TaskRecord
		var err error
		released := false
		if holder != "" && next.Status.State.Terminal() {
			nrec, released, err = updateReleasing(ctx, m.store, owner, &next, rec.Version, evs[:n], holder)
		} else {
			nrec, err = m.store.UpdateTask(ctx, owner, &next, rec.Version, evs[:n])
		}
		if err == nil {
			for i := range evs[:n] {
				m.published(ctx, owner, nrec, evs[i])
			}
			return applied{rec: nrec, n: n, settled: settled, released: released}, refused
		}
		if !errors.Is(err, ErrConflict) || attempt > 16 {
			return applied{rec: rec}, fmt.Errorf("taskmanager: store event: %w", err)
		}
		if rec, err = m.store.GetTask(ctx, owner, rec.Task.ID); err != nil {
			return applied{}, err
		}
	}
}

// fold applies evs to t in memory, in order, up to the first the task
// refuses: an event after a terminal state (ErrTaskClosed), or one
// applyEvent refuses. It returns how many it applied, the refusal (nil when
// all were applied), and whether the task was terminal or interrupted
// after one of them. A refused event leaves t as it was.
func fold(t *a2a.Task, evs []a2a.StreamResponse, now time.Time) (n int, settled bool, _ error) {
	for i := range evs {
		if t.Status.State.Terminal() {
			return i, settled, ErrTaskClosed
		}
		if err := applyEvent(t, &evs[i], now); err != nil {
			return i, settled, err
		}
		if st := t.Status.State; st.Terminal() || st.Interrupted() {
			settled = true
		}
	}
	return len(evs), settled, nil
}

// updateReleasing is UpdateTask with holder's run lease released in the
// same write when the store can (LeaseReleasingUpdater); released
// reports it was.
func updateReleasing(ctx context.Context, s Store, owner string, t *a2a.Task, version int64, evs []a2a.StreamResponse, holder string) (*TaskRecord, bool, error) {
	if lr, ok := s.(LeaseReleasingUpdater); ok {
		rec, err := lr.UpdateTaskReleasing(ctx, owner, t, version, evs, holder)
		return rec, err == nil, err
	}
	rec, err := s.UpdateTask(ctx, owner, t, version, evs)
	return rec, false, err
}

// applyEvent folds one event into a task snapshot, filling ids and times.
// t may share its slices with other snapshots: applyEvent replaces a slice
// it changes with a new one and never writes into a shared backing array.
func applyEvent(t *a2a.Task, ev *a2a.StreamResponse, now time.Time) error {
	switch {
	case ev.StatusUpdate != nil:
		su := ev.StatusUpdate
		su.TaskID, su.ContextID = t.ID, t.ContextID
		if !su.Status.State.Known() || su.Status.State == a2a.TaskStateUnspecified || su.Status.State == a2a.TaskStateSubmitted {
			return fmt.Errorf("taskmanager: executor emitted an invalid state %q", su.Status.State)
		}
		if su.Status.Timestamp == nil {
			ts := now
			su.Status.Timestamp = &ts
		}
		if m := su.Status.Message; m != nil {
			m.TaskID, m.ContextID = t.ID, t.ContextID
		}
		t.Status = su.Status
		if su.Status.Message != nil {
			t.History = append(t.History[:len(t.History):len(t.History)], *su.Status.Message)
		}
	case ev.ArtifactUpdate != nil:
		au := ev.ArtifactUpdate
		au.TaskID, au.ContextID = t.ID, t.ContextID
		if len(au.Artifact.Parts) == 0 {
			return errors.New("taskmanager: executor emitted an artifact without parts")
		}
		i := -1
		for j := range t.Artifacts {
			if t.Artifacts[j].ArtifactID == au.Artifact.ArtifactID {
				i = j
				break
			}
		}
		n := len(t.Artifacts)
		switch {
		case i >= 0 && au.Append:
			arts := append([]a2a.Artifact(nil), t.Artifacts...)
			ps := arts[i].Parts
			arts[i].Parts = append(ps[:len(ps):len(ps)], au.Artifact.Parts...)
			t.Artifacts = arts
		case i >= 0:
			arts := append([]a2a.Artifact(nil), t.Artifacts...)
			arts[i] = au.Artifact
			t.Artifacts = arts
		default:
			t.Artifacts = append(t.Artifacts[:n:n], au.Artifact)
		}
	case ev.Task != nil:
		nt := ev.Task
		nt.ID, nt.ContextID = t.ID, t.ContextID
		if !nt.Status.State.Known() || nt.Status.State == a2a.TaskStateUnspecified {
			return fmt.Errorf("taskmanager: executor emitted a task in invalid state %q", nt.Status.State)
		}
		if nt.Status.Timestamp == nil {
			ts := now
			nt.Status.Timestamp = &ts
		}
		if len(nt.History) == 0 {
			nt.History = t.History
		}
		*t = *nt
		ev.Task = nt
	}
	return nil
}
