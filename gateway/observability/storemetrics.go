package observability

import (
	"context"
	"errors"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
)

// countingStore is an taskmanager.Store that counts its failures in
// bridge_store_errors_total, by method name. Protocol outcomes are not
// failures: see storeFailed.
type countingStore struct {
	taskmanager.Store
	m *Metrics
}

// CountStoreErrors wraps st so that its failures are counted on m (read at
// each failure: the observe series exist only once the handler is built).
func CountStoreErrors(st taskmanager.Store, m *Metrics) taskmanager.Store {
	if st == nil || m == nil {
		return st
	}
	cs := &countingStore{Store: st, m: m}
	if ec, ok := st.(taskmanager.EventfulTaskCreator); ok {
		return &countingEventfulStore{countingStore: cs, ec: ec}
	}
	return cs
}

// countingEventfulStore is a countingStore over a store that is a
// taskmanager.EventfulTaskCreator: the wrapper is one only when the store
// is, so the task manager falls back to two writes for stores that are not.
type countingEventfulStore struct {
	*countingStore
	ec taskmanager.EventfulTaskCreator
}

// storeFailed reports whether err is a failure of the store itself, not an
// answer the protocol expects (a missing task, a lost race, a duplicate
// id) nor the caller giving up.
func storeFailed(err error) bool {
	switch {
	case err == nil,
		errors.Is(err, a2a.ErrTaskNotFound),
		errors.Is(err, taskmanager.ErrConflict),
		errors.Is(err, taskmanager.ErrExists),
		errors.Is(err, context.Canceled),
		errors.Is(err, context.DeadlineExceeded):
		return false
	}
	return true
}

func (s *countingStore) count(op string, err error) {
	if storeFailed(err) {
		s.m.Series().StoreError(op)
	}
}

// CreateTask implements taskmanager.TaskStore.
func (s *countingStore) CreateTask(ctx context.Context, owner string, t *a2a.Task) error {
	err := s.Store.CreateTask(ctx, owner, t)
	s.count("CreateTask", err)
	return err
}

// CreateLeasedTask implements taskmanager.LeasedTaskCreator (in one write when the
// store underneath can).
func (s *countingStore) CreateLeasedTask(ctx context.Context, owner string, t *a2a.Task, holder string, ttl time.Duration) error {
	err := taskmanager.CreateLeasedTask(ctx, s.Store, owner, t, holder, ttl)
	if !errors.Is(err, taskmanager.ErrLeaseHeld) {
		s.count("CreateLeasedTask", err)
	}
	return err
}

// CreateTaskWithEvents implements taskmanager.EventfulTaskCreator (in one
// write when the store underneath can).
func (s *countingEventfulStore) CreateTaskWithEvents(ctx context.Context, owner string, t *a2a.Task, events []a2a.StreamResponse, holder string, ttl time.Duration) (*taskmanager.TaskRecord, error) {
	r, err := s.ec.CreateTaskWithEvents(ctx, owner, t, events, holder, ttl)
	if !errors.Is(err, taskmanager.ErrLeaseHeld) {
		s.count("CreateTaskWithEvents", err)
	}
	return r, err
}

// UpdateTaskReleasing implements taskmanager.LeaseReleasingUpdater (in one write
// when the store underneath can; else the update, then the release).
func (s *countingStore) UpdateTaskReleasing(ctx context.Context, owner string, t *a2a.Task, version int64, events []a2a.StreamResponse, holder string) (*taskmanager.TaskRecord, error) {
	lr, ok := s.Store.(taskmanager.LeaseReleasingUpdater)
	if !ok {
		r, err := s.UpdateTask(ctx, owner, t, version, events)
		if err == nil {
			// Counted if it fails; a lease left on a task the update ended
			// holds nothing up and runs out.
			_ = s.ReleaseLease(ctx, t.ID, holder)
		}
		return r, err
	}
	r, err := lr.UpdateTaskReleasing(ctx, owner, t, version, events, holder)
	s.count("UpdateTaskReleasing", err)
	return r, err
}

// GetTask implements taskmanager.TaskStore.
func (s *countingStore) GetTask(ctx context.Context, owner, id string) (*taskmanager.TaskRecord, error) {
	r, err := s.Store.GetTask(ctx, owner, id)
	s.count("GetTask", err)
	return r, err
}

// UpdateTask implements taskmanager.TaskStore.
func (s *countingStore) UpdateTask(ctx context.Context, owner string, t *a2a.Task, version int64, events []a2a.StreamResponse) (*taskmanager.TaskRecord, error) {
	r, err := s.Store.UpdateTask(ctx, owner, t, version, events)
	s.count("UpdateTask", err)
	return r, err
}

// Events implements taskmanager.TaskStore.
func (s *countingStore) Events(ctx context.Context, owner, taskID string, after int64, limit int) ([]taskmanager.StoredEvent, error) {
	evs, err := s.Store.Events(ctx, owner, taskID, after, limit)
	s.count("Events", err)
	return evs, err
}

// ListTasks implements taskmanager.TaskStore.
func (s *countingStore) ListTasks(ctx context.Context, owner string, q taskmanager.TaskQuery) (*taskmanager.TaskPage, error) {
	p, err := s.Store.ListTasks(ctx, owner, q)
	s.count("ListTasks", err)
	return p, err
}

