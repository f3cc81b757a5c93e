package gateway

import (
	"context"
	"errors"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// countingStore is an a2a.Store that counts its failures in
// bridge_store_errors_total, by method name. Protocol outcomes are not
// failures: see storeFailed.
type countingStore struct {
	a2a.Store
	m *Metrics
}

// countStoreErrors wraps st so that its failures are counted on m (read at
// each failure: the observe series exist only once the handler is built).
func countStoreErrors(st a2a.Store, m *Metrics) a2a.Store {
	if st == nil || m == nil {
		return st
	}
	return &countingStore{Store: st, m: m}
}

// storeFailed reports whether err is a failure of the store itself, not an
// answer the protocol expects (a missing task, a lost race, a duplicate
// id) nor the caller giving up.
func storeFailed(err error) bool {
	switch {
	case err == nil,
		errors.Is(err, a2a.ErrTaskNotFound),
		errors.Is(err, a2a.ErrConflict),
		errors.Is(err, a2a.ErrExists),
		errors.Is(err, context.Canceled),
		errors.Is(err, context.DeadlineExceeded):
		return false
	}
	return true
}

func (s *countingStore) count(op string, err error) {
	if storeFailed(err) {
		s.m.series().StoreError(op)
	}
}

// CreateTask implements a2a.TaskStore.
func (s *countingStore) CreateTask(ctx context.Context, owner string, t *a2a.Task) error {
	err := s.Store.CreateTask(ctx, owner, t)
	s.count("CreateTask", err)
	return err
}

// CreateLeasedTask implements a2a.LeasedTaskCreator (in one write when the
// store underneath can).
func (s *countingStore) CreateLeasedTask(ctx context.Context, owner string, t *a2a.Task, holder string, ttl time.Duration) error {
	err := a2a.CreateLeasedTask(ctx, s.Store, owner, t, holder, ttl)
	if !errors.Is(err, a2a.ErrLeaseHeld) {
		s.count("CreateLeasedTask", err)
	}
	return err
}

// UpdateTaskReleasing implements a2a.LeaseReleasingUpdater (in one write
// when the store underneath can; else the update, then the release).
func (s *countingStore) UpdateTaskReleasing(ctx context.Context, owner string, t *a2a.Task, version int64, events []a2a.StreamResponse, holder string) (*a2a.TaskRecord, error) {
	lr, ok := s.Store.(a2a.LeaseReleasingUpdater)
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

// GetTask implements a2a.TaskStore.
func (s *countingStore) GetTask(ctx context.Context, owner, id string) (*a2a.TaskRecord, error) {
	r, err := s.Store.GetTask(ctx, owner, id)
	s.count("GetTask", err)
	return r, err
}

// UpdateTask implements a2a.TaskStore.
func (s *countingStore) UpdateTask(ctx context.Context, owner string, t *a2a.Task, version int64, events []a2a.StreamResponse) (*a2a.TaskRecord, error) {
	r, err := s.Store.UpdateTask(ctx, owner, t, version, events)
	s.count("UpdateTask", err)
	return r, err
}

// Events implements a2a.TaskStore.
func (s *countingStore) Events(ctx context.Context, owner, taskID string, after int64, limit int) ([]a2a.StoredEvent, error) {
	evs, err := s.Store.Events(ctx, owner, taskID, after, limit)
	s.count("Events", err)
	return evs, err
}

// ListTasks implements a2a.TaskStore.
func (s *countingStore) ListTasks(ctx context.Context, owner string, q a2a.TaskQuery) (*a2a.TaskPage, error) {
	p, err := s.Store.ListTasks(ctx, owner, q)
	s.count("ListTasks", err)
	return p, err
}

// Watch implements a2a.TaskStore (it cannot fail: nothing to count).
func (s *countingStore) Watch(ctx context.Context, taskID string) (<-chan struct{}, func()) {
	return s.Store.Watch(ctx, taskID)
}

// AcquireLease implements a2a.LeaseStore.
func (s *countingStore) AcquireLease(ctx context.Context, taskID, holder string, ttl time.Duration) (bool, error) {
	ok, err := s.Store.AcquireLease(ctx, taskID, holder, ttl)
	s.count("AcquireLease", err)
	return ok, err
}

// RenewLease implements a2a.LeaseStore.
func (s *countingStore) RenewLease(ctx context.Context, taskID, holder string, ttl time.Duration) (bool, error) {
	ok, err := s.Store.RenewLease(ctx, taskID, holder, ttl)
	s.count("RenewLease", err)
	return ok, err
}

// ReleaseLease implements a2a.LeaseStore.
func (s *countingStore) ReleaseLease(ctx context.Context, taskID, holder string) error {
	err := s.Store.ReleaseLease(ctx, taskID, holder)
	s.count("ReleaseLease", err)
	return err
}

// RequestCancel implements a2a.LeaseStore.
func (s *countingStore) RequestCancel(ctx context.Context, taskID string) error {
	err := s.Store.RequestCancel(ctx, taskID)
	s.count("RequestCancel", err)
	return err
}

// CancelRequested implements a2a.LeaseStore.
func (s *countingStore) CancelRequested(ctx context.Context, taskID string) (bool, error) {
	ok, err := s.Store.CancelRequested(ctx, taskID)
	s.count("CancelRequested", err)
	return ok, err
}

// PutPushConfig implements a2a.PushConfigStore.
func (s *countingStore) PutPushConfig(ctx context.Context, owner string, cfg *a2a.TaskPushNotificationConfig) error {
	err := s.Store.PutPushConfig(ctx, owner, cfg)
	s.count("PutPushConfig", err)
	return err
}

// GetPushConfig implements a2a.PushConfigStore.
func (s *countingStore) GetPushConfig(ctx context.Context, owner, taskID, id string) (*a2a.TaskPushNotificationConfig, error) {
	c, err := s.Store.GetPushConfig(ctx, owner, taskID, id)
	s.count("GetPushConfig", err)
	return c, err
}

// ListPushConfigs implements a2a.PushConfigStore.
func (s *countingStore) ListPushConfigs(ctx context.Context, owner, taskID string) ([]a2a.TaskPushNotificationConfig, error) {
	cs, err := s.Store.ListPushConfigs(ctx, owner, taskID)
	s.count("ListPushConfigs", err)
	return cs, err
}

// DeletePushConfig implements a2a.PushConfigStore.
func (s *countingStore) DeletePushConfig(ctx context.Context, owner, taskID, id string) error {
	err := s.Store.DeletePushConfig(ctx, owner, taskID, id)
	s.count("DeletePushConfig", err)
	return err
}

// DuePushes implements a2a.PushCursorStore.
func (s *countingStore) DuePushes(ctx context.Context, now time.Time, limit int) ([]a2a.PushDue, error) {
	d, err := s.Store.DuePushes(ctx, now, limit)
	s.count("DuePushes", err)
	return d, err
}

// AdvancePush implements a2a.PushCursorStore.
func (s *countingStore) AdvancePush(ctx context.Context, owner, taskID, configID string, seq int64) error {
	err := s.Store.AdvancePush(ctx, owner, taskID, configID, seq)
	s.count("AdvancePush", err)
	return err
}

// FailPush implements a2a.PushCursorStore.
func (s *countingStore) FailPush(ctx context.Context, owner, taskID, configID string, next time.Time, lastErr string) error {
	err := s.Store.FailPush(ctx, owner, taskID, configID, next, lastErr)
	s.count("FailPush", err)
	return err
}

// Prune implements a2a.MaintenanceStore.
func (s *countingStore) Prune(ctx context.Context, finishedBefore time.Time) (int, error) {
	n, err := s.Store.Prune(ctx, finishedBefore)
	s.count("Prune", err)
	return n, err
}

// Orphans implements a2a.MaintenanceStore.
func (s *countingStore) Orphans(ctx context.Context, after string, limit int) ([]a2a.TaskRef, error) {
	refs, err := s.Store.Orphans(ctx, after, limit)
	s.count("Orphans", err)
	return refs, err
}

// restarted is an upstream.Config.OnRestart that counts the restarts of
// the upstream labelled label in bridge_upstream_restarts_total.
func (m *Metrics) restarted(label string) func(string) {
	return func(string) { m.series().UpstreamRestarted(label) }
}

// CountTasks implements a2a.TaskCounter when the store underneath does.
func (s *countingStore) CountTasks(ctx context.Context) (map[a2a.TaskState]int64, error) {
	c, ok := s.Store.(a2a.TaskCounter)
	if !ok {
		return nil, errors.New("gateway: the store does not count its tasks")
	}
	counts, err := c.CountTasks(ctx)
	s.count("CountTasks", err)
	return counts, err
}
