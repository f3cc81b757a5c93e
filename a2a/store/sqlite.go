package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"

	_ "modernc.org/sqlite" // registers the "sqlite" driver (pure Go, no cgo)
)

// SQLite is an taskmanager.Store in one SQLite file: the embedded default, for a
// single process. Watch wake-ups are in-process, so a second process on the
// same file would only see changes through the manager's polling fallback:
// use PostgreSQL for replicas.
//
// Durability: a write returns only once it is committed with
// synchronous=FULL in WAL mode, i.e. once the WAL holding it has been
// synced to disk, so an acknowledged event survives a crash of the process
// and of the machine (SyncNormal, on request, keeps the first only: see
// SQLiteSync). What makes that affordable is group commit: SQLite
// has one writer, so every write goes to one goroutine holding the write
// connection (sqliteWriter), which takes all the writes waiting while a
// transaction commits into the next transaction. N callers writing at once
// share one commit and one sync of the WAL instead of paying N; a lone
// caller pays one, as without grouping (the writer never waits for more).
// The cost is latency under load: a write waits for the transaction before
// it to commit. Statements are prepared once on the write connection and
// once per read connection. Reads go through a pool of their own (WAL lets
// them run beside the writer) and see only committed writes.
type SQLite struct {
	w      *sql.DB
	r      *sql.DB
	writer *sqliteWriter
	// checkpointer copies the WAL into the database beside the writer.
	checkpointer *sqliteCheckpointer
	hub          *hub
	now          func() time.Time

	readMu    sync.Mutex
	readStmts map[string]*sql.Stmt
}

var (
	_ taskmanager.Store                 = (*SQLite)(nil)
	_ taskmanager.LeasedTaskCreator     = (*SQLite)(nil)
	_ taskmanager.LeaseReleasingUpdater = (*SQLite)(nil)
	_ taskmanager.EventfulTaskCreator   = (*SQLite)(nil)
)

// sqliteMigrations are applied in order; PRAGMA user_version counts the
// ones applied. Append only.
var sqliteMigrations = []string{
	`create table a2a_tasks (
		id text primary key,
		owner text not null,
		context_id text not null,
		state text not null,
		status_ts integer not null,
		version integer not null,
		last_seq integer not null,
		snapshot blob not null
	);
	create index a2a_tasks_owner_order on a2a_tasks (owner, status_ts desc, id desc);
	create index a2a_tasks_owner_context_order on a2a_tasks (owner, context_id, status_ts desc, id desc);
	create index a2a_tasks_state_ts on a2a_tasks (state, status_ts);
	create table a2a_events (
		task_id text not null references a2a_tasks (id) on delete cascade,
		seq integer not null,
		event blob not null,
		primary key (task_id, seq)
	) without rowid;
	create table a2a_leases (
		task_id text primary key,
		holder text not null,
		expires_at integer not null
	) without rowid;
	create table a2a_cancels (
		task_id text primary key
	) without rowid;
	create table a2a_push_configs (
		pos integer primary key autoincrement,
		task_id text not null references a2a_tasks (id) on delete cascade,
		id text not null,
		config blob not null,
		delivered integer not null,
		attempts integer not null default 0,
		next_at integer not null default 0,
		last_error text not null default '',
		unique (task_id, id)
	);`,
	// The listing indexes in ascending order: SQLite reads them backwards
	// for ListTasks' "order by status_ts desc, id desc" (no sort, see
	// TestSQLiteListingReadsAnIndexInOrder), and a new task's entry, the
	// latest of its owner (and context), now goes to the right of the
	// owner's range instead of its left. At the left edge a full leaf was
	// split with both its neighbours rewritten, at the right edge with one,
	// and the split leaves fuller pages (measured over 400 one-write calls
	// of one owner after 2,000 others: the owner index wrote 1.26 WAL
	// frames per commit instead of 1.87, a commit 9.1 frames instead of 9.7,
	// and the file was 939 pages instead of 968). Upgrading rebuilds both
	// indexes once, in the migration's transaction (3.3 s for 500,000
	// tasks).
	`drop index a2a_tasks_owner_order;
	create index a2a_tasks_owner_order on a2a_tasks (owner, status_ts, id);
	drop index a2a_tasks_owner_context_order;
	create index a2a_tasks_owner_context_order on a2a_tasks (owner, context_id, status_ts, id);`,
}