// Watch implements taskmanager.TaskStore (it cannot fail: nothing to count).
func (s *countingStore) Watch(ctx context.Context, taskID string) (<-chan struct{}, func()) {
	return s.Store.Watch(ctx, taskID)
}

// AcquireLease implements taskmanager.LeaseStore.
func (s *countingStore) AcquireLease(ctx context.Context, taskID, holder string, ttl time.Duration) (bool, error) {
	ok, err := s.Store.AcquireLease(ctx, taskID, holder, ttl)
	s.count("AcquireLease", err)
	return ok, err
}

// RenewLease implements taskmanager.LeaseStore.
func (s *countingStore) RenewLease(ctx context.Context, taskID, holder string, ttl time.Duration) (bool, error) {
	ok, err := s.Store.RenewLease(ctx, taskID, holder, ttl)
	s.count("RenewLease", err)
	return ok, err
}

// ReleaseLease implements taskmanager.LeaseStore.
func (s *countingStore) ReleaseLease(ctx context.Context, taskID, holder string) error {
	err := s.Store.ReleaseLease(ctx, taskID, holder)
	s.count("ReleaseLease", err)
	return err
}

// RequestCancel implements taskmanager.LeaseStore.
func (s *countingStore) RequestCancel(ctx context.Context, taskID string) error {
	err := s.Store.RequestCancel(ctx, taskID)
	s.count("RequestCancel", err)
	return err
}

// CancelRequested implements taskmanager.LeaseStore.
func (s *countingStore) CancelRequested(ctx context.Context, taskID string) (bool, error) {
	ok, err := s.Store.CancelRequested(ctx, taskID)
	s.count("CancelRequested", err)
	return ok, err
}

// PutPushConfig implements taskmanager.PushConfigStore.
func (s *countingStore) PutPushConfig(ctx context.Context, owner string, cfg *a2a.TaskPushNotificationConfig) error {
	err := s.Store.PutPushConfig(ctx, owner, cfg)
	s.count("PutPushConfig", err)
	return err
}

// GetPushConfig implements taskmanager.PushConfigStore.
func (s *countingStore) GetPushConfig(ctx context.Context, owner, taskID, id string) (*a2a.TaskPushNotificationConfig, error) {
	c, err := s.Store.GetPushConfig(ctx, owner, taskID, id)
	s.count("GetPushConfig", err)
	return c, err
}

// ListPushConfigs implements taskmanager.PushConfigStore.
func (s *countingStore) ListPushConfigs(ctx context.Context, owner, taskID string) ([]a2a.TaskPushNotificationConfig, error) {
	cs, err := s.Store.ListPushConfigs(ctx, owner, taskID)
	s.count("ListPushConfigs", err)
	return cs, err
}

// DeletePushConfig implements taskmanager.PushConfigStore.
func (s *countingStore) DeletePushConfig(ctx context.Context, owner, taskID, id string) error {
	err := s.Store.DeletePushConfig(ctx, owner, taskID, id)
	s.count("DeletePushConfig", err)
	return err
}

// DuePushes implements taskmanager.PushCursorStore.
func (s *countingStore) DuePushes(ctx context.Context, now time.Time, limit int) ([]taskmanager.PushDue, error) {
	d, err := s.Store.DuePushes(ctx, now, limit)
	s.count("DuePushes", err)
	return d, err
}

// AdvancePush implements taskmanager.PushCursorStore.
func (s *countingStore) AdvancePush(ctx context.Context, owner, taskID, configID string, seq int64) error {
	err := s.Store.AdvancePush(ctx, owner, taskID, configID, seq)
	s.count("AdvancePush", err)
	return err
}

// FailPush implements taskmanager.PushCursorStore.
func (s *countingStore) FailPush(ctx context.Context, owner, taskID, configID string, next time.Time, lastErr string) error {
	err := s.Store.FailPush(ctx, owner, taskID, configID, next, lastErr)
	s.count("FailPush", err)
	return err
}

// Prune implements taskmanager.MaintenanceStore.
func (s *countingStore) Prune(ctx context.Context, finishedBefore time.Time) (int, error) {
	n, err := s.Store.Prune(ctx, finishedBefore)
	s.count("Prune", err)
	return n, err
}

// Orphans implements taskmanager.MaintenanceStore.
func (s *countingStore) Orphans(ctx context.Context, after string, limit int) ([]taskmanager.TaskRef, error) {
	refs, err := s.Store.Orphans(ctx, after, limit)
	s.count("Orphans", err)
	return refs, err
}

// Restarted is a connector.Config.OnRestart that counts the restarts of
// the upstream labelled label in bridge_upstream_restarts_total.
func (m *Metrics) Restarted(label string) func(string) {
	return func(string) { m.Series().UpstreamRestarted(label) }
}

// CountTasks implements taskmanager.TaskCounter when the store underneath does.
func (s *countingStore) CountTasks(ctx context.Context) (map[a2a.TaskState]int64, error) {
	c, ok := s.Store.(taskmanager.TaskCounter)
	if !ok {
		return nil, errors.New("gateway: the store does not count its tasks")
	}
	counts, err := c.CountTasks(ctx)
	s.count("CountTasks", err)
	return counts, err
}
