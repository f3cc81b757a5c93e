package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"sync"
)

// sqliteWriter is the SQLite store's one writer: a goroutine that owns the
// write connection and runs every write of the store, grouping the writes
// that arrive while a transaction commits into the next one (group
// commit). A caller's write is acknowledged only once the transaction that
// holds it has committed, so what a caller was told is written is on disk;
// concurrent callers share one commit, and with it one sync of the WAL.
//
// A write is a function over the batch's transaction (wtx). Outcomes such
// as "task not found" or "version changed" are results, not failures: the
// function leaves the database as it found it and returns them. A failure
// of SQLite itself (a statement that errors) would leave that write half
// done inside the shared transaction, so the batch is rolled back and each
// of its writes is run again in a transaction of its own; only the write
// that fails again gets the failure.
type sqliteWriter struct {
	conn  *sql.Conn
	stmts map[string]*sql.Stmt // prepared once on conn, by query text
	hub   *hub

	// onBatch, if set (tests), sees the size of each batch and whether it
	// had to be split.
	onBatch func(size int, split bool)

	ops    chan *writeOp
	quit   chan struct{}
	exited chan struct{}
	stop   sync.Once
}

// maxBatch bounds the writes one transaction takes: the first of them
// waits for the last, so a batch must not grow without end.
const maxBatch = 128

// writeOp is one caller's write.
type writeOp struct {
	fn func(*wtx) error
	// res is the caller's outcome (buffered: the writer never blocks on it).
	res chan error
	// woken are the tasks whose watchers are woken once the write committed.
	woken []string
	// result and failed are the write's outcome in the current attempt.
	result error
	failed error
}

// errStoreClosed is returned for writes after Close.
var errStoreClosed = errors.New("store: sqlite store is closed")

func newSQLiteWriter(conn *sql.Conn, h *hub) *sqliteWriter {
	w := &sqliteWriter{
		conn: conn, stmts: map[string]*sql.Stmt{}, hub: h,
		ops: make(chan *writeOp), quit: make(chan struct{}), exited: make(chan struct{}),
	}
	go w.loop()
	return w
}

// do runs fn in a write transaction and returns its outcome once that
// transaction committed. A caller whose ctx ends before its write was taken
// gets ctx's error and nothing is written; once taken, the write is waited
// for (it commits or fails within one batch).
func (w *sqliteWriter) do(ctx context.Context, fn func(*wtx) error) error {
	op := &writeOp{fn: fn, res: make(chan error, 1)}
	select {
	case w.ops <- op:
	case <-ctx.Done():
		return ctx.Err()
	case <-w.quit:
		return errStoreClosed
	}
	select {
	case err := <-op.res:
		return err
	case <-w.exited:
		select {
		case err := <-op.res:
			return err
		default:
			return errStoreClosed
		}
	}
}

// close stops the writer once the writes it has taken are done.
func (w *sqliteWriter) close() {
	w.stop.Do(func() { close(w.quit) })
	<-w.exited
	for _, st := range w.stmts {
		st.Close()
	}
}

func (w *sqliteWriter) loop() {
	defer close(w.exited)
	batch := make([]*writeOp, 0, maxBatch)
	for {
		select {
		case op := <-w.ops:
			batch = append(batch[:0], op)
		case <-w.quit:
			return
		}
		// Let the goroutines that are ready to run do so first: under load
		// many callers are runnable at once, a step short of sending their
		// write, and on a busy core (one P) they would each get a commit of
		// their own. Yielding once lets them queue theirs behind this one;
		// with nothing else runnable it returns at once, so a lone write
		// is not delayed. (Measured with `bridge serve` on one core: batches
		// of 2.4-6 writes became 12-14 at the same load, and the SQLite
		// front's throughput rose by 0-36% over three rounds.)
		runtime.Gosched()
		// Take every write already waiting: they share the commit.
	more:
		for len(batch) < maxBatch {
			select {
			case op := <-w.ops:
				batch = append(batch, op)
			default:
				break more
			}
		}
		w.run(batch)
		clear(batch)
	}
}

// run commits a batch, or, if a write in it failed, each write on its own.
func (w *sqliteWriter) run(batch []*writeOp) {
	err := w.attempt(batch)
	if w.onBatch != nil {
		w.onBatch(len(batch), err != nil && len(batch) > 1)
	}
	if err == nil || len(batch) == 1 {
		w.answer(batch, err)
		return
	}
	for _, op := range batch {
		w.answer([]*writeOp{op}, w.attempt([]*writeOp{op}))
	}
}

// attempt runs the writes of batch in one transaction and commits it. It
// returns the failure that rolled it back, if any.
func (w *sqliteWriter) attempt(batch []*writeOp) error {
	ctx := context.Background()
	if _, err := w.exec(ctx, "begin immediate"); err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	for _, op := range batch {
		t := &wtx{ctx: ctx, w: w, op: op}
		op.woken, op.failed = op.woken[:0], nil
		op.result = op.fn(t)
		if op.failed != nil {
			w.rollback(ctx)
			return op.failed
		}
	}
	if _, err := w.exec(ctx, "commit"); err != nil {
		w.rollback(ctx)
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

func (w *sqliteWriter) rollback(ctx context.Context) {
	_, _ = w.exec(ctx, "rollback")
}

// answer gives each write of a finished batch its outcome and, when it
// committed, wakes the watchers of the tasks it changed.
func (w *sqliteWriter) answer(batch []*writeOp, failure error) {
	for _, op := range batch {
		if failure != nil {
			err := failure
			if op.failed != nil && op.result != nil {
				err = op.result // the write's own account of its failure
			}
			op.res <- err
			continue
		}
		for _, id := range op.woken {
			w.hub.notify(id)
		}
		op.res <- op.result
	}
}

// stmt returns the prepared statement of query, preparing it on first use.
func (w *sqliteWriter) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := w.stmts[query]; ok {
		return st, nil
	}
	st, err := w.conn.PrepareContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("store: prepare: %w", err)
	}
	w.stmts[query] = st
	return st, nil
}

func (w *sqliteWriter) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := w.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

// wtx is what a write sees of the batch's transaction: statements that
// record a failure of SQLite on the write (see sqliteWriter), and the tasks
// to wake once it committed.
type wtx struct {
	ctx context.Context
	w   *sqliteWriter
	op  *writeOp
}

// exec runs a statement; an error is the write's failure.
func (t *wtx) exec(query string, args ...any) (sql.Result, error) {
	res, err := t.w.exec(t.ctx, query, args...)
	if err != nil {
		t.fail(err)
	}
	return res, err
}

// scan runs a query of one row into dest. sql.ErrNoRows is an outcome, not
// a failure; any other error is the write's failure.
func (t *wtx) scan(query string, args []any, dest ...any) error {
	st, err := t.w.stmt(t.ctx, query)
	if err != nil {
		t.fail(err)
		return err
	}
	err = st.QueryRowContext(t.ctx, args...).Scan(dest...)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		t.fail(err)
	}
	return err
}

func (t *wtx) fail(err error) {
	if t.op.failed == nil {
		t.op.failed = err
	}
}

// wake has the watchers of a task woken once the write committed.
func (t *wtx) wake(taskID string) { t.op.woken = append(t.op.woken, taskID) }
