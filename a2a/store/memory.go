// Package store holds the task stores behind taskmanager.Store: in memory (tests and
// throw-away runs), SQLite (the embedded default) and PostgreSQL (replicas).
//
// Durability. A write to SQLite or PostgreSQL returns only once it is
// committed, so what the task manager acknowledges (an answer, a streamed
// event) is in the store when the caller learns of it, whatever happens to
// the process next. SQLite commits with synchronous=FULL in WAL mode: the
// WAL is synced to disk at every commit, so a power loss loses nothing
// acknowledged either. PostgreSQL commits as the server's
// synchronous_commit says (on by default: the WAL flushed to disk).
//
// Speed. Both stores group the writes of concurrent callers: SQLite's one
// writer goroutine takes every write waiting while a transaction commits
// into the next transaction (group commit), PostgreSQL's writer sends them
// in one pipeline that the server runs as one transaction. N concurrent
// writes then cost one commit (one sync of the WAL, one round trip) instead
// of N; a lone write costs one, as without grouping, because no writer ever
// waits for company. The price is latency under load: a write waits for the
// commit before its own. Statements are prepared once. The task manager
// writes as little as a call needs (taskmanager.LeasedTaskCreator,
// taskmanager.EventfulTaskCreator, taskmanager.LeaseReleasingUpdater,
// Updater.EmitAll): a blocking call answered in one upstream reply, or
// whose first events end it, is one write. docs/stores.md has the figures and the
// settings considered.
package store

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
)

// Memory is an in-process taskmanager.Store. It loses everything on exit.
//
// Tasks and events passed to CreateTask and UpdateTask are kept as given,
// without a copy: the writer hands them over and must not change them
// afterwards (the task manager never does: it replaces records, it never
// changes one in place). What GetTask, Events and ListTasks return are
// copies the caller may change.
type Memory struct {
	mu      sync.Mutex
	tasks   map[string]*memTask
	leases  map[string]memLease
	cancels map[string]bool
	hub     *hub
	push    map[string][]memPush // by task id, in creation order
	now     func() time.Time
}

// memPush is a push config with its delivery cursor.
type memPush struct {
	cfg       a2a.TaskPushNotificationConfig
	delivered int64
	attempts  int
	next      time.Time
	lastErr   string
}

type memTask struct {
	owner  string
	rec    taskmanager.TaskRecord
	events []taskmanager.StoredEvent
}

type memLease struct {
	holder string
	until  time.Time
}

var (
	_ taskmanager.Store                 = (*Memory)(nil)
	_ taskmanager.LeasedTaskCreator     = (*Memory)(nil)
	_ taskmanager.LeaseReleasingUpdater = (*Memory)(nil)
	_ taskmanager.EventfulTaskCreator   = (*Memory)(nil)
)

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory {
	return &Memory{
		tasks:   map[string]*memTask{},
		leases:  map[string]memLease{},
		cancels: map[string]bool{},
		hub:     newHub(),
		push:    map[string][]memPush{},
		now:     time.Now,
	}
}

// lookup returns the task if it exists and belongs to owner. Caller holds mu.
func (m *Memory) lookup(owner, id string) (*memTask, error) {
	t, ok := m.tasks[id]
	if !ok || t.owner != owner {
		return nil, taskNotFound(id)
	}
	return t, nil
}

// CreateTask implements taskmanager.TaskStore.
func (m *Memory) CreateTask(_ context.Context, owner string, t *a2a.Task) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.tasks[t.ID]; ok {
		return taskmanager.ErrExists
	}
	// Kept as given (see Memory): the writer hands the task over.
	m.tasks[t.ID] = &memTask{owner: owner, rec: taskmanager.TaskRecord{Task: *t, Version: 1}}
	m.notifyLocked(t.ID)
	return nil
}

// CreateLeasedTask implements taskmanager.LeasedTaskCreator.
func (m *Memory) CreateLeasedTask(_ context.Context, owner string, t *a2a.Task, holder string, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.tasks[t.ID]; ok {
		return taskmanager.ErrExists
	}
	if !m.acquireLocked(t.ID, holder, ttl) {
		return taskmanager.ErrLeaseHeld
	}
	m.tasks[t.ID] = &memTask{owner: owner, rec: taskmanager.TaskRecord{Task: *t, Version: 1}}
	m.notifyLocked(t.ID)
	return nil
}

