package observability

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
)

// failingStore answers every call it overrides with err; the embedded nil
// Store panics on anything else, so a test notices a missed delegation.
type failingStore struct {
	taskmanager.Store
	err   error
	calls int
}

func (f *failingStore) GetTask(context.Context, string, string) (*taskmanager.TaskRecord, error) {
	f.calls++
	return nil, f.err
}

func (f *failingStore) UpdateTask(context.Context, string, *a2a.Task, int64, []a2a.StreamResponse) (*taskmanager.TaskRecord, error) {
	f.calls++
	return nil, f.err
}

func (f *failingStore) Prune(context.Context, time.Time) (int, error) {
	f.calls++
	return 0, f.err
}

// observedMetrics is a Metrics whose observe series are registered, as
// after Build.
func observedMetrics(t *testing.T) (*Metrics, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	m.Observe(slog.New(slog.DiscardHandler), testFaces, http.NewServeMux())
	return m, reg
}

// counterValue reads one counter series from reg (0 when absent).
func counterValue(t *testing.T, reg *prometheus.Registry, name, label, value string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, mt := range mf.GetMetric() {
			for _, lp := range mt.GetLabel() {
				if lp.GetName() == label && lp.GetValue() == value {
					return mt.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

func TestStoreErrorsCountsFailuresNotProtocolOutcomes(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want float64
	}{
		{"store failure", errors.New("store: query: connection refused"), 1},
		{"wrapped failure", fmt.Errorf("store: get: %w", io.ErrUnexpectedEOF), 1},
		{"task not found", a2a.ErrTaskNotFound.Withf("task %s not found", "t1"), 0},
		{"conflict", taskmanager.ErrConflict, 0},
		{"exists", fmt.Errorf("store: %w", taskmanager.ErrExists), 0},
		{"canceled", context.Canceled, 0},
		{"deadline", fmt.Errorf("store: query: %w", context.DeadlineExceeded), 0},
		{"success", nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, reg := observedMetrics(t)
			fake := &failingStore{err: tc.err}
			st := CountStoreErrors(fake, m)
			if _, err := st.GetTask(context.Background(), "alice", "t1"); err != tc.err {
				t.Fatalf("GetTask err = %v, want the store's %v unchanged", err, tc.err)
			}
			if fake.calls != 1 {
				t.Fatalf("store called %d times, want 1", fake.calls)
			}
			if got := counterValue(t, reg, "bridge_store_errors_total", "op", "GetTask"); got != tc.want {
				t.Errorf("bridge_store_errors_total{op=GetTask} = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestStoreErrorsLabelledByMethod(t *testing.T) {
	m, reg := observedMetrics(t)
	st := CountStoreErrors(&failingStore{err: errors.New("store: disk full")}, m)
	ctx := context.Background()
	_, _ = st.UpdateTask(ctx, "alice", &a2a.Task{}, 1, nil)
	_, _ = st.UpdateTask(ctx, "alice", &a2a.Task{}, 1, nil)
	_, _ = st.Prune(ctx, time.Now())
	for op, want := range map[string]float64{"UpdateTask": 2, "Prune": 1, "GetTask": 0} {
		if got := counterValue(t, reg, "bridge_store_errors_total", "op", op); got != want {
			t.Errorf("bridge_store_errors_total{op=%s} = %v, want %v", op, got, want)
		}
	}
}

// TestStoreErrorsBeforeObserve: a store failure before the handler is built
// (no series yet) is dropped, not a panic.
func TestStoreErrorsBeforeObserve(t *testing.T) {
	m, err := NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	st := CountStoreErrors(&failingStore{err: errors.New("store: down")}, m)
	if _, err := st.GetTask(context.Background(), "alice", "t1"); err == nil {
		t.Fatal("want the store's error")
	}
}

func TestUpstreamRestartHookCounts(t *testing.T) {
	m, reg := observedMetrics(t)
	hook := m.Restarted("publish/weather")
	hook("weather")
	hook("weather")
	if got := counterValue(t, reg, "bridge_upstream_restarts_total", "upstream", "publish/weather"); got != 2 {
		t.Errorf("bridge_upstream_restarts_total{upstream=publish/weather} = %v, want 2", got)
	}
}

// brokenStore fails every call.
type brokenStore struct{ err error }

func (b brokenStore) CreateTask(context.Context, string, *a2a.Task) error { return b.err }
func (b brokenStore) GetTask(context.Context, string, string) (*taskmanager.TaskRecord, error) {
	return nil, b.err
}
func (b brokenStore) UpdateTask(context.Context, string, *a2a.Task, int64, []a2a.StreamResponse) (*taskmanager.TaskRecord, error) {
	return nil, b.err
}
func (b brokenStore) Events(context.Context, string, string, int64, int) ([]taskmanager.StoredEvent, error) {
	return nil, b.err
}
func (b brokenStore) ListTasks(context.Context, string, taskmanager.TaskQuery) (*taskmanager.TaskPage, error) {
	return nil, b.err
}
func (b brokenStore) Watch(context.Context, string) (<-chan struct{}, func()) {
	return make(chan struct{}), func() {}
}
func (b brokenStore) AcquireLease(context.Context, string, string, time.Duration) (bool, error) {
	return false, b.err
}
func (b brokenStore) RenewLease(context.Context, string, string, time.Duration) (bool, error) {
	return false, b.err
}
func (b brokenStore) ReleaseLease(context.Context, string, string) error    { return b.err }
func (b brokenStore) RequestCancel(context.Context, string) error           { return b.err }
func (b brokenStore) CancelRequested(context.Context, string) (bool, error) { return false, b.err }
func (b brokenStore) PutPushConfig(context.Context, string, *a2a.TaskPushNotificationConfig) error {
	return b.err
}
func (b brokenStore) GetPushConfig(context.Context, string, string, string) (*a2a.TaskPushNotificationConfig, error) {
	return nil, b.err
}
func (b brokenStore) ListPushConfigs(context.Context, string, string) ([]a2a.TaskPushNotificationConfig, error) {
	return nil, b.err
}
func (b brokenStore) DeletePushConfig(context.Context, string, string, string) error { return b.err }
func (b brokenStore) DuePushes(context.Context, time.Time, int) ([]taskmanager.PushDue, error) {
	return nil, b.err
}
func (b brokenStore) AdvancePush(context.Context, string, string, string, int64) error { return b.err }
func (b brokenStore) FailPush(context.Context, string, string, string, time.Time, string) error {
	return b.err
}
func (b brokenStore) Prune(context.Context, time.Time) (int, error) { return 0, b.err }
func (b brokenStore) Orphans(context.Context, string, int) ([]taskmanager.TaskRef, error) {
	return nil, b.err
}

// TestStoreErrorsCountedOnEveryMethod: every failing method of taskmanager.Store
// is counted under its own name (none is left to the embedded store).
func TestStoreErrorsCountedOnEveryMethod(t *testing.T) {
	m, reg := observedMetrics(t)
	st := CountStoreErrors(brokenStore{err: errors.New("store: down")}, m)
	ctx, now := context.Background(), time.Now()
	calls := map[string]func() error{
		"CreateTask":       func() error { return st.CreateTask(ctx, "o", &a2a.Task{}) },
		"GetTask":          func() error { _, err := st.GetTask(ctx, "o", "t"); return err },
		"UpdateTask":       func() error { _, err := st.UpdateTask(ctx, "o", &a2a.Task{}, 1, nil); return err },
		"Events":           func() error { _, err := st.Events(ctx, "o", "t", 0, 1); return err },
		"ListTasks":        func() error { _, err := st.ListTasks(ctx, "o", taskmanager.TaskQuery{}); return err },
		"AcquireLease":     func() error { _, err := st.AcquireLease(ctx, "t", "h", time.Second); return err },
		"RenewLease":       func() error { _, err := st.RenewLease(ctx, "t", "h", time.Second); return err },
		"ReleaseLease":     func() error { return st.ReleaseLease(ctx, "t", "h") },
		"RequestCancel":    func() error { return st.RequestCancel(ctx, "t") },
		"CancelRequested":  func() error { _, err := st.CancelRequested(ctx, "t"); return err },
		"PutPushConfig":    func() error { return st.PutPushConfig(ctx, "o", &a2a.TaskPushNotificationConfig{}) },
		"GetPushConfig":    func() error { _, err := st.GetPushConfig(ctx, "o", "t", "c"); return err },
		"ListPushConfigs":  func() error { _, err := st.ListPushConfigs(ctx, "o", "t"); return err },
		"DeletePushConfig": func() error { return st.DeletePushConfig(ctx, "o", "t", "c") },
		"DuePushes":        func() error { _, err := st.DuePushes(ctx, now, 1); return err },
		"AdvancePush":      func() error { return st.AdvancePush(ctx, "o", "t", "c", 1) },
		"FailPush":         func() error { return st.FailPush(ctx, "o", "t", "c", now, "x") },
		"Prune":            func() error { _, err := st.Prune(ctx, now); return err },
		"Orphans":          func() error { _, err := st.Orphans(ctx, "", 1); return err },
	}
	// Every method but Watch (which cannot fail) is in the table.
	if n := reflect.TypeFor[taskmanager.Store]().NumMethod() - 1; len(calls) != n {
		t.Fatalf("table has %d methods, taskmanager.Store has %d that can fail", len(calls), n)
	}
	for op, call := range calls {
		if err := call(); err == nil {
			t.Errorf("%s: want the store's error", op)
		}
		if got := counterValue(t, reg, "bridge_store_errors_total", "op", op); got != 1 {
			t.Errorf("bridge_store_errors_total{op=%s} = %v, want 1", op, got)
		}
	}
}

// failingEventfulStore is a failingStore that can create tasks with events.
type failingEventfulStore struct{ *failingStore }

func (s failingEventfulStore) CreateTaskWithEvents(context.Context, string, *a2a.Task, []a2a.StreamResponse, string, time.Duration) (*taskmanager.TaskRecord, error) {
	s.calls++
	return nil, s.err
}

// TestCountingStoreIsEventfulOnlyOverOne: the wrapper is a
// taskmanager.EventfulTaskCreator exactly when the store it wraps is (the
// manager then falls back to two writes), and counts its failures.
func TestCountingStoreIsEventfulOnlyOverOne(t *testing.T) {
	m, reg := observedMetrics(t)
	if _, ok := CountStoreErrors(&failingStore{err: errors.New("x")}, m).(taskmanager.EventfulTaskCreator); ok {
		t.Error("the wrapper of a store that cannot create tasks with events claims it can")
	}
	fake := failingEventfulStore{&failingStore{err: errors.New("store: disk full")}}
	ec, ok := CountStoreErrors(fake, m).(taskmanager.EventfulTaskCreator)
	if !ok {
		t.Fatal("the wrapper of a store that creates tasks with events hides it")
	}
	if _, err := ec.CreateTaskWithEvents(context.Background(), "alice", &a2a.Task{}, nil, "", time.Second); err == nil || fake.calls != 1 {
		t.Fatalf("CreateTaskWithEvents = %v after %d calls, want the store's error after 1", err, fake.calls)
	}
	if got := counterValue(t, reg, "bridge_store_errors_total", "op", "CreateTaskWithEvents"); got != 1 {
		t.Errorf("bridge_store_errors_total{op=CreateTaskWithEvents} = %v, want 1", got)
	}
}