// SQLiteSync says when a commit of the SQLite store is on disk.
type SQLiteSync int

const (
	// SyncFull (synchronous=FULL, the default): every commit syncs the WAL
	// before the write returns. An acknowledged write survives a crash of
	// the process, of the kernel, and a power loss.
	SyncFull SQLiteSync = iota
	// SyncNormal (synchronous=NORMAL): a commit is written to the WAL (in
	// the kernel's page cache) before the write returns, and the WAL is
	// synced only when it is checkpointed into the database. An
	// acknowledged write survives a crash or SIGKILL of the process, which
	// cannot take back what the kernel already holds; a kernel crash or a
	// power loss may take the commits since the last checkpoint with it
	// (never corrupting the database: they are lost whole).
	SyncNormal
)

func (s SQLiteSync) pragma() string {
	if s == SyncNormal {
		return "NORMAL"
	}
	return "FULL"
}

// SQLiteOptions are the settings of a SQLite store; the zero value is the
// default.
type SQLiteOptions struct {
	// Synchronous: SyncFull (default) or SyncNormal (see SQLiteSync).
	Synchronous SQLiteSync
}

// OpenSQLite opens (creating if needed) the store in the file at path, with
// the default options, and brings its schema up to date.
func OpenSQLite(ctx context.Context, path string) (*SQLite, error) {
	return OpenSQLiteWith(ctx, path, SQLiteOptions{})
}

// OpenSQLiteWith is OpenSQLite with options.
func OpenSQLiteWith(ctx context.Context, path string, opts SQLiteOptions) (*SQLite, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("store: open sqlite: path %q must be a plain file path", path)
	}
	common := "_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)"
	// synchronous: see SQLiteSync and the type's doc.
	w, err := sql.Open("sqlite", path+"?"+common+"&_pragma=journal_mode(WAL)&_pragma=synchronous("+opts.Synchronous.pragma()+")&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("store: open sqlite: %w", err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxIdleTime(0)
	s := &SQLite{w: w, hub: newHub(), now: time.Now, readStmts: map[string]*sql.Stmt{}}
	if err := s.migrate(ctx); err != nil {
		w.Close()
		return nil, err
	}
	conn, err := w.Conn(ctx)
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("store: open sqlite: %w", err)
	}
	r, err := sql.Open("sqlite", path+"?"+common+"&_pragma=query_only(1)")
	if err != nil {
		conn.Close()
		w.Close()
		return nil, fmt.Errorf("store: open sqlite: %w", err)
	}
	r.SetMaxOpenConns(8)
	r.SetMaxIdleConns(8)
	// The checkpointer syncs what it copies as the writer would.
	c, err := sql.Open("sqlite", path+"?"+common+"&_pragma=synchronous("+opts.Synchronous.pragma()+")")
	if err != nil {
		r.Close()
		conn.Close()
		w.Close()
		return nil, fmt.Errorf("store: open sqlite: %w", err)
	}
	c.SetMaxOpenConns(1)
	c.SetMaxIdleConns(1)
	c.SetConnMaxIdleTime(0)
	s.r = r
	s.writer = newSQLiteWriter(conn, s.hub)
	s.checkpointer = newSQLiteCheckpointer(c, checkpointEvery)
	return s, nil
}

// read returns the prepared statement of a read query (prepared on each
// read connection once, by database/sql).
func (s *SQLite) read(ctx context.Context, query string) (*sql.Stmt, error) {
	s.readMu.Lock()
	defer s.readMu.Unlock()
	if st, ok := s.readStmts[query]; ok {
		return st, nil
	}
	st, err := s.r.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	s.readStmts[query] = st
	return st, nil
}

// queryRow runs a prepared read query of one row into dest.
func (s *SQLite) queryRow(ctx context.Context, query string, args []any, dest ...any) error {
	st, err := s.read(ctx, query)
	if err != nil {
		return err
	}
	return st.QueryRowContext(ctx, args...).Scan(dest...)
}