// CreateTaskWithEvents implements taskmanager.EventfulTaskCreator.
func (m *Memory) CreateTaskWithEvents(_ context.Context, owner string, t *a2a.Task, events []a2a.StreamResponse, holder string, ttl time.Duration) (*taskmanager.TaskRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.tasks[t.ID]; ok {
		return nil, taskmanager.ErrExists
	}
	if holder != "" && !m.acquireLocked(t.ID, holder, ttl) {
		return nil, taskmanager.ErrLeaseHeld
	}
	// Kept as given (see Memory), as CreateTask then UpdateTask would.
	mt := &memTask{owner: owner, rec: taskmanager.TaskRecord{Task: *t, Version: 2, LastSeq: int64(len(events))},
		events: make([]taskmanager.StoredEvent, len(events))}
	for i := range events {
		mt.events[i] = taskmanager.StoredEvent{Seq: int64(i + 1), Event: events[i]}
	}
	m.tasks[t.ID] = mt
	m.notifyLocked(t.ID)
	rec := mt.rec
	return &rec, nil
}

// GetTask implements taskmanager.TaskStore.
func (m *Memory) GetTask(_ context.Context, owner, id string) (*taskmanager.TaskRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, err := m.lookup(owner, id)
	if err != nil {
		return nil, err
	}
	rec := t.rec
	rec.Task = *t.rec.Task.Clone()
	return &rec, nil
}

// UpdateTask implements taskmanager.TaskStore.
func (m *Memory) UpdateTask(_ context.Context, owner string, nt *a2a.Task, version int64, events []a2a.StreamResponse) (*taskmanager.TaskRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.updateLocked(owner, nt, version, events)
}

// UpdateTaskReleasing implements taskmanager.LeaseReleasingUpdater.
func (m *Memory) UpdateTaskReleasing(_ context.Context, owner string, nt *a2a.Task, version int64, events []a2a.StreamResponse, holder string) (*taskmanager.TaskRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rec, err := m.updateLocked(owner, nt, version, events)
	if err == nil {
		if l, ok := m.leases[nt.ID]; ok && l.holder == holder {
			delete(m.leases, nt.ID)
		}
	}
	return rec, err
}

func (m *Memory) updateLocked(owner string, nt *a2a.Task, version int64, events []a2a.StreamResponse) (*taskmanager.TaskRecord, error) {
	t, err := m.lookup(owner, nt.ID)
	if err != nil {
		return nil, err
	}
	if t.rec.Version != version {
		return nil, taskmanager.ErrConflict
	}
	for i := range events {
		t.rec.LastSeq++
		t.events = append(t.events, taskmanager.StoredEvent{Seq: t.rec.LastSeq, Event: events[i]})
	}
	t.rec.Version++
	t.rec.Task = *nt
	m.notifyLocked(nt.ID)
	rec := t.rec
	return &rec, nil
}

// Events implements taskmanager.TaskStore.
func (m *Memory) Events(_ context.Context, owner, taskID string, after int64, limit int) ([]taskmanager.StoredEvent, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, err := m.lookup(owner, taskID)
	if err != nil {
		return nil, err
	}
	// Sequence numbers start at 1 and have no gaps, so the index is seq-1.
	start := int(after)
	if start < 0 {
		start = 0
	}
	if start >= len(t.events) {
		return nil, nil
	}
	end := len(t.events)
	if limit > 0 && start+limit < end {
		end = start + limit
	}
	out := make([]taskmanager.StoredEvent, 0, end-start)
	for _, e := range t.events[start:end] {
		out = append(out, taskmanager.StoredEvent{Seq: e.Seq, Event: e.Event.Clone()})
	}
	return out, nil
}

