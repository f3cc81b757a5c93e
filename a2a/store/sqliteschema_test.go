package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
)

// TestSQLiteListingReadsAnIndexInOrder: every shape of ListTasks' page
// query is answered from one of the owner's listing indexes in its order
// (read backwards), not by a scan of the owner's tasks and a sort, which
// would cost a full read of a large owner for each page.
func TestSQLiteListingReadsAnIndexInOrder(t *testing.T) {
	s := openTestSQLite(t)
	ctx := context.Background()
	from := time.Unix(1700000000, 0)
	for _, tc := range []struct {
		name string
		q    taskmanager.TaskQuery
	}{
		{"owner", taskmanager.TaskQuery{Limit: 10}},
		{"owner, next page", taskmanager.TaskQuery{Limit: 10, After: &taskmanager.Cursor{Updated: from, ID: "t9"}}},
		{"owner and context", taskmanager.TaskQuery{ContextID: "c", Limit: 10}},
		{"owner and context, next page", taskmanager.TaskQuery{ContextID: "c", Limit: 10, After: &taskmanager.Cursor{Updated: from, ID: "t9"}}},
		{"owner and state", taskmanager.TaskQuery{Status: a2a.TaskStateCompleted, Limit: 10}},
		{"owner, updated since", taskmanager.TaskQuery{UpdatedFrom: &from, Limit: 10}},
		{"owner, no limit", taskmanager.TaskQuery{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page, args, _, _ := listQueries("alice", tc.q, false)
			rows, err := s.r.QueryContext(ctx, "explain query plan "+page, args...)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var plan []string
			for rows.Next() {
				var id, parent, notused int
				var detail string
				if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, detail)
			}
			all := strings.Join(plan, "; ")
			if strings.Contains(all, "TEMP B-TREE") || !strings.Contains(all, "USING INDEX a2a_tasks_owner_") {
				t.Errorf("plan %q: want one of the owner's listing indexes, read in order", all)
			}
		})
	}
}

// TestSQLiteUpgradeRebuildsTheListingIndexes: a database written by a
// binary of the first schema (descending listing indexes) opens, gets the
// ascending ones, and lists its tasks as before, newest first.
func TestSQLiteUpgradeRebuildsTheListingIndexes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tasks.db")
	old, err := sql.Open("sqlite", path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.ExecContext(ctx, sqliteMigrations[0]+"; pragma user_version = 1"); err != nil {
		t.Fatal(err)
	}
	for i, id := range []string{"t1", "t2", "t3"} {
		if _, err := old.ExecContext(ctx, sqliteInsertTask, id, "alice", "c", "TASK_STATE_COMPLETED", int64(i+1)*1e9,
			[]byte(`{"id":"`+id+`","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}`)); err != nil {
			t.Fatal(err)
		}
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	s := openAt(t, path)
	var v int
	if err := s.r.QueryRowContext(ctx, "pragma user_version").Scan(&v); err != nil || v != len(sqliteMigrations) {
		t.Fatalf("user_version %d (%v), want %d", v, err, len(sqliteMigrations))
	}
	var n int
	if err := s.r.QueryRowContext(ctx, `select count(*) from sqlite_master where type = 'index' and name like 'a2a_tasks_owner%' and sql like '%desc%'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d descending listing indexes left (%v)", n, err)
	}
	page, err := s.ListTasks(ctx, "alice", taskmanager.TaskQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, task := range page.Tasks {
		got = append(got, task.ID)
	}
	if strings.Join(got, " ") != "t3 t2 t1" {
		t.Errorf("listed %v, want t3 t2 t1", got)
	}
}

func openAt(t *testing.T, path string) *SQLite {
	t.Helper()
	s, err := OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
