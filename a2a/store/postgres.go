package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
)

// Postgres is an taskmanager.Store in PostgreSQL, shared by several replicas. Each
// write that matters to readers sends a NOTIFY; one listening connection per
// process fans it out to the Watch channels, so a subscriber on any replica
// wakes when a task changes on any other. Leases are timed by the database
// clock, so replicas with skewed clocks agree on expiry.
//
// Writes are one statement each and are batched (pgWriter): the writes of
// concurrent callers travel in one pipeline, one round trip and one
// transaction, so they share one commit and one WAL flush. A write returns
// once its transaction committed; how durable that is is the server's
// synchronous_commit (on by default: flushed to the WAL on disk).
type Postgres struct {
	pool    *pgxpool.Pool
	writer  *pgWriter
	hub     *hub
	channel string
	log     *slog.Logger

	stop     context.CancelFunc
	done     chan struct{}
	closeOne sync.Once
}

var (
	_ taskmanager.Store                 = (*Postgres)(nil)
	_ taskmanager.LeasedTaskCreator     = (*Postgres)(nil)
	_ taskmanager.EventfulTaskCreator   = (*Postgres)(nil)
	_ taskmanager.LeaseReleasingUpdater = (*Postgres)(nil)
)

// postgresMigrations are applied in order, each once, recorded in
// a2a_store_migrations. Append only.
var postgresMigrations = []string{
	`create table a2a_tasks (
		id text collate "C" primary key,
		owner text not null,
		context_id text not null,
		state text not null,
		status_ts bigint not null,
		version bigint not null,
		last_seq bigint not null,
		snapshot json not null
	);
	create index a2a_tasks_owner_order on a2a_tasks (owner, status_ts desc, id desc);
	create index a2a_tasks_owner_context_order on a2a_tasks (owner, context_id, status_ts desc, id desc);
	create index a2a_tasks_state_ts on a2a_tasks (state, status_ts);
	create table a2a_events (
		task_id text collate "C" not null references a2a_tasks (id) on delete cascade,
		seq bigint not null,
		event json not null,
		primary key (task_id, seq)
	);
	create table a2a_leases (
		task_id text collate "C" primary key,
		holder text not null,
		expires_at timestamptz not null
	);
	create table a2a_cancels (
		task_id text collate "C" primary key
	);
	create table a2a_push_configs (
		pos bigserial primary key,
		task_id text collate "C" not null references a2a_tasks (id) on delete cascade,
		id text collate "C" not null,
		config json not null,
		delivered bigint not null,
		attempts integer not null default 0,
		next_at bigint not null default 0,
		last_error text not null default '',
		unique (task_id, id)
	);
	create index a2a_push_configs_next on a2a_push_configs (next_at);`,
}

// OpenPostgres connects to the database at url (a postgres:// URL; pgx
// settings such as pool_max_conns and search_path may be given in its
// query), brings the schema up to date and starts listening for changes.
// Several replicas may open the same database at once.
func OpenPostgres(ctx context.Context, url string) (*Postgres, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("store: open postgres: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: open postgres: %w", err)
	}
	p := &Postgres{pool: pool, hub: newHub(), log: slog.Default(), done: make(chan struct{})}
	var schema *string
	if err := pool.QueryRow(ctx, `select current_schema()`).Scan(&schema); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: open postgres: %w", err)
	}
	if schema == nil {
		pool.Close()
		return nil, errors.New("store: open postgres: no schema to use: the search_path names no existing schema")
	}
	// NOTIFY channels are database-wide; one per schema keeps stores in
	// different schemas of one database apart.
	p.channel = "a2a_tasks_" + *schema
	if len(p.channel) > 63 {
		p.channel = p.channel[:63]
	}
	if err := p.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	p.writer = newPGWriter(pool, p.hub)
	lctx, stop := context.WithCancel(context.Background())
	p.stop = stop
	ready := make(chan struct{})
	go p.listen(lctx, cfg.ConnConfig.Copy(), ready)
	select {
	case <-ready:
	case <-ctx.Done():
		p.Close()
		return nil, fmt.Errorf("store: open postgres: listen: %w", ctx.Err())
	}
	return p, nil
}

