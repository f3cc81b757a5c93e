package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/store/storetest"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
)

func openSQLite(t testing.TB, path string) *store.SQLite {
	t.Helper()
	s, err := store.OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestSQLiteConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) taskmanager.Store {
		return openSQLite(t, filepath.Join(t.TempDir(), "tasks.db"))
	})
}

func TestSQLiteKeepsTasksAcrossReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tasks.db")
	s, err := store.OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	task := &a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted}}
	if err := s.CreateTask(ctx, "alice", task); err != nil {
		t.Fatal(err)
	}
	next := task.Clone()
	next.Status.State = a2a.TaskStateCompleted
	ev := a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: "t1", Status: next.Status}}
	if _, err := s.UpdateTask(ctx, "alice", next, 1, []a2a.StreamResponse{ev}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutPushConfig(ctx, "alice", &a2a.TaskPushNotificationConfig{ID: "p", TaskID: "t1", URL: "https://hooks.example/"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openSQLite(t, path) // migrations run again and change nothing
	rec, err := s.GetTask(ctx, "alice", "t1")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Version != 2 || rec.LastSeq != 1 || rec.Task.Status.State != a2a.TaskStateCompleted {
		t.Errorf("after reopen: version %d seq %d state %s", rec.Version, rec.LastSeq, rec.Task.Status.State)
	}
	evs, err := s.Events(ctx, "alice", "t1", 0, 0)
	if err != nil || len(evs) != 1 || evs[0].Event.StatusUpdate == nil {
		t.Errorf("events after reopen: %+v, %v", evs, err)
	}
	if c, err := s.GetPushConfig(ctx, "alice", "t1", "p"); err != nil || c.URL != "https://hooks.example/" {
		t.Errorf("push config after reopen: %+v, %v", c, err)
	}
}

func TestSQLiteOpenRejectsQueryInPath(t *testing.T) {
	if _, err := store.OpenSQLite(context.Background(), "tasks.db?_pragma=foreign_keys(0)"); err == nil {
		t.Fatal("a path carrying driver options was accepted")
	}
}