// ListTasks implements taskmanager.TaskStore.
func (m *Memory) ListTasks(_ context.Context, owner string, q taskmanager.TaskQuery) (*taskmanager.TaskPage, error) {
	m.mu.Lock()
	var match []*a2a.Task
	for _, t := range m.tasks {
		if t.owner != owner || !taskmanager.MatchesQuery(&t.rec.Task, q) {
			continue
		}
		match = append(match, &t.rec.Task)
	}
	sort.Slice(match, func(i, j int) bool { return taskmanager.ListOrderLess(match[i], match[j]) })
	page := &taskmanager.TaskPage{Total: len(match)}
	for _, t := range match {
		if q.After != nil && !taskmanager.AfterCursor(t, *q.After) {
			continue
		}
		if q.Limit > 0 && len(page.Tasks) == q.Limit {
			page.More = true
			break
		}
		page.Tasks = append(page.Tasks, *t.Clone())
	}
	m.mu.Unlock()
	return page, nil
}

// Watch implements taskmanager.TaskStore.
func (m *Memory) Watch(_ context.Context, taskID string) (<-chan struct{}, func()) {
	return m.hub.watch(taskID)
}

func (m *Memory) notifyLocked(taskID string) { m.hub.notify(taskID) }

// Close implements io.Closer; it does nothing.
func (m *Memory) Close() error { return nil }

// AcquireLease implements taskmanager.LeaseStore.
func (m *Memory) AcquireLease(_ context.Context, taskID, holder string, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.acquireLocked(taskID, holder, ttl), nil
}

// acquireLocked takes taskID's run lease for holder if it is free, expired
// or holder's already; m.mu is held.
func (m *Memory) acquireLocked(taskID, holder string, ttl time.Duration) bool {
	now := m.now()
	if l, ok := m.leases[taskID]; ok && l.holder != holder && now.Before(l.until) {
		return false
	}
	m.leases[taskID] = memLease{holder: holder, until: now.Add(ttl)}
	return true
}

// RenewLease implements taskmanager.LeaseStore.
func (m *Memory) RenewLease(_ context.Context, taskID, holder string, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	l, ok := m.leases[taskID]
	if !ok || l.holder != holder || !now.Before(l.until) {
		return false, nil
	}
	m.leases[taskID] = memLease{holder: holder, until: now.Add(ttl)}
	return true, nil
}

// ReleaseLease implements taskmanager.LeaseStore.
func (m *Memory) ReleaseLease(_ context.Context, taskID, holder string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if l, ok := m.leases[taskID]; ok && l.holder == holder {
		delete(m.leases, taskID)
	}
	return nil
}

// RequestCancel implements taskmanager.LeaseStore.
func (m *Memory) RequestCancel(_ context.Context, taskID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cancels[taskID] = true
	m.notifyLocked(taskID)
	return nil
}

// CancelRequested implements taskmanager.LeaseStore.
func (m *Memory) CancelRequested(_ context.Context, taskID string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cancels[taskID], nil
}

// PutPushConfig implements taskmanager.PushConfigStore. A new config's cursor
// starts at the task's last event: it gets only later events.
func (m *Memory) PutPushConfig(_ context.Context, owner string, cfg *a2a.TaskPushNotificationConfig) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, err := m.lookup(owner, cfg.TaskID)
	if err != nil {
		return err
	}
	list := m.push[cfg.TaskID]
	for i := range list {
		if list[i].cfg.ID == cfg.ID {
			list[i].cfg = *cfg
			return nil
		}
	}
	m.push[cfg.TaskID] = append(list, memPush{cfg: *cfg, delivered: t.rec.LastSeq})
	return nil
}

// GetPushConfig implements taskmanager.PushConfigStore.
func (m *Memory) GetPushConfig(_ context.Context, owner, taskID, id string) (*a2a.TaskPushNotificationConfig, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := m.lookup(owner, taskID); err != nil {
		return nil, err
	}
	for _, p := range m.push[taskID] {
		if p.cfg.ID == id {
			c := p.cfg
			return &c, nil
		}
	}
	return nil, pushNotFound(taskID, id)
}

