package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/store/storetest"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
)

func openPostgres(t testing.TB, u string) *store.Postgres {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := store.OpenPostgres(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestPostgresConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) taskmanager.Store {
		return openPostgres(t, storetest.PostgresSchema(t))
	})
}

func TestPostgresMigratesOnceFromReplicasOpeningAtOnce(t *testing.T) {
	u := storetest.PostgresSchema(t)
	const replicas = 4
	stores := make([]*store.Postgres, replicas)
	errs := make([]error, replicas)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range replicas {
		wg.Go(func() {
			<-start
			stores[i], errs[i] = store.OpenPostgres(context.Background(), u)
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
		t.Cleanup(func() { stores[i].Close() })
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n, maxV int
	if err := conn.QueryRow(ctx, "select count(*), max(version) from a2a_store_migrations").Scan(&n, &maxV); err != nil {
		t.Fatal(err)
	}
	if n != maxV || n == 0 {
		t.Errorf("migrations table: %d rows up to version %d; each migration must be applied once", n, maxV)
	}
	// Every replica works on the shared schema.
	task := &a2a.Task{ID: "t1", ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted}}
	if err := stores[0].CreateTask(ctx, "alice", task); err != nil {
		t.Fatal(err)
	}
	for i, s := range stores {
		if _, err := s.GetTask(ctx, "alice", "t1"); err != nil {
			t.Errorf("replica %d: %v", i, err)
		}
	}
}

// TestPostgresWatchWakesOtherReplica pins LISTEN/NOTIFY: a write through
// one pool wakes a watcher of another (the local shortcut cannot).
func TestPostgresWatchWakesOtherReplica(t *testing.T) {
	u := storetest.PostgresSchema(t)
	a, b := openPostgres(t, u), openPostgres(t, u)
	ctx := context.Background()
	task := &a2a.Task{ID: "t1", ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted}}
	if err := a.CreateTask(ctx, "alice", task); err != nil {
		t.Fatal(err)
	}
	ch, stop := b.Watch(ctx, "t1")
	defer stop()
	for len(ch) > 0 {
		<-ch
	}
	next := task.Clone()
	next.Status.State = a2a.TaskStateWorking
	if _, err := a.UpdateTask(ctx, "alice", next, 1, []a2a.StreamResponse{{StatusUpdate: &a2a.TaskStatusUpdateEvent{Status: next.Status}}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ch:
	case <-time.After(20 * time.Second):
		t.Fatal("replica B was not woken by an update on replica A")
	}
	for len(ch) > 0 {
		<-ch
	}
	if err := a.RequestCancel(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ch:
	case <-time.After(20 * time.Second):
		t.Fatal("replica B was not woken by a cancel request on replica A")
	}
}

// TestPostgresCountTasksSeesEveryReplica: two replicas on one database
// count the same tasks, whichever created them.
func TestPostgresCountTasksSeesEveryReplica(t *testing.T) {
	u := storetest.PostgresSchema(t)
	a, b := openPostgres(t, u), openPostgres(t, u)
	ctx := context.Background()
	for i, s := range []*store.Postgres{a, b, b} {
		task := &a2a.Task{ID: fmt.Sprintf("t%d", i), ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}
		if err := s.CreateTask(ctx, fmt.Sprintf("owner-%d", i), task); err != nil {
			t.Fatal(err)
		}
	}
	for name, s := range map[string]*store.Postgres{"a": a, "b": b} {
		got, err := s.CountTasks(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got[a2a.TaskStateWorking] != 3 || len(got) != 1 {
			t.Errorf("replica %s counts %v, want 3 working", name, got)
		}
	}
}
