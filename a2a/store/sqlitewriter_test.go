package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

func openTestSQLite(t *testing.T) *SQLite {
	t.Helper()
	s, err := OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "tasks.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestSQLiteFailingWriteInABatchFailsAlone runs writes that share commits
// with one that SQLite refuses halfway (its first statement done, its
// second an error): the refused write is undone and reported, every other
// write of its batches commits.
func TestSQLiteFailingWriteInABatchFailsAlone(t *testing.T) {
	s := openTestSQLite(t)
	ctx := context.Background()
	var splitMu sync.Mutex
	split := 0
	s.writer.onBatch = func(size int, wasSplit bool) {
		if wasSplit {
			splitMu.Lock()
			split = size
			splitMu.Unlock()
		}
	}
	// Hold the writer so that the writes below queue up into one batch.
	hold, release := make(chan struct{}), make(chan struct{})
	go func() {
		_ = s.writer.do(ctx, func(*wtx) error { close(hold); <-release; return nil })
	}()
	<-hold
	const n = 20
	var wg sync.WaitGroup
	var queued atomic.Int32
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			queued.Add(1)
			if i == n/2 {
				errs[i] = s.writer.do(ctx, func(tx *wtx) error {
					if _, err := tx.exec(sqliteInsertTask, "half-done", "alice", "c", "TASK_STATE_WORKING", 0, []byte(`{}`)); err != nil {
						return err
					}
					if _, err := tx.exec(`insert into no_such_table values (1)`); err != nil {
						return fmt.Errorf("store: test write: %w", err)
					}
					return nil
				})
				return
			}
			task := &a2a.Task{ID: fmt.Sprintf("t%02d", i), ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}
			errs[i] = s.CreateTask(ctx, "alice", task)
		})
	}
	// Let every write reach the writer's queue, then let the writer go.
	for queued.Load() < n {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	close(release)
	wg.Wait()
	if split < 2 {
		t.Fatalf("the refused write was not in a batch with others (split batch of %d)", split)
	}
	for i, err := range errs {
		if i == n/2 {
			if err == nil || !strings.Contains(err.Error(), "store: test write") {
				t.Errorf("the refused write returned %v", err)
			}
			continue
		}
		if err != nil {
			t.Errorf("write %d beside the refused one: %v", i, err)
		}
		if _, err := s.GetTask(ctx, "alice", fmt.Sprintf("t%02d", i)); err != nil {
			t.Errorf("task of write %d: %v", i, err)
		}
	}
	if _, err := s.GetTask(ctx, "alice", "half-done"); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("the refused write's first statement was kept: %v", err)
	}
}

// TestSQLiteCallersReadyAtOnceShareACommit: callers that become runnable
// together on one busy core (GOMAXPROCS=1, as a loaded bridge) share a few
// commits instead of taking one each: the writer yields before it closes a
// batch, so the others queue their writes behind the first.
//
// The race detector randomizes scheduling (callers then queue up behind the
// first write with or without the yield), so this test is skipped under
// -race; `make test-go` runs it without.
func TestSQLiteCallersReadyAtOnceShareACommit(t *testing.T) {
	if raceEnabled {
		t.Skip("scheduling test: the race detector randomizes scheduling; make test-go runs it without -race")
	}
	s := openTestSQLite(t)
	ctx := context.Background()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var batches, writes atomic.Int32
	s.writer.onBatch = func(size int, _ bool) { batches.Add(1); writes.Add(int32(size)) }
	const n = 32
	start := make(chan struct{})
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			<-start
			errs[i] = s.CreateTask(ctx, "alice", &a2a.Task{ID: fmt.Sprintf("t%02d", i), ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}})
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	// Without the yield each caller gets a commit of its own (32 batches);
	// with it, the first batch takes (nearly) all of them.
	if b := batches.Load(); b > 4 {
		t.Errorf("%d writes of callers ready at once took %d commits, want at most 4", writes.Load(), b)
	}
}

// TestSQLiteWritesAfterCloseAreRefused: a write after Close is an error,
// not a hang.
func TestSQLiteWritesAfterCloseAreRefused(t *testing.T) {
	s, err := OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "tasks.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	task := &a2a.Task{ID: "late", ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}
	if err := s.CreateTask(context.Background(), "alice", task); !errors.Is(err, errStoreClosed) {
		t.Fatalf("CreateTask after Close = %v, want errStoreClosed", err)
	}
}

// TestSQLiteURLSynchronous pins the one option a sqlite: URL takes: the
// write connection runs with the synchronous setting it names (FULL, 2, by
// default; NORMAL, 1, on request), and anything else is refused with a
// message naming the choices.
func TestSQLiteURLSynchronous(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		url     string
		want    int
		wantErr string
	}{
		{"default", "sqlite:" + filepath.Join(dir, "a.db"), 2, ""},
		{"full", "sqlite:" + filepath.Join(dir, "b.db") + "?synchronous=full", 2, ""},
		{"normal", "sqlite:" + filepath.Join(dir, "c.db") + "?synchronous=NORMAL", 1, ""},
		{"off refused", "sqlite:" + filepath.Join(dir, "d.db") + "?synchronous=off", 0, "want full (the default) or normal"},
		{"other option refused", "sqlite:" + filepath.Join(dir, "e.db") + "?_pragma=foreign_keys(0)", 0, "the only option is synchronous"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			st, closeFn, err := Open(ctx, tc.url)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer closeFn()
			var got int
			if err := st.(*SQLite).writer.conn.QueryRowContext(ctx, "pragma synchronous").Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("synchronous = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestSQLiteCheckpointerCopiesTheWALBesideTheWriter: a few committed tasks
// (far fewer WAL pages than the writer's own checkpoint waits for) are in
// the database file itself, read without the WAL, once the checkpointer
// has run, and the store still reads and writes as before.
func TestSQLiteCheckpointerCopiesTheWALBesideTheWriter(t *testing.T) {
	every := checkpointEvery
	checkpointEvery = time.Hour // the test runs it
	defer func() { checkpointEvery = every }()
	path := filepath.Join(t.TempDir(), "tasks.db")
	s, err := OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	inFile := func() int {
		db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&immutable=1") // the file alone, no WAL
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var n int
		if err := db.QueryRowContext(ctx, "select count(*) from a2a_tasks").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	s.checkpointer.run() // the schema
	base := inFile()
	for i := range 20 {
		if err := s.CreateTask(ctx, "alice", &a2a.Task{ID: fmt.Sprintf("t%d", i), ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}}); err != nil {
			t.Fatal(err)
		}
	}
	if n := inFile(); n != base {
		t.Fatalf("%d tasks in the database file before a checkpoint, want %d (the test needs them in the WAL only)", n, base)
	}
	s.checkpointer.run()
	if n := inFile(); n != base+20 {
		t.Errorf("%d tasks in the database file after the checkpointer ran, want %d", n, base+20)
	}
	if err := s.CreateTask(ctx, "alice", &a2a.Task{ID: "after", ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetTask(ctx, "alice", "t7"); err != nil {
		t.Error(err)
	}
}