func (p *Postgres) migrate(ctx context.Context) error {
	tx, err := p.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("store: migrate postgres: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	// One migrator per schema at a time; the others wait here and then
	// find the work done.
	if _, err := tx.Exec(ctx, `select pg_advisory_xact_lock(hashtext('a2a_store_migrations.' || current_schema()))`); err != nil {
		return fmt.Errorf("store: migrate postgres: lock: %w", err)
	}
	if _, err := tx.Exec(ctx, `create table if not exists a2a_store_migrations (
		version integer primary key,
		applied_at timestamptz not null default now())`); err != nil {
		return fmt.Errorf("store: migrate postgres: %w", err)
	}
	var v int
	if err := tx.QueryRow(ctx, `select coalesce(max(version), 0) from a2a_store_migrations`).Scan(&v); err != nil {
		return fmt.Errorf("store: migrate postgres: read version: %w", err)
	}
	if v > len(postgresMigrations) {
		return fmt.Errorf("store: migrate postgres: schema version %d is newer than this binary knows (%d)", v, len(postgresMigrations))
	}
	for i := v; i < len(postgresMigrations); i++ {
		if _, err := tx.Exec(ctx, postgresMigrations[i]); err != nil {
			return fmt.Errorf("store: migrate postgres to version %d: %w", i+1, err)
		}
		if _, err := tx.Exec(ctx, `insert into a2a_store_migrations (version) values ($1)`, i+1); err != nil {
			return fmt.Errorf("store: migrate postgres: record version %d: %w", i+1, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("store: migrate postgres: %w", err)
	}
	return nil
}

// listen keeps one connection LISTENing and fans notifications out to the
// hub, reconnecting with backoff. After every (re)connect it wakes all
// watchers, since notifications sent while it was away are lost.
func (p *Postgres) listen(ctx context.Context, cfg *pgx.ConnConfig, ready chan struct{}) {
	defer close(p.done)
	var readyOnce sync.Once
	markReady := func() { readyOnce.Do(func() { close(ready) }) }
	defer markReady()
	backoff := 50 * time.Millisecond
	for ctx.Err() == nil {
		err := p.listenOnce(ctx, cfg, markReady)
		if ctx.Err() != nil {
			return
		}
		p.log.Warn("store: postgres change listener lost its connection; readers fall back to polling until it is back", "err", err, "retry_in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 5*time.Second)
	}
}

func (p *Postgres) listenOnce(ctx context.Context, cfg *pgx.ConnConfig, connected func()) error {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "listen "+pgx.Identifier{p.channel}.Sanitize()); err != nil {
		return err
	}
	connected()
	p.hub.notifyAll()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		p.hub.notify(n.Payload)
	}
}

// Close stops the listener and closes the pool.
func (p *Postgres) Close() error {
	p.closeOne.Do(func() {
		p.writer.close()
		p.stop()
		<-p.done
		p.pool.Close()
	})
	return nil
}

// CreateTask implements taskmanager.TaskStore.
func (p *Postgres) CreateTask(ctx context.Context, owner string, t *a2a.Task) error {
	c, err := columnsOf(t)
	if err != nil {
		return err
	}
	var created int64
	err = p.writer.do(ctx, &pgOp{taskID: t.ID, sql: `insert into a2a_tasks (id, owner, context_id, state, status_ts, version, last_seq, snapshot)
		values ($1, $2, $3, $4, $5, 1, 0, $6) on conflict (id) do nothing`,
		args: []any{t.ID, owner, c.contextID, c.state, c.statusTS, string(c.snapshot)},
		tag:  func(ct pgconn.CommandTag) { created = ct.RowsAffected() }})
	if err != nil {
		return fmt.Errorf("store: create task: %w", err)
	}
	if created == 0 {
		return taskmanager.ErrExists
	}
	return nil
}

// CreateLeasedTask implements taskmanager.LeasedTaskCreator in one statement, so
// one round trip and atomic: the lease is taken unless the task exists, the
// task is created if the lease was taken. A task created by someone else
// between the two (the same id created twice at once) makes the statement
// fail on purpose (division by zero), which undoes the lease with it.
func (p *Postgres) CreateLeasedTask(ctx context.Context, owner string, t *a2a.Task, holder string, ttl time.Duration) error {
	c, err := columnsOf(t)
	if err != nil {
		return err
	}
	var exists bool
	var leased, created int
	err = p.writer.do(ctx, &pgOp{taskID: t.ID, sql: `with e as (select exists (select 1 from a2a_tasks where id = $1) as yes),
		l as (
			insert into a2a_leases as l (task_id, holder, expires_at)
			select $1, $7, now() + $8 * interval '1 microsecond' where not (select yes from e)
			on conflict (task_id) do update set holder = excluded.holder, expires_at = excluded.expires_at
			where l.holder = excluded.holder or l.expires_at <= now()
			returning 1),
		t as (
			insert into a2a_tasks (id, owner, context_id, state, status_ts, version, last_seq, snapshot)
			select $1, $2, $3, $4, $5, 1, 0, $6 where exists (select 1 from l)
			on conflict (id) do nothing
			returning 1)
		select (select yes from e), (select count(*) from l)::int,
			(select count(*) from t)::int / case when (select count(*) from l) > (select count(*) from t) then 0 else 1 end`,
		args: []any{t.ID, owner, c.contextID, c.state, c.statusTS, string(c.snapshot), holder, ttl.Microseconds()},
		row:  func(r pgx.Row) error { return r.Scan(&exists, &leased, &created) }})
	switch {
	case err != nil:
		if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok && pgErr.Code == "22012" {
			return taskmanager.ErrExists
		}
		return fmt.Errorf("store: create task: %w", err)
	case exists:
		return taskmanager.ErrExists
	case leased == 0:
		return taskmanager.ErrLeaseHeld
	}
	return nil
}

// CreateTaskWithEvents implements taskmanager.EventfulTaskCreator in one
// statement, as CreateLeasedTask: the lease (with holder) is taken unless
// the task exists, the task is created (at version 2, its last seq the
// number of events) if the lease was taken or none is wanted, the events
// are numbered from 1 and the watchers notified only if the task was
// created. A task created by someone else meanwhile fails the statement
// on purpose, as in CreateLeasedTask, undoing the lease with it.
func (p *Postgres) CreateTaskWithEvents(ctx context.Context, owner string, t *a2a.Task, events []a2a.StreamResponse, holder string, ttl time.Duration) (*taskmanager.TaskRecord, error) {
	c, err := columnsOf(t)
	if err != nil {
		return nil, err
	}
	evs, err := encodeEvents(events)
	if err != nil {
		return nil, err
	}
	var exists bool
	var leased, created int
	err = p.writer.do(ctx, &pgOp{taskID: t.ID, wake: true, sql: `with e as (select exists (select 1 from a2a_tasks where id = $1) as yes),
		l as (
			insert into a2a_leases as l (task_id, holder, expires_at)
			select $1, $7, now() + $8 * interval '1 microsecond' where $7 <> '' and not (select yes from e)
			on conflict (task_id) do update set holder = excluded.holder, expires_at = excluded.expires_at
			where l.holder = excluded.holder or l.expires_at <= now()
			returning 1),
		t as (
			insert into a2a_tasks (id, owner, context_id, state, status_ts, version, last_seq, snapshot)
			select $1, $2, $3, $4, $5, 2, $9, $6 where not (select yes from e) and ($7 = '' or exists (select 1 from l))
			on conflict (id) do nothing
			returning 1),
		ins as (
			insert into a2a_events (task_id, seq, event)
			select $1, u.ord, u.ev::json
			from t, unnest($10::text[]) with ordinality as u(ev, ord)),
		n as (select pg_notify($11, $1) from t)
		select (select yes from e), (select count(*) from l)::int,
			(select count(*) from t)::int / case when (select count(*) from l) > (select count(*) from t) then 0 else 1 end,
			(select count(*) from n)`,
		args: []any{t.ID, owner, c.contextID, c.state, c.statusTS, string(c.snapshot), holder, ttl.Microseconds(), int64(len(evs)), evs, p.channel},
		row: func(r pgx.Row) error {
			var notified int64
			return r.Scan(&exists, &leased, &created, &notified)
		}})
	switch {
	case err != nil:
		if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok && pgErr.Code == "22012" {
			return nil, taskmanager.ErrExists
		}
		return nil, fmt.Errorf("store: create task: %w", err)
	case exists:
		return nil, taskmanager.ErrExists
	case holder != "" && leased == 0:
		return nil, taskmanager.ErrLeaseHeld
	case created == 0:
		return nil, taskmanager.ErrExists
	}
	return &taskmanager.TaskRecord{Task: *t.Clone(), Version: 2, LastSeq: int64(len(evs))}, nil
}

// GetTask implements taskmanager.TaskStore.
func (p *Postgres) GetTask(ctx context.Context, owner, id string) (*taskmanager.TaskRecord, error) {
	var rec taskmanager.TaskRecord
	var snap []byte
	err := p.pool.QueryRow(ctx, `select version, last_seq, snapshot from a2a_tasks where id = $1 and owner = $2`, id, owner).
		Scan(&rec.Version, &rec.LastSeq, &snap)
	if errors.Is(err, pgx.ErrNoRows) {
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

// UpdateTask implements taskmanager.TaskStore. One statement does it all, so it is
// one round trip and atomic: the compare-and-swap on the version (the row
// lock serializes concurrent writers; a loser re-reads the new version and
// matches nothing), the events numbered from the new last seq, and the
// NOTIFY, which PostgreSQL delivers only once the statement committed.
func (p *Postgres) UpdateTask(ctx context.Context, owner string, t *a2a.Task, version int64, events []a2a.StreamResponse) (*taskmanager.TaskRecord, error) {
	return p.updateTask(ctx, owner, t, version, events, "")
}

// UpdateTaskReleasing implements taskmanager.LeaseReleasingUpdater: the release is
// one more part of UpdateTask's statement, done only if the update was.
func (p *Postgres) UpdateTaskReleasing(ctx context.Context, owner string, t *a2a.Task, version int64, events []a2a.StreamResponse, holder string) (*taskmanager.TaskRecord, error) {
	return p.updateTask(ctx, owner, t, version, events, holder)
}

// updateTask is UpdateTask, releasing release's lease with it (holders are
// never empty, so "" releases nothing).
func (p *Postgres) updateTask(ctx context.Context, owner string, t *a2a.Task, version int64, events []a2a.StreamResponse, release string) (*taskmanager.TaskRecord, error) {
	c, err := columnsOf(t)
	if err != nil {
		return nil, err
	}
	evs, err := encodeEvents(events)
	if err != nil {
		return nil, err
	}
	rec := &taskmanager.TaskRecord{Task: *t.Clone()}
	var notified int64
	updated := true
	err = p.writer.do(ctx, &pgOp{taskID: t.ID, wake: true, sql: `with up as (
			update a2a_tasks
			set context_id = $4, state = $5, status_ts = $6, snapshot = $7, version = version + 1, last_seq = last_seq + $8
			where id = $1 and owner = $2 and version = $3
			returning version, last_seq),
		ins as (
			insert into a2a_events (task_id, seq, event)
			select $1, up.last_seq - $8 + u.ord, u.ev::json
			from up, unnest($9::text[]) with ordinality as u(ev, ord)),
		n as (select pg_notify($10, $1) from up),
		r as (delete from a2a_leases where task_id = $1 and holder = $11 and exists (select 1 from up))
		select up.version, up.last_seq, (select count(*) from n) from up`,
		args: []any{t.ID, owner, version, c.contextID, c.state, c.statusTS, string(c.snapshot), int64(len(evs)), evs, p.channel, release},
		row: func(r pgx.Row) error {
			err := r.Scan(&rec.Version, &rec.LastSeq, &notified)
			if errors.Is(err, pgx.ErrNoRows) {
				updated = false
				return nil
			}
			return err
		}})
	if err != nil {
		return nil, fmt.Errorf("store: update task: %w", err)
	}
	if !updated {
		if err := p.ownsTask(ctx, owner, t.ID); err != nil {
			return nil, err
		}
		return nil, taskmanager.ErrConflict
	}
	return rec, nil
}

func (p *Postgres) ownsTask(ctx context.Context, owner, id string) error {
	var one int
	err := p.pool.QueryRow(ctx, `select 1 from a2a_tasks where id = $1 and owner = $2`, id, owner).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return taskNotFound(id)
	}
	if err != nil {
		return fmt.Errorf("store: read task: %w", err)
	}
	return nil
}

// Events implements taskmanager.TaskStore.
func (p *Postgres) Events(ctx context.Context, owner, taskID string, after int64, limit int) ([]taskmanager.StoredEvent, error) {
	rows, err := p.pool.Query(ctx, `select e.seq, e.event from a2a_tasks t
		left join a2a_events e on e.task_id = t.id and e.seq > $1 and e.seq <= $2
		where t.id = $3 and t.owner = $4 order by e.seq`, after, eventsUpper(after, limit), taskID, owner)
	if err != nil {
		return nil, fmt.Errorf("store: read events: %w", err)
	}
	defer rows.Close()
	found := false
	var out []taskmanager.StoredEvent
	for rows.Next() {
		found = true
		var seq *int64
		var ev []byte
		if err := rows.Scan(&seq, &ev); err != nil {
			return nil, fmt.Errorf("store: read events: %w", err)
		}
		if seq == nil {
			continue
		}
		e, err := decodeEvent(*seq, ev)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: read events: %w", err)
	}
	if !found {
		return nil, taskNotFound(taskID)
	}
	return out, nil
}

// ListTasks implements taskmanager.TaskStore.
func (p *Postgres) ListTasks(ctx context.Context, owner string, q taskmanager.TaskQuery) (*taskmanager.TaskPage, error) {
	pageQ, pageArgs, countQ, countArgs := listQueries(owner, q, true)
	page := &taskmanager.TaskPage{}
	b := &pgx.Batch{}
	b.Queue(countQ, countArgs...).QueryRow(func(r pgx.Row) error { return r.Scan(&page.Total) })
	b.Queue(pageQ, pageArgs...).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var snap []byte
			if err := rows.Scan(&snap); err != nil {
				return err
			}
			if q.Limit > 0 && len(page.Tasks) == q.Limit {
				page.More = true
				return nil
			}
			t, err := decodeTask(snap)
			if err != nil {
				return err
			}
			page.Tasks = append(page.Tasks, *t)
		}
		return rows.Err()
	})
	// One round trip for both.
	if err := p.pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("store: list tasks: %w", err)
	}
	return page, nil
}