// ListPushConfigs implements taskmanager.PushConfigStore.
func (m *Memory) ListPushConfigs(_ context.Context, owner, taskID string) ([]a2a.TaskPushNotificationConfig, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := m.lookup(owner, taskID); err != nil {
		return nil, err
	}
	var out []a2a.TaskPushNotificationConfig
	for _, p := range m.push[taskID] {
		out = append(out, p.cfg)
	}
	return out, nil
}

// DeletePushConfig implements taskmanager.PushConfigStore.
func (m *Memory) DeletePushConfig(_ context.Context, owner, taskID, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := m.lookup(owner, taskID); err != nil {
		return err
	}
	list := m.push[taskID]
	for i := range list {
		if list[i].cfg.ID == id {
			m.push[taskID] = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	return nil
}

// DuePushes implements taskmanager.PushCursorStore.
func (m *Memory) DuePushes(_ context.Context, now time.Time, limit int) ([]taskmanager.PushDue, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	type due struct {
		d    taskmanager.PushDue
		next time.Time
	}
	var all []due
	for taskID, list := range m.push {
		t := m.tasks[taskID]
		if t == nil {
			continue
		}
		for _, p := range list {
			if p.delivered >= t.rec.LastSeq || p.next.After(now) {
				continue
			}
			all = append(all, due{taskmanager.PushDue{Owner: t.owner, Config: p.cfg, Delivered: p.delivered, LastSeq: t.rec.LastSeq, Attempts: p.attempts}, p.next})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if !all[i].next.Equal(all[j].next) {
			return all[i].next.Before(all[j].next)
		}
		if all[i].d.Config.TaskID != all[j].d.Config.TaskID {
			return all[i].d.Config.TaskID < all[j].d.Config.TaskID
		}
		return all[i].d.Config.ID < all[j].d.Config.ID
	})
	if limit > 0 && len(all) > limit {
		all = all[:limit]
	}
	out := make([]taskmanager.PushDue, len(all))
	for i := range all {
		out[i] = all[i].d
	}
	return out, nil
}

// pushLocked finds a push config of owner's task. Caller holds mu.
func (m *Memory) pushLocked(owner, taskID, id string) (*memPush, error) {
	if _, err := m.lookup(owner, taskID); err != nil {
		return nil, err
	}
	list := m.push[taskID]
	for i := range list {
		if list[i].cfg.ID == id {
			return &list[i], nil
		}
	}
	return nil, pushNotFound(taskID, id)
}

// AdvancePush implements taskmanager.PushCursorStore.
func (m *Memory) AdvancePush(_ context.Context, owner, taskID, configID string, seq int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, err := m.pushLocked(owner, taskID, configID)
	if err != nil {
		return err
	}
	p.delivered = max(p.delivered, seq)
	p.attempts, p.next, p.lastErr = 0, time.Time{}, ""
	return nil
}

// FailPush implements taskmanager.PushCursorStore.
func (m *Memory) FailPush(_ context.Context, owner, taskID, configID string, next time.Time, lastErr string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, err := m.pushLocked(owner, taskID, configID)
	if err != nil {
		return err
	}
	p.attempts++
	p.next, p.lastErr = next, lastErr
	return nil
}

// Prune implements taskmanager.MaintenanceStore.
func (m *Memory) Prune(_ context.Context, finishedBefore time.Time) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for id, t := range m.tasks {
		st := &t.rec.Task.Status
		if !st.State.Terminal() || (st.Timestamp != nil && !st.Timestamp.Before(finishedBefore)) {
			continue
		}
		delete(m.tasks, id)
		delete(m.push, id)
		delete(m.leases, id)
		delete(m.cancels, id)
		n++
	}
	return n, nil
}

// Orphans implements taskmanager.MaintenanceStore.
func (m *Memory) Orphans(_ context.Context, after string, limit int) ([]taskmanager.TaskRef, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	var out []taskmanager.TaskRef
	for id, t := range m.tasks {
		if id <= after || !orphanable(t.rec.Task.Status.State) {
			continue
		}
		if l, ok := m.leases[id]; ok && now.Before(l.until) {
			continue
		}
		out = append(out, taskmanager.TaskRef{Owner: t.owner, ID: id})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}
