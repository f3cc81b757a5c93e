package taskmanager

import (
	"context"
	"errors"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// Errors returned by stores.
var (
	// ErrConflict means the task changed since the version the writer read.
	ErrConflict = errors.New("taskmanager: task changed concurrently")
	// ErrExists means a task with that id already exists.
	ErrExists = errors.New("taskmanager: task already exists")
	// ErrLeaseHeld means another holder's run lease on the task is live.
	ErrLeaseHeld = errors.New("taskmanager: the task's run lease is held by another execution")
)

// TaskRecord is a task as stored: its snapshot and its place in the log.
type TaskRecord struct {
	Task a2a.Task
	// Version grows by one on every write of the task.
	Version int64
	// LastSeq is the sequence number of the task's last event (0: none yet).
	LastSeq int64
}

// StoredEvent is one entry of a task's event log.
type StoredEvent struct {
	Seq   int64
	Event a2a.StreamResponse
}

// TaskQuery selects tasks for ListTasks. The cursor is exclusive and orders by
// status timestamp descending, then id descending.
type TaskQuery struct {
	ContextID   string
	Status      a2a.TaskState
	UpdatedFrom *time.Time
	Limit       int
	After       *Cursor
}

// Cursor is a position in the ListTasks order.
type Cursor struct {
	Updated time.Time
	ID      string
}

// TaskPage is one page of a task listing.
type TaskPage struct {
	Tasks []a2a.Task
	// Total counts all tasks matching the query's filters, ignoring paging.
	Total int
	// More reports whether tasks follow the page.
	More bool
}

// TaskStore keeps tasks and their event logs. Every call takes the owner of
// the task: a task of another owner does not exist for the caller
// (ErrTaskNotFound), whatever the call.
//
// A store may keep the task and events given to CreateTask and UpdateTask
// without copying them: the writer must not change them afterwards. What it
// returns belongs to the caller.
type TaskStore interface {
	// CreateTask stores a new task at version 1 with no events.
	CreateTask(ctx context.Context, owner string, t *a2a.Task) error
	// GetTask returns the task of owner with id.
	GetTask(ctx context.Context, owner, id string) (*TaskRecord, error)
	// UpdateTask stores the snapshot t and appends events, atomically, if the
	// stored version is still version; else ErrConflict. It returns the new record.
	UpdateTask(ctx context.Context, owner string, t *a2a.Task, version int64, events []a2a.StreamResponse) (*TaskRecord, error)
	// Events returns up to limit events of the task with seq > after, in order.
	Events(ctx context.Context, owner, taskID string, after int64, limit int) ([]StoredEvent, error)
	// ListTasks returns the owner's tasks matching q, newest status first.
	ListTasks(ctx context.Context, owner string, q TaskQuery) (*TaskPage, error)
	// Watch returns a channel that receives a value (coalesced) whenever the
	// task changes, until stop is called.
	Watch(ctx context.Context, taskID string) (changes <-chan struct{}, stop func())
}

// LeaseStore coordinates executions: one run lease per task, and a cancel
// flag that reaches the executor wherever it runs.
type LeaseStore interface {
	// AcquireLease takes the run lease of a task for holder, if free or expired.
	AcquireLease(ctx context.Context, taskID, holder string, ttl time.Duration) (bool, error)
	// RenewLease extends a lease holder still holds; false if it was lost.
	RenewLease(ctx context.Context, taskID, holder string, ttl time.Duration) (bool, error)
	// ReleaseLease gives the lease up.
	ReleaseLease(ctx context.Context, taskID, holder string) error
	// RequestCancel sets the task's cancel flag.
	RequestCancel(ctx context.Context, taskID string) error
	// CancelRequested reports the task's cancel flag.
	CancelRequested(ctx context.Context, taskID string) (bool, error)
}

// LeasedTaskCreator is a store that can take a new task's run lease and
// create the task in one atomic write: the task manager's first write of a
// task that is still running then costs one commit instead of two. Stores
// without it get AcquireLease followed by CreateTask.
type LeasedTaskCreator interface {
	// CreateLeasedTask takes the run lease of t.ID for holder, as
	// AcquireLease does, and creates t, as CreateTask does: both or neither.
	// It returns ErrExists if the task exists and ErrLeaseHeld if another
	// holder's lease on it is live.
	CreateLeasedTask(ctx context.Context, owner string, t *a2a.Task, holder string, ttl time.Duration) error
}

// CreateLeasedTask creates t with holder's run lease on it, both or
// neither: in one write when s is a LeasedTaskCreator, else AcquireLease
// then CreateTask (the lease given back if the creation fails).
func CreateLeasedTask(ctx context.Context, s Store, owner string, t *a2a.Task, holder string, ttl time.Duration) error {
	if lc, ok := s.(LeasedTaskCreator); ok {
		return lc.CreateLeasedTask(ctx, owner, t, holder, ttl)
	}
	ok, err := s.AcquireLease(ctx, t.ID, holder, ttl)
	if err != nil {
		return err
	}
	if !ok {
		return ErrLeaseHeld
	}
	if err := s.CreateTask(ctx, owner, t); err != nil {
		_ = s.ReleaseLease(context.WithoutCancel(ctx), t.ID, holder)
		return err
	}
	return nil
}

// EventfulTaskCreator is a store that can create a task together with its
// first events in one atomic write: a new task whose first emit is a status
// or artifact event (not a snapshot) then costs one commit instead of two.
// Stores without it get the creation, then UpdateTask.
type EventfulTaskCreator interface {
	// CreateTaskWithEvents stores t and events as CreateTask of the task
	// as created followed by UpdateTask(t, 1, events) would leave them,
	// both or neither: the task at version 2 and events (at least one) at
	// seqs 1 to len(events). With holder set it also takes holder's run
	// lease on t.ID, as CreateLeasedTask does; with holder "" it takes
	// none. It returns ErrExists if the task exists and ErrLeaseHeld if
	// another holder's lease on it is live, and the new record.
	CreateTaskWithEvents(ctx context.Context, owner string, t *a2a.Task, events []a2a.StreamResponse, holder string, ttl time.Duration) (*TaskRecord, error)
}

// CreateTaskWithEvents creates t with its first events (and holder's run
// lease when holder is set), in one write when s is an
// EventfulTaskCreator; else it creates created (the task before the
// events, with the lease when holder is set: see CreateLeasedTask), then
// stores t and events with UpdateTask. The fallback is two writes and not
// atomic: a failed update leaves the created task, as the manager's own two
// writes would.
func CreateTaskWithEvents(ctx context.Context, s Store, owner string, created, t *a2a.Task, events []a2a.StreamResponse, holder string, ttl time.Duration) (*TaskRecord, error) {
	if len(events) == 0 {
		return nil, errors.New("taskmanager: create task with events: no events")
	}
	if ec, ok := s.(EventfulTaskCreator); ok {
		return ec.CreateTaskWithEvents(ctx, owner, t, events, holder, ttl)
	}
	var err error
	if holder != "" {
		err = CreateLeasedTask(ctx, s, owner, created, holder, ttl)
	} else {
		err = s.CreateTask(ctx, owner, created)
	}
	if err != nil {
		return nil, err
	}
	return s.UpdateTask(ctx, owner, t, 1, events)
}

// LeaseReleasingUpdater is a store that can give a run lease back in the
// same atomic write as an update: the task manager's write of the state
// that ends a task then also ends its run lease, one commit instead of two.
// Stores without it get UpdateTask, and the lease is released afterwards.
type LeaseReleasingUpdater interface {
	// UpdateTaskReleasing is UpdateTask that also releases holder's run
	// lease on the task, as ReleaseLease does, when (and only when) the
	// update is stored.
	UpdateTaskReleasing(ctx context.Context, owner string, t *a2a.Task, version int64, events []a2a.StreamResponse, holder string) (*TaskRecord, error)
}

// PushConfigStore keeps push notification configs, scoped to the task owner.
type PushConfigStore interface {
	// PutPushConfig creates or replaces a config (cfg.ID and cfg.TaskID set).
	PutPushConfig(ctx context.Context, owner string, cfg *a2a.TaskPushNotificationConfig) error
	// GetPushConfig returns one config, or ErrTaskNotFound.
	GetPushConfig(ctx context.Context, owner, taskID, id string) (*a2a.TaskPushNotificationConfig, error)
	// ListPushConfigs returns the task's configs in creation order.
	ListPushConfigs(ctx context.Context, owner, taskID string) ([]a2a.TaskPushNotificationConfig, error)
	// DeletePushConfig deletes a config; deleting a missing one is not an error.
	DeletePushConfig(ctx context.Context, owner, taskID, id string) error
}

// Store is everything the task manager needs from storage.
type Store interface {
	TaskStore
	LeaseStore
	PushConfigStore
	PushCursorStore
	MaintenanceStore
}

// PushDue is a push config with events its webhook has not acknowledged.
type PushDue struct {
	Owner  string
	Config a2a.TaskPushNotificationConfig
	// Delivered is the seq of the last event the webhook acknowledged.
	Delivered int64
	// LastSeq is the task's last event seq.
	LastSeq int64
	// Attempts counts consecutive failed deliveries of the next event.
	Attempts int
}

// PushCursorStore tracks push delivery per config. The task's event log is
// the outbox: a config's cursor is the seq of the last event its webhook
// acknowledged, so deliveries survive restarts and are at-least-once.
type PushCursorStore interface {
	// DuePushes lists up to limit configs, of any owner, whose cursor is
	// behind their task's log and whose next attempt time has come.
	DuePushes(ctx context.Context, now time.Time, limit int) ([]PushDue, error)
	// AdvancePush moves a config's cursor to seq (never backwards) and
	// clears its failure count.
	AdvancePush(ctx context.Context, owner, taskID, configID string, seq int64) error
	// FailPush records a failed attempt and when to try next; attempts
	// beyond the caller's cap are dropped by calling AdvancePush.
	FailPush(ctx context.Context, owner, taskID, configID string, next time.Time, lastErr string) error
}

// TaskRef names a task and its owner.
type TaskRef struct {
	Owner string
	ID    string
}

// MaintenanceStore serves the background jobs that every replica may run at
// once: retention and the recovery of tasks whose replica stopped.
type MaintenanceStore interface {
	// Prune deletes terminal tasks whose status timestamp is before
	// finishedBefore, with their events, push configs and cursors, run
	// leases and cancel flags, and returns how many tasks it deleted. Tasks
	// that are not terminal are never pruned.
	Prune(ctx context.Context, finishedBefore time.Time) (int, error)
	// Orphans lists up to limit tasks, of any owner, that are SUBMITTED or
	// WORKING while no live run lease covers them (the execution that
	// owned them is gone), in id order, starting after the id after ("":
	// from the first). A task becomes an orphan no later than the TTL of
	// its lease after the lease was last taken or renewed, by the store's
	// clock.
	Orphans(ctx context.Context, after string, limit int) ([]TaskRef, error)
}

// TaskCounter is a store that can count its tasks by state, of every
// owner, in one query (for the admin status page).
// A store shared by replicas counts every replica's tasks.
type TaskCounter interface {
	// CountTasks returns the number of stored tasks in each state; states
	// without tasks may be absent.
	CountTasks(ctx context.Context) (map[a2a.TaskState]int64, error)
}