// Watch implements taskmanager.TaskStore.
func (p *Postgres) Watch(_ context.Context, taskID string) (<-chan struct{}, func()) {
	return p.hub.watch(taskID)
}

// AcquireLease implements taskmanager.LeaseStore.
func (p *Postgres) AcquireLease(ctx context.Context, taskID, holder string, ttl time.Duration) (bool, error) {
	var n int64
	err := p.writer.do(ctx, &pgOp{taskID: taskID, sql: `insert into a2a_leases as l (task_id, holder, expires_at)
		values ($1, $2, now() + $3 * interval '1 microsecond')
		on conflict (task_id) do update set holder = excluded.holder, expires_at = excluded.expires_at
		where l.holder = excluded.holder or l.expires_at <= now()`, args: []any{taskID, holder, ttl.Microseconds()},
		tag: func(ct pgconn.CommandTag) { n = ct.RowsAffected() }})
	if err != nil {
		return false, fmt.Errorf("store: acquire lease: %w", err)
	}
	return n == 1, nil
}

// RenewLease implements taskmanager.LeaseStore.
func (p *Postgres) RenewLease(ctx context.Context, taskID, holder string, ttl time.Duration) (bool, error) {
	var n int64
	err := p.writer.do(ctx, &pgOp{taskID: taskID, sql: `update a2a_leases set expires_at = now() + $3 * interval '1 microsecond'
		where task_id = $1 and holder = $2 and expires_at > now()`, args: []any{taskID, holder, ttl.Microseconds()},
		tag: func(ct pgconn.CommandTag) { n = ct.RowsAffected() }})
	if err != nil {
		return false, fmt.Errorf("store: renew lease: %w", err)
	}
	return n == 1, nil
}

