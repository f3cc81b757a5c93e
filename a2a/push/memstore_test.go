package push_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/push"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/netguard"
	"github.com/a2a-mcp-bridge/bridge/netguard/netguardtest"
)

var _ push.Store = (a2a.Store)(nil)

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
	for {
		due, err := st.DuePushes(ctx, timeFar, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(due) == 0 {
			break
		}
		waitABit()
	}
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

// waitABit yields while the dispatcher works; the loop around it is bounded
// by the test binary's timeout.
func waitABit() { time.Sleep(2 * time.Millisecond) }