func (s *SQLite) migrate(ctx context.Context) error {
	tx, err := s.w.BeginTx(ctx, nil) // BEGIN IMMEDIATE: one migrator at a time
	if err != nil {
		return fmt.Errorf("store: migrate sqlite: %w", err)
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRowContext(ctx, "pragma user_version").Scan(&v); err != nil {
		return fmt.Errorf("store: migrate sqlite: read version: %w", err)
	}
	if v > len(sqliteMigrations) {
		return fmt.Errorf("store: migrate sqlite: schema version %d is newer than this binary knows (%d)", v, len(sqliteMigrations))
	}
	for i := v; i < len(sqliteMigrations); i++ {
		if _, err := tx.ExecContext(ctx, sqliteMigrations[i]); err != nil {
			return fmt.Errorf("store: migrate sqlite to version %d: %w", i+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("pragma user_version = %d", len(sqliteMigrations))); err != nil {
		return fmt.Errorf("store: migrate sqlite: set version: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: migrate sqlite: %w", err)
	}
	return nil
}

// Close closes the database once the writes already taken are committed.
func (s *SQLite) Close() error {
	s.writer.close()
	cerr := s.checkpointer.close()
	s.readMu.Lock()
	for _, st := range s.readStmts {
		st.Close()
	}
	s.readMu.Unlock()
	return errors.Join(cerr, s.r.Close(), s.writer.conn.Close(), s.w.Close())
}

const sqliteInsertTask = `insert into a2a_tasks (id, owner, context_id, state, status_ts, version, last_seq, snapshot)
	values (?, ?, ?, ?, ?, 1, 0, ?) on conflict (id) do nothing`

// CreateTask implements taskmanager.TaskStore.
func (s *SQLite) CreateTask(ctx context.Context, owner string, t *a2a.Task) error {
	c, err := columnsOf(t)
	if err != nil {
		return err
	}
	return s.writer.do(ctx, func(tx *wtx) error { return s.createTask(tx, owner, t.ID, c) })
}

func (s *SQLite) createTask(tx *wtx, owner, id string, c taskColumns) error {
	res, err := tx.exec(sqliteInsertTask, id, owner, c.contextID, c.state, c.statusTS, c.snapshot)
	if err != nil {
		return fmt.Errorf("store: create task: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return taskmanager.ErrExists
	}
	tx.wake(id)
	return nil
}

// CreateLeasedTask implements taskmanager.LeasedTaskCreator: the run lease and the
// task in one transaction.
func (s *SQLite) CreateLeasedTask(ctx context.Context, owner string, t *a2a.Task, holder string, ttl time.Duration) error {
	c, err := columnsOf(t)
	if err != nil {
		return err
	}
	return s.writer.do(ctx, func(tx *wtx) error {
		if err := s.leaseNewTask(tx, t.ID, holder, ttl); err != nil {
			return err
		}
		return s.createTask(tx, owner, t.ID, c)
	})
}

// leaseNewTask takes holder's run lease on a task about to be created in
// tx: ErrExists if the task exists already (checked first, so that a
// refused create writes nothing), ErrLeaseHeld if another holds the lease.
func (s *SQLite) leaseNewTask(tx *wtx, id, holder string, ttl time.Duration) error {
	// The write lock is held: nothing changes between these.
	var one int
	err := tx.scan(`select 1 from a2a_tasks where id = ?`, []any{id}, &one)
	if err == nil {
		return taskmanager.ErrExists
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("store: create task: %w", err)
	}
	ok, err := s.acquireLease(tx, id, holder, ttl)
	if err != nil {
		return err
	}
	if !ok {
		return taskmanager.ErrLeaseHeld
	}
	return nil
}

// CreateTaskWithEvents implements taskmanager.EventfulTaskCreator: the
// task, its first events and (with holder) the run lease in one
// transaction.
func (s *SQLite) CreateTaskWithEvents(ctx context.Context, owner string, t *a2a.Task, events []a2a.StreamResponse, holder string, ttl time.Duration) (*taskmanager.TaskRecord, error) {
	c, err := columnsOf(t)
	if err != nil {
		return nil, err
	}
	evs, err := encodeEvents(events)
	if err != nil {
		return nil, err
	}
	rec := &taskmanager.TaskRecord{Task: *t.Clone(), Version: 2, LastSeq: int64(len(evs))}
	err = s.writer.do(ctx, func(tx *wtx) error {
		if holder != "" {
			if err := s.leaseNewTask(tx, t.ID, holder, ttl); err != nil {
				return err
			}
		}
		res, err := tx.exec(`insert into a2a_tasks (id, owner, context_id, state, status_ts, version, last_seq, snapshot)
			values (?, ?, ?, ?, ?, 2, ?, ?) on conflict (id) do nothing`, t.ID, owner, c.contextID, c.state, c.statusTS, len(evs), c.snapshot)
		if err != nil {
			return fmt.Errorf("store: create task: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return taskmanager.ErrExists
		}
		for i, e := range evs {
			if _, err := tx.exec(`insert into a2a_events (task_id, seq, event) values (?, ?, ?)`, t.ID, int64(i+1), e); err != nil {
				return fmt.Errorf("store: append events: %w", err)
			}
		}
		tx.wake(t.ID)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rec, nil
}

// GetTask implements taskmanager.TaskStore.
func (s *SQLite) GetTask(ctx context.Context, owner, id string) (*taskmanager.TaskRecord, error) {
	var rec taskmanager.TaskRecord
	var snap []byte
	err := s.queryRow(ctx, `select version, last_seq, snapshot from a2a_tasks where id = ? and owner = ?`, []any{id, owner},
		&rec.Version, &rec.LastSeq, &snap)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, taskNotFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("store: get task: %w", err)
	}
	t, err := decodeTask(snap)
	if err != nil {
		return nil, err
	}
	rec.Task = *t
	return &rec, nil
}

// UpdateTask implements taskmanager.TaskStore.
func (s *SQLite) UpdateTask(ctx context.Context, owner string, t *a2a.Task, version int64, events []a2a.StreamResponse) (*taskmanager.TaskRecord, error) {
	return s.updateTask(ctx, owner, t, version, events, "")
}

// UpdateTaskReleasing implements taskmanager.LeaseReleasingUpdater: the update and
// the release in one transaction.
func (s *SQLite) UpdateTaskReleasing(ctx context.Context, owner string, t *a2a.Task, version int64, events []a2a.StreamResponse, holder string) (*taskmanager.TaskRecord, error) {
	return s.updateTask(ctx, owner, t, version, events, holder)
}

func (s *SQLite) updateTask(ctx context.Context, owner string, t *a2a.Task, version int64, events []a2a.StreamResponse, release string) (*taskmanager.TaskRecord, error) {
	c, err := columnsOf(t)
	if err != nil {
		return nil, err
	}
	evs, err := encodeEvents(events)
	if err != nil {
		return nil, err
	}
	rec := &taskmanager.TaskRecord{Task: *t.Clone()}
	err = s.writer.do(ctx, func(tx *wtx) error {
		err := tx.scan(`update a2a_tasks
			set context_id = ?, state = ?, status_ts = ?, snapshot = ?, version = version + 1, last_seq = last_seq + ?
			where id = ? and owner = ? and version = ?
			returning version, last_seq`,
			[]any{c.contextID, c.state, c.statusTS, c.snapshot, len(evs), t.ID, owner, version}, &rec.Version, &rec.LastSeq)
		if errors.Is(err, sql.ErrNoRows) {
			var one int
			err = tx.scan(`select 1 from a2a_tasks where id = ? and owner = ?`, []any{t.ID, owner}, &one)
			if errors.Is(err, sql.ErrNoRows) {
				return taskNotFound(t.ID)
			}
			if err != nil {
				return fmt.Errorf("store: update task: %w", err)
			}
			return taskmanager.ErrConflict
		}
		if err != nil {
			return fmt.Errorf("store: update task: %w", err)
		}
		first := rec.LastSeq - int64(len(evs)) + 1
		for i, e := range evs {
			if _, err := tx.exec(`insert into a2a_events (task_id, seq, event) values (?, ?, ?)`, t.ID, first+int64(i), e); err != nil {
				return fmt.Errorf("store: append events: %w", err)
			}
		}
		if release != "" {
			if _, err := tx.exec(`delete from a2a_leases where task_id = ? and holder = ?`, t.ID, release); err != nil {
				return fmt.Errorf("store: release lease: %w", err)
			}
		}
		tx.wake(t.ID)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rec, nil
}

// Events implements taskmanager.TaskStore.
func (s *SQLite) Events(ctx context.Context, owner, taskID string, after int64, limit int) ([]taskmanager.StoredEvent, error) {
	st, err := s.read(ctx, `select e.seq, e.event from a2a_tasks t
		left join a2a_events e on e.task_id = t.id and e.seq > ? and e.seq <= ?
		where t.id = ? and t.owner = ? order by e.seq`)
	if err != nil {
		return nil, fmt.Errorf("store: read events: %w", err)
	}
	rows, err := st.QueryContext(ctx, after, eventsUpper(after, limit), taskID, owner)
	if err != nil {
		return nil, fmt.Errorf("store: read events: %w", err)
	}
	defer rows.Close()
	return scanEvents(taskID, rows.Next, func(seq *sql.NullInt64, ev *[]byte) error { return rows.Scan(seq, ev) }, rows.Err)
}

// scanEvents reads the rows of the Events query: none means the task is
// not the owner's; one with a NULL seq means no events.
func scanEvents(taskID string, next func() bool, scan func(*sql.NullInt64, *[]byte) error, rowsErr func() error) ([]taskmanager.StoredEvent, error) {
	found := false
	var out []taskmanager.StoredEvent
	for next() {
		found = true
		var seq sql.NullInt64
		var ev []byte
		if err := scan(&seq, &ev); err != nil {
			return nil, fmt.Errorf("store: read events: %w", err)
		}
		if !seq.Valid {
			continue
		}
		e, err := decodeEvent(seq.Int64, ev)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	if err := rowsErr(); err != nil {
		return nil, fmt.Errorf("store: read events: %w", err)
	}
	if !found {
		return nil, taskNotFound(taskID)
	}
	return out, nil
}

// ListTasks implements taskmanager.TaskStore.
func (s *SQLite) ListTasks(ctx context.Context, owner string, q taskmanager.TaskQuery) (*taskmanager.TaskPage, error) {
	pageQ, pageArgs, countQ, countArgs := listQueries(owner, q, false)
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("store: list tasks: %w", err)
	}
	defer tx.Rollback()
	page := &taskmanager.TaskPage{}
	if err := tx.QueryRowContext(ctx, countQ, countArgs...).Scan(&page.Total); err != nil {
		return nil, fmt.Errorf("store: count tasks: %w", err)
	}
	rows, err := tx.QueryContext(ctx, pageQ, pageArgs...)
	if err != nil {
		return nil, fmt.Errorf("store: list tasks: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var snap []byte
		if err := rows.Scan(&snap); err != nil {
			return nil, fmt.Errorf("store: list tasks: %w", err)
		}
		if q.Limit > 0 && len(page.Tasks) == q.Limit {
			page.More = true
			break
		}
		t, err := decodeTask(snap)
		if err != nil {
			return nil, err
		}
		page.Tasks = append(page.Tasks, *t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list tasks: %w", err)
	}
	return page, nil
}

// Watch implements taskmanager.TaskStore.
func (s *SQLite) Watch(_ context.Context, taskID string) (<-chan struct{}, func()) {
	return s.hub.watch(taskID)
}

// AcquireLease implements taskmanager.LeaseStore.
func (s *SQLite) AcquireLease(ctx context.Context, taskID, holder string, ttl time.Duration) (bool, error) {
	var ok bool
	err := s.writer.do(ctx, func(tx *wtx) (err error) {
		ok, err = s.acquireLease(tx, taskID, holder, ttl)
		return err
	})
	return ok, err
}

func (s *SQLite) acquireLease(tx *wtx, taskID, holder string, ttl time.Duration) (bool, error) {
	now := s.now().UnixNano()
	res, err := tx.exec(`insert into a2a_leases (task_id, holder, expires_at) values (?, ?, ?)
		on conflict (task_id) do update set holder = excluded.holder, expires_at = excluded.expires_at
		where a2a_leases.holder = excluded.holder or a2a_leases.expires_at <= ?`,
		taskID, holder, now+int64(ttl), now)
	if err != nil {
		return false, fmt.Errorf("store: acquire lease: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// RenewLease implements taskmanager.LeaseStore.
func (s *SQLite) RenewLease(ctx context.Context, taskID, holder string, ttl time.Duration) (bool, error) {
	var ok bool
	err := s.writer.do(ctx, func(tx *wtx) error {
		now := s.now().UnixNano()
		res, err := tx.exec(`update a2a_leases set expires_at = ? where task_id = ? and holder = ? and expires_at > ?`,
			now+int64(ttl), taskID, holder, now)
		if err != nil {
			return fmt.Errorf("store: renew lease: %w", err)
		}
		n, _ := res.RowsAffected()
		ok = n == 1
		return nil
	})
	return ok, err
}

// ReleaseLease implements taskmanager.LeaseStore.
func (s *SQLite) ReleaseLease(ctx context.Context, taskID, holder string) error {
	return s.writer.do(ctx, func(tx *wtx) error {
		if _, err := tx.exec(`delete from a2a_leases where task_id = ? and holder = ?`, taskID, holder); err != nil {
			return fmt.Errorf("store: release lease: %w", err)
		}
		tx.wake(taskID) // a waiting message may take it now
		return nil
	})
}

// RequestCancel implements taskmanager.LeaseStore.
func (s *SQLite) RequestCancel(ctx context.Context, taskID string) error {
	return s.writer.do(ctx, func(tx *wtx) error {
		if _, err := tx.exec(`insert into a2a_cancels (task_id) values (?) on conflict do nothing`, taskID); err != nil {
			return fmt.Errorf("store: request cancel: %w", err)
		}
		tx.wake(taskID)
		return nil
	})
}

// CancelRequested implements taskmanager.LeaseStore.
func (s *SQLite) CancelRequested(ctx context.Context, taskID string) (bool, error) {
	var n int
	if err := s.queryRow(ctx, `select count(*) from a2a_cancels where task_id = ?`, []any{taskID}, &n); err != nil {
		return false, fmt.Errorf("store: read cancel flag: %w", err)
	}
	return n > 0, nil
}

// ownsTask reports whether owner's task id exists.
func (s *SQLite) ownsTask(ctx context.Context, owner, id string) error {
	var one int
	err := s.queryRow(ctx, `select 1 from a2a_tasks where id = ? and owner = ?`, []any{id, owner}, &one)
	if errors.Is(err, sql.ErrNoRows) {
		return taskNotFound(id)
	}
	if err != nil {
		return fmt.Errorf("store: read task: %w", err)
	}
	return nil
}

// PutPushConfig implements taskmanager.PushConfigStore. A new config's cursor
// starts at the task's last event: it gets only later events.
func (s *SQLite) PutPushConfig(ctx context.Context, owner string, cfg *a2a.TaskPushNotificationConfig) error {
	b, err := encodePush(cfg)
	if err != nil {
		return err
	}
	return s.writer.do(ctx, func(tx *wtx) error {
		res, err := tx.exec(`insert into a2a_push_configs (task_id, id, config, delivered)
			select id, ?, ?, last_seq from a2a_tasks where id = ? and owner = ?
			on conflict (task_id, id) do update set config = excluded.config`, cfg.ID, b, cfg.TaskID, owner)
		if err != nil {
			return fmt.Errorf("store: put push config: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return taskNotFound(cfg.TaskID)
		}
		return nil
	})
}

// GetPushConfig implements taskmanager.PushConfigStore.
func (s *SQLite) GetPushConfig(ctx context.Context, owner, taskID, id string) (*a2a.TaskPushNotificationConfig, error) {
	var b []byte
	err := s.r.QueryRowContext(ctx, `select p.config from a2a_push_configs p join a2a_tasks t on t.id = p.task_id
		where p.task_id = ? and p.id = ? and t.owner = ?`, taskID, id, owner).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		if err := s.ownsTask(ctx, owner, taskID); err != nil {
			return nil, err
		}
		return nil, pushNotFound(taskID, id)
	}
	if err != nil {
		return nil, fmt.Errorf("store: get push config: %w", err)
	}
	c, err := decodePush(b)
	return &c, err
}

// ListPushConfigs implements taskmanager.PushConfigStore.
func (s *SQLite) ListPushConfigs(ctx context.Context, owner, taskID string) ([]a2a.TaskPushNotificationConfig, error) {
	if err := s.ownsTask(ctx, owner, taskID); err != nil {
		return nil, err
	}
	rows, err := s.r.QueryContext(ctx, `select config from a2a_push_configs where task_id = ? order by pos`, taskID)
	if err != nil {
		return nil, fmt.Errorf("store: list push configs: %w", err)
	}
	defer rows.Close()
	var out []a2a.TaskPushNotificationConfig
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return nil, fmt.Errorf("store: list push configs: %w", err)
		}
		c, err := decodePush(b)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list push configs: %w", err)
	}
	return out, nil
}

// DeletePushConfig implements taskmanager.PushConfigStore.
func (s *SQLite) DeletePushConfig(ctx context.Context, owner, taskID, id string) error {
	var deleted bool
	err := s.writer.do(ctx, func(tx *wtx) error {
		res, err := tx.exec(`delete from a2a_push_configs where task_id = ? and id = ?
			and exists (select 1 from a2a_tasks t where t.id = ? and t.owner = ?)`, taskID, id, taskID, owner)
		if err != nil {
			return fmt.Errorf("store: delete push config: %w", err)
		}
		n, _ := res.RowsAffected()
		deleted = n > 0
		return nil
	})
	if err != nil || deleted {
		return err
	}
	return s.ownsTask(ctx, owner, taskID)
}

// DuePushes implements taskmanager.PushCursorStore.
func (s *SQLite) DuePushes(ctx context.Context, now time.Time, limit int) ([]taskmanager.PushDue, error) {
	rows, err := s.r.QueryContext(ctx, `select t.owner, p.config, p.delivered, t.last_seq, p.attempts
		from a2a_push_configs p join a2a_tasks t on t.id = p.task_id
		where p.delivered < t.last_seq and p.next_at <= ?
		order by p.next_at, p.task_id, p.id limit ?`, timeNanos(now), sqlLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("store: list due pushes: %w", err)
	}
	defer rows.Close()
	var out []taskmanager.PushDue
	for rows.Next() {
		var d taskmanager.PushDue
		var b []byte
		if err := rows.Scan(&d.Owner, &b, &d.Delivered, &d.LastSeq, &d.Attempts); err != nil {
			return nil, fmt.Errorf("store: list due pushes: %w", err)
		}
		if d.Config, err = decodePush(b); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list due pushes: %w", err)
	}
	return out, nil
}

// AdvancePush implements taskmanager.PushCursorStore.
func (s *SQLite) AdvancePush(ctx context.Context, owner, taskID, configID string, seq int64) error {
	return s.writer.do(ctx, func(tx *wtx) error {
		res, err := tx.exec(`update a2a_push_configs
			set delivered = max(delivered, ?), attempts = 0, next_at = 0, last_error = ''
			where task_id = ? and id = ? and exists (select 1 from a2a_tasks t where t.id = ? and t.owner = ?)`,
			seq, taskID, configID, taskID, owner)
		if err != nil {
			return fmt.Errorf("store: advance push cursor: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return pushNotFound(taskID, configID)
		}
		return nil
	})
}

// FailPush implements taskmanager.PushCursorStore.
func (s *SQLite) FailPush(ctx context.Context, owner, taskID, configID string, next time.Time, lastErr string) error {
	return s.writer.do(ctx, func(tx *wtx) error {
		res, err := tx.exec(`update a2a_push_configs
			set attempts = attempts + 1, next_at = ?, last_error = ?
			where task_id = ? and id = ? and exists (select 1 from a2a_tasks t where t.id = ? and t.owner = ?)`,
			timeNanos(next), lastErr, taskID, configID, taskID, owner)
		if err != nil {
			return fmt.Errorf("store: record push failure: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return pushNotFound(taskID, configID)
		}
		return nil
	})
}

// Prune implements taskmanager.MaintenanceStore.
func (s *SQLite) Prune(ctx context.Context, finishedBefore time.Time) (int, error) {
	states := terminalStates()
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(states)), ", ")
	sel := `select id from a2a_tasks where state in (` + marks + `) and status_ts < ? limit ` + fmt.Sprint(pruneBatch)
	args := make([]any, 0, len(states)+1)
	for _, st := range states {
		args = append(args, st)
	}
	args = append(args, timeNanos(finishedBefore))
	total := 0
	for {
		n, err := s.pruneBatch(ctx, sel, args)
		total += n
		if err != nil {
			return total, err
		}
		if n < pruneBatch {
			return total, nil
		}
	}
}

func (s *SQLite) pruneBatch(ctx context.Context, sel string, args []any) (int, error) {
	var n int64
	err := s.writer.do(ctx, func(tx *wtx) error {
		if _, err := tx.exec(`create temp table if not exists a2a_prune (id text primary key)`); err != nil {
			return fmt.Errorf("store: prune: %w", err)
		}
		if _, err := tx.exec(`delete from temp.a2a_prune`); err != nil {
			return fmt.Errorf("store: prune: %w", err)
		}
		res, err := tx.exec(`insert into temp.a2a_prune (id) `+sel, args...)
		if err != nil {
			return fmt.Errorf("store: prune: %w", err)
		}
		n, _ = res.RowsAffected()
		for _, q := range []string{
			`delete from a2a_leases where task_id in (select id from temp.a2a_prune)`,
			`delete from a2a_cancels where task_id in (select id from temp.a2a_prune)`,
			`delete from a2a_tasks where id in (select id from temp.a2a_prune)`, // events and push configs cascade
		} {
			if _, err := tx.exec(q); err != nil {
				return fmt.Errorf("store: prune: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return int(n), nil
}

// Orphans implements taskmanager.MaintenanceStore.
func (s *SQLite) Orphans(ctx context.Context, after string, limit int) ([]taskmanager.TaskRef, error) {
	rows, err := s.r.QueryContext(ctx, `select owner, id from a2a_tasks t
		where state in (?, ?) and id > ?
		and not exists (select 1 from a2a_leases l where l.task_id = t.id and l.expires_at > ?)
		order by id limit ?`,
		string(a2a.TaskStateSubmitted), string(a2a.TaskStateWorking), after, s.now().UnixNano(), sqlLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("store: list orphans: %w", err)
	}
	defer rows.Close()
	var out []taskmanager.TaskRef
	for rows.Next() {
		var r taskmanager.TaskRef
		if err := rows.Scan(&r.Owner, &r.ID); err != nil {
			return nil, fmt.Errorf("store: list orphans: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list orphans: %w", err)
	}
	return out, nil
}

// sqlitePath extracts the file path and the options of a sqlite: URL:
// sqlite:PATH, optionally followed by ?synchronous=full (the default) or
// ?synchronous=normal.
func sqlitePath(raw string) (string, SQLiteOptions, error) {
	var opts SQLiteOptions
	rest, ok := strings.CutPrefix(raw, "sqlite:")
	if !ok {
		return "", opts, fmt.Errorf("store: %q is not a sqlite: URL", raw)
	}
	if p, ok := strings.CutPrefix(rest, "//"); ok {
		rest = p
	}
	rest, query, hasQuery := strings.Cut(rest, "?")
	if u, err := url.PathUnescape(rest); err == nil {
		rest = u
	}
	if rest == "" {
		return "", opts, fmt.Errorf("store: sqlite: URL needs a file path, e.g. sqlite:/var/lib/bridge/tasks.db")
	}
	if hasQuery {
		q, err := url.ParseQuery(query)
		if err != nil {
			return "", opts, fmt.Errorf("store: sqlite: URL query %q: %w", query, err)
		}
		for k, v := range q {
			if k != "synchronous" || len(v) != 1 {
				return "", opts, fmt.Errorf("store: sqlite: URL query %q: the only option is synchronous=full or synchronous=normal", query)
			}
			switch strings.ToLower(v[0]) {
			case "full":
				opts.Synchronous = SyncFull
			case "normal":
				opts.Synchronous = SyncNormal
			default:
				return "", opts, fmt.Errorf("store: sqlite: synchronous=%q: want full (the default) or normal", v[0])
			}
		}
	}
	return rest, opts, nil
}