// ReleaseLease implements taskmanager.LeaseStore. It wakes watchers everywhere: a
// message waiting for the lease on another replica may take it now.
func (p *Postgres) ReleaseLease(ctx context.Context, taskID, holder string) error {
	err := p.writer.do(ctx, &pgOp{taskID: taskID, wake: true, sql: `with d as (delete from a2a_leases where task_id = $1 and holder = $2 returning 1)
		select pg_notify($3, $1) from d`, args: []any{taskID, holder, p.channel}})
	if err != nil {
		return fmt.Errorf("store: release lease: %w", err)
	}
	return nil
}

// RequestCancel implements taskmanager.LeaseStore.
func (p *Postgres) RequestCancel(ctx context.Context, taskID string) error {
	err := p.writer.do(ctx, &pgOp{taskID: taskID, wake: true, sql: `with i as (insert into a2a_cancels (task_id) values ($1) on conflict do nothing)
		select pg_notify($2, $1)`, args: []any{taskID, p.channel}})
	if err != nil {
		return fmt.Errorf("store: request cancel: %w", err)
	}
	return nil
}

// CancelRequested implements taskmanager.LeaseStore.
func (p *Postgres) CancelRequested(ctx context.Context, taskID string) (bool, error) {
	var yes bool
	if err := p.pool.QueryRow(ctx, `select exists (select 1 from a2a_cancels where task_id = $1)`, taskID).Scan(&yes); err != nil {
		return false, fmt.Errorf("store: read cancel flag: %w", err)
	}
	return yes, nil
}

