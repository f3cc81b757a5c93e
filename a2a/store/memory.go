// Package store holds the task stores behind a2a.Store: in memory (tests and
// throw-away runs), SQLite (the embedded default) and PostgreSQL (replicas).
package store

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// Memory is an in-process a2a.Store. It loses everything on exit.
type Memory struct {
	mu       sync.Mutex
	tasks    map[string]*memTask
	leases   map[string]memLease
	cancels  map[string]bool
	watchers map[string]map[chan struct{}]struct{}
	push     map[string][]a2a.TaskPushNotificationConfig // by task id
	now      func() time.Time
}

type memTask struct {
	owner  string
	rec    a2a.TaskRecord
	events []a2a.StoredEvent
}

type memLease struct {
	holder string
	until  time.Time
}

var _ a2a.Store = (*Memory)(nil)

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory {
	return &Memory{
		tasks:    map[string]*memTask{},
		leases:   map[string]memLease{},
		cancels:  map[string]bool{},
		watchers: map[string]map[chan struct{}]struct{}{},
		push:     map[string][]a2a.TaskPushNotificationConfig{},
		now:      time.Now,
	}
}

// lookup returns the task if it exists and belongs to owner. Caller holds mu.
func (m *Memory) lookup(owner, id string) (*memTask, error) {
	t, ok := m.tasks[id]
	if !ok || t.owner != owner {
		return nil, a2a.ErrTaskNotFound.Withf("task %s not found", id)
	}
	return t, nil
}

// CreateTask implements a2a.TaskStore.
func (m *Memory) CreateTask(_ context.Context, owner string, t *a2a.Task) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.tasks[t.ID]; ok {
		return a2a.ErrExists
	}
	m.tasks[t.ID] = &memTask{owner: owner, rec: a2a.TaskRecord{Task: *t.Clone(), Version: 1}}
	m.notifyLocked(t.ID)
	return nil
}

// GetTask implements a2a.TaskStore.
func (m *Memory) GetTask(_ context.Context, owner, id string) (*a2a.TaskRecord, error) {
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

// UpdateTask implements a2a.TaskStore.
func (m *Memory) UpdateTask(_ context.Context, owner string, nt *a2a.Task, version int64, events []a2a.StreamResponse) (*a2a.TaskRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, err := m.lookup(owner, nt.ID)
	if err != nil {
		return nil, err
	}
	if t.rec.Version != version {
		return nil, a2a.ErrConflict
	}
	for i := range events {
		t.rec.LastSeq++
		t.events = append(t.events, a2a.StoredEvent{Seq: t.rec.LastSeq, Event: events[i].Clone()})
	}
	t.rec.Version++
	t.rec.Task = *nt.Clone()
	m.notifyLocked(nt.ID)
	rec := t.rec
	rec.Task = *nt.Clone()
	return &rec, nil
}

// Events implements a2a.TaskStore.
func (m *Memory) Events(_ context.Context, owner, taskID string, after int64, limit int) ([]a2a.StoredEvent, error) {
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
	out := make([]a2a.StoredEvent, 0, end-start)
	for _, e := range t.events[start:end] {
		out = append(out, a2a.StoredEvent{Seq: e.Seq, Event: e.Event.Clone()})
	}
	return out, nil
}

// ListTasks implements a2a.TaskStore.
func (m *Memory) ListTasks(_ context.Context, owner string, q a2a.TaskQuery) (*a2a.TaskPage, error) {
	m.mu.Lock()
	var match []*a2a.Task
	for _, t := range m.tasks {
		if t.owner != owner || !a2a.MatchesQuery(&t.rec.Task, q) {
			continue
		}
		match = append(match, &t.rec.Task)
	}
	sort.Slice(match, func(i, j int) bool { return a2a.ListOrderLess(match[i], match[j]) })
	page := &a2a.TaskPage{Total: len(match)}
	for _, t := range match {
		if q.After != nil && !a2a.AfterCursor(t, *q.After) {
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

// Watch implements a2a.TaskStore.
func (m *Memory) Watch(_ context.Context, taskID string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	m.mu.Lock()
	set := m.watchers[taskID]
	if set == nil {
		set = map[chan struct{}]struct{}{}
		m.watchers[taskID] = set
	}
	set[ch] = struct{}{}
	m.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			m.mu.Lock()
			delete(m.watchers[taskID], ch)
			if len(m.watchers[taskID]) == 0 {
				delete(m.watchers, taskID)
			}
			m.mu.Unlock()
		})
	}
}

func (m *Memory) notifyLocked(taskID string) {
	for ch := range m.watchers[taskID] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// AcquireLease implements a2a.LeaseStore.
func (m *Memory) AcquireLease(_ context.Context, taskID, holder string, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if l, ok := m.leases[taskID]; ok && l.holder != holder && now.Before(l.until) {
		return false, nil
	}
	m.leases[taskID] = memLease{holder: holder, until: now.Add(ttl)}
	return true, nil
}

// RenewLease implements a2a.LeaseStore.
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

// ReleaseLease implements a2a.LeaseStore.
func (m *Memory) ReleaseLease(_ context.Context, taskID, holder string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if l, ok := m.leases[taskID]; ok && l.holder == holder {
		delete(m.leases, taskID)
	}
	return nil
}

// RequestCancel implements a2a.LeaseStore.
func (m *Memory) RequestCancel(_ context.Context, taskID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cancels[taskID] = true
	m.notifyLocked(taskID)
	return nil
}

// CancelRequested implements a2a.LeaseStore.
func (m *Memory) CancelRequested(_ context.Context, taskID string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cancels[taskID], nil
}

// PutPushConfig implements a2a.PushConfigStore.
func (m *Memory) PutPushConfig(_ context.Context, owner string, cfg *a2a.TaskPushNotificationConfig) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := m.lookup(owner, cfg.TaskID); err != nil {
		return err
	}
	list := m.push[cfg.TaskID]
	for i := range list {
		if list[i].ID == cfg.ID {
			list[i] = *cfg
			return nil
		}
	}
	m.push[cfg.TaskID] = append(list, *cfg)
	return nil
}

// GetPushConfig implements a2a.PushConfigStore.
func (m *Memory) GetPushConfig(_ context.Context, owner, taskID, id string) (*a2a.TaskPushNotificationConfig, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := m.lookup(owner, taskID); err != nil {
		return nil, err
	}
	for _, c := range m.push[taskID] {
		if c.ID == id {
			c := c
			return &c, nil
		}
	}
	return nil, a2a.ErrTaskNotFound.Withf("push notification config %s not found for task %s", id, taskID)
}

// ListPushConfigs implements a2a.PushConfigStore.
func (m *Memory) ListPushConfigs(_ context.Context, owner, taskID string) ([]a2a.TaskPushNotificationConfig, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := m.lookup(owner, taskID); err != nil {
		return nil, err
	}
	return append([]a2a.TaskPushNotificationConfig(nil), m.push[taskID]...), nil
}

// DeletePushConfig implements a2a.PushConfigStore.
func (m *Memory) DeletePushConfig(_ context.Context, owner, taskID, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := m.lookup(owner, taskID); err != nil {
		return err
	}
	list := m.push[taskID]
	for i := range list {
		if list[i].ID == id {
			m.push[taskID] = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	return nil
}
