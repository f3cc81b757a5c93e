package push_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/push"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
	"github.com/a2a-mcp-bridge/bridge/netguard"
	"github.com/a2a-mcp-bridge/bridge/netguard/netguardtest"
)

var _ push.Store = (taskmanager.Store)(nil)

// TestDeliversFromMemoryStore runs the dispatcher over the real memory store
// (cursors, leases and the event log) instead of the test fake.
func TestDeliversFromMemoryStore(t *testing.T) {
	var mu sync.Mutex
	var ids []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		ids = append(ids, r.Header.Get(push.HeaderNotificationID))
		mu.Unlock()
	}))
	defer srv.Close()

	ctx := context.Background()
	st := store.NewMemory()
	task := &a2a.Task{ID: "t1", ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted}}
	if err := st.CreateTask(ctx, "alice", task); err != nil {
		t.Fatal(err)
	}
	if err := st.PutPushConfig(ctx, "alice", &a2a.TaskPushNotificationConfig{ID: "p1", TaskID: "t1", URL: srv.URL + "/hook"}); err != nil {
		t.Fatal(err)
	}
	var evs []a2a.StreamResponse
	for _, s := range []a2a.TaskState{a2a.TaskStateWorking, a2a.TaskStateCompleted} {
		evs = append(evs, a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: "t1", ContextID: "c", Status: a2a.TaskStatus{State: s}}})
	}
	task.Status.State = a2a.TaskStateCompleted
	if _, err := st.UpdateTask(ctx, "alice", task, 1, evs); err != nil {
		t.Fatal(err)
	}

	g, err := netguard.New(netguardtest.Config(netguardtest.Loopback()))
	if err != nil {
		t.Fatal(err)
	}
	d, err := push.New(push.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, st, g)
	if err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- d.Run(rctx) }()
	d.Notify()
	waitDelivered(t, st)
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"t1:1", "t1:2"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("ids = %v, want %v", ids, want)
	}
	if ok, err := st.AcquireLease(ctx, "push:t1:p1", "other-replica", 1e9); err != nil || !ok {
		t.Errorf("claim not released after Run returned: %v, %v", ok, err)
	}
}

var timeFar = time.Now().Add(24 * time.Hour)

// waitDelivered waits until the store has no push due any more: the
// dispatcher delivered everything.
func waitDelivered(t *testing.T, st *store.Memory) {
	t.Helper()
	bridgetest.Eventually(t, 20*time.Second, "every push delivered", func() error {
		due, err := st.DuePushes(context.Background(), timeFar, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(due) > 0 {
			return fmt.Errorf("%d pushes still due", len(due))
		}
		return nil
	})
}

// TestLegacyConfigsGetTheLegacyBody: a config registered in an older
// protocol version gets what Config.LegacyBody writes of the stored task;
// a 1.0 config of the same task still gets the 1.0 event.
func TestLegacyConfigsGetTheLegacyBody(t *testing.T) {
	var mu sync.Mutex
	bodies := map[string][]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies[r.URL.Path] = append(bodies[r.URL.Path], string(b))
		mu.Unlock()
	}))
	defer srv.Close()
	ctx := context.Background()
	st := store.NewMemory()
	task := &a2a.Task{ID: "t1", ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}
	if err := st.CreateTask(ctx, "alice", task); err != nil {
		t.Fatal(err)
	}
	for _, c := range []a2a.TaskPushNotificationConfig{
		{ID: "old", TaskID: "t1", URL: srv.URL + "/old", Version: "0.3"},
		{ID: "new", TaskID: "t1", URL: srv.URL + "/new"},
	} {
		if err := st.PutPushConfig(ctx, "alice", &c); err != nil {
			t.Fatal(err)
		}
	}
	task.Status.State = a2a.TaskStateCompleted
	if _, err := st.UpdateTask(ctx, "alice", task, 1, []a2a.StreamResponse{{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: "t1", ContextID: "c", Status: task.Status}}}); err != nil {
		t.Fatal(err)
	}
	g, err := netguard.New(netguardtest.Config(netguardtest.Loopback()))
	if err != nil {
		t.Fatal(err)
	}
	legacy := func(version string, task *a2a.Task, ev *a2a.StreamResponse) ([]byte, error) {
		return []byte(`{"version":"` + version + `","task":"` + task.ID + `","state":"` + string(task.Status.State) + `"}`), nil
	}
	d, err := push.New(push.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), LegacyBody: legacy}, st, g)
	if err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- d.Run(rctx) }()
	d.Notify()
	waitDelivered(t, st)
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if want := []string{`{"version":"0.3","task":"t1","state":"TASK_STATE_COMPLETED"}`}; !reflect.DeepEqual(bodies["/old"], want) {
		t.Errorf("0.3 config got %q, want %q", bodies["/old"], want)
	}
	if len(bodies["/new"]) != 1 || !strings.Contains(bodies["/new"][0], `"statusUpdate"`) {
		t.Errorf("1.0 config got %q, want the 1.0 event", bodies["/new"])
	}
}