// PutPushConfig implements taskmanager.PushConfigStore. A new config's cursor
// starts at the task's last event: it gets only later events.
func (p *Postgres) PutPushConfig(ctx context.Context, owner string, cfg *a2a.TaskPushNotificationConfig) error {
	b, err := encodePush(cfg)
	if err != nil {
		return err
	}
	var n int64
	err = p.writer.do(ctx, &pgOp{taskID: cfg.TaskID, sql: `insert into a2a_push_configs (task_id, id, config, delivered)
		select id, $1, $2, last_seq from a2a_tasks where id = $3 and owner = $4
		on conflict (task_id, id) do update set config = excluded.config`, args: []any{cfg.ID, string(b), cfg.TaskID, owner},
		tag: func(ct pgconn.CommandTag) { n = ct.RowsAffected() }})
	if err != nil {
		return fmt.Errorf("store: put push config: %w", err)
	}
	if n == 0 {
		return taskNotFound(cfg.TaskID)
	}
	return nil
}

// GetPushConfig implements taskmanager.PushConfigStore.
func (p *Postgres) GetPushConfig(ctx context.Context, owner, taskID, id string) (*a2a.TaskPushNotificationConfig, error) {
	var b []byte
	err := p.pool.QueryRow(ctx, `select p.config from a2a_push_configs p join a2a_tasks t on t.id = p.task_id
		where p.task_id = $1 and p.id = $2 and t.owner = $3`, taskID, id, owner).Scan(&b)
	if errors.Is(err, pgx.ErrNoRows) {
		if err := p.ownsTask(ctx, owner, taskID); err != nil {
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
func (p *Postgres) ListPushConfigs(ctx context.Context, owner, taskID string) ([]a2a.TaskPushNotificationConfig, error) {
	if err := p.ownsTask(ctx, owner, taskID); err != nil {
		return nil, err
	}
	rows, err := p.pool.Query(ctx, `select config from a2a_push_configs where task_id = $1 order by pos`, taskID)
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
func (p *Postgres) DeletePushConfig(ctx context.Context, owner, taskID, id string) error {
	var n int64
	err := p.writer.do(ctx, &pgOp{taskID: taskID, sql: `delete from a2a_push_configs where task_id = $1 and id = $2
		and exists (select 1 from a2a_tasks t where t.id = $1 and t.owner = $3)`, args: []any{taskID, id, owner},
		tag: func(ct pgconn.CommandTag) { n = ct.RowsAffected() }})
	if err != nil {
		return fmt.Errorf("store: delete push config: %w", err)
	}
	if n == 0 {
		return p.ownsTask(ctx, owner, taskID)
	}
	return nil
}

// DuePushes implements taskmanager.PushCursorStore.
func (p *Postgres) DuePushes(ctx context.Context, now time.Time, limit int) ([]taskmanager.PushDue, error) {
	rows, err := p.pool.Query(ctx, `select t.owner, p.config, p.delivered, t.last_seq, p.attempts
		from a2a_push_configs p join a2a_tasks t on t.id = p.task_id
		where p.delivered < t.last_seq and p.next_at <= $1
		order by p.next_at, p.task_id, p.id limit $2`, timeNanos(now), sqlLimit(limit))
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
func (p *Postgres) AdvancePush(ctx context.Context, owner, taskID, configID string, seq int64) error {
	var n int64
	err := p.writer.do(ctx, &pgOp{taskID: taskID, sql: `update a2a_push_configs
		set delivered = greatest(delivered, $4), attempts = 0, next_at = 0, last_error = ''
		where task_id = $1 and id = $2 and exists (select 1 from a2a_tasks t where t.id = $1 and t.owner = $3)`,
		args: []any{taskID, configID, owner, seq}, tag: func(ct pgconn.CommandTag) { n = ct.RowsAffected() }})
	if err != nil {
		return fmt.Errorf("store: advance push cursor: %w", err)
	}
	if n == 0 {
		return pushNotFound(taskID, configID)
	}
	return nil
}

// FailPush implements taskmanager.PushCursorStore.
func (p *Postgres) FailPush(ctx context.Context, owner, taskID, configID string, next time.Time, lastErr string) error {
	var n int64
	err := p.writer.do(ctx, &pgOp{taskID: taskID, sql: `update a2a_push_configs
		set attempts = attempts + 1, next_at = $4, last_error = $5
		where task_id = $1 and id = $2 and exists (select 1 from a2a_tasks t where t.id = $1 and t.owner = $3)`,
		args: []any{taskID, configID, owner, timeNanos(next), lastErr}, tag: func(ct pgconn.CommandTag) { n = ct.RowsAffected() }})
	if err != nil {
		return fmt.Errorf("store: record push failure: %w", err)
	}
	if n == 0 {
		return pushNotFound(taskID, configID)
	}
	return nil
}

// Prune implements taskmanager.MaintenanceStore. Replicas may prune at once: a
// row another one deleted first is simply not counted twice.
func (p *Postgres) Prune(ctx context.Context, finishedBefore time.Time) (int, error) {
	total := 0
	for {
		var n int
		err := p.pool.QueryRow(ctx, `with d as (
				delete from a2a_tasks where id in (
					select id from a2a_tasks where state = any($1) and status_ts < $2 limit $3)
				returning id),
			l as (delete from a2a_leases where task_id in (select id from d)),
			c as (delete from a2a_cancels where task_id in (select id from d))
			select count(*) from d`, terminalStates(), timeNanos(finishedBefore), pruneBatch).Scan(&n)
		total += n
		if err != nil {
			return total, fmt.Errorf("store: prune: %w", err)
		}
		if n < pruneBatch {
			return total, nil
		}
	}
}

// Orphans implements taskmanager.MaintenanceStore.
func (p *Postgres) Orphans(ctx context.Context, after string, limit int) ([]taskmanager.TaskRef, error) {
	rows, err := p.pool.Query(ctx, `select owner, id from a2a_tasks t
		where state in ($1, $2) and id > $3
		and not exists (select 1 from a2a_leases l where l.task_id = t.id and l.expires_at > now())
		order by id limit $4`, string(a2a.TaskStateSubmitted), string(a2a.TaskStateWorking), after, sqlLimit(limit))
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
