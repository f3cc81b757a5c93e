package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pgWriter batches the PostgreSQL store's writes: a goroutine takes every
// write waiting while the previous batch is in flight and sends them in one
// pipeline, one round trip, which PostgreSQL runs as one implicit
// transaction (the statements of a pipeline up to its Sync): one commit,
// one WAL flush for all of them. A write returns once that transaction
// committed (synchronous_commit as the server is configured; on by
// default, so it is on disk).
//
// Every write is one statement that leaves its outcome (no row, no change)
// in its result; a statement that fails aborts the whole transaction, so
// the batch's writes are then sent again one by one and only the failing
// one gets the error. Writes are sent in task-id order, so that batches of
// replicas writing the same tasks lock their rows in the same order and
// cannot deadlock one another.
type pgWriter struct {
	pool *pgxpool.Pool
	hub  *hub

	ops    chan *pgOp
	quit   chan struct{}
	exited chan struct{}
	stop   sync.Once
}

// pgOp is one write: a statement and what to do with its result.
type pgOp struct {
	taskID string
	sql    string
	args   []any
	// row reads a statement that returns a row (nil: the statement is
	// run for its command tag, given to tag). pgx.ErrNoRows from row is an
	// outcome the function deals with; any other error is a failure.
	row func(pgx.Row) error
	tag func(pgconn.CommandTag)
	// wake says the task's watchers in this process are woken once the
	// write committed.
	wake bool

	res chan error
}

func newPGWriter(pool *pgxpool.Pool, h *hub) *pgWriter {
	w := &pgWriter{pool: pool, hub: h, ops: make(chan *pgOp), quit: make(chan struct{}), exited: make(chan struct{})}
	go w.loop()
	return w
}

// do sends op and waits until the transaction holding it committed. A
// caller whose ctx ends before its write was taken gets ctx's error and
// nothing is written; once taken, the write is waited for.
func (w *pgWriter) do(ctx context.Context, op *pgOp) error {
	op.res = make(chan error, 1)
	select {
	case w.ops <- op:
	case <-ctx.Done():
		return ctx.Err()
	case <-w.quit:
		return errors.New("store: postgres store is closed")
	}
	select {
	case err := <-op.res:
		return err
	case <-w.exited:
		select {
		case err := <-op.res:
			return err
		default:
			return errors.New("store: postgres store is closed")
		}
	}
}

func (w *pgWriter) close() {
	w.stop.Do(func() { close(w.quit) })
	<-w.exited
}

func (w *pgWriter) loop() {
	defer close(w.exited)
	batch := make([]*pgOp, 0, maxBatch)
	for {
		select {
		case op := <-w.ops:
			batch = append(batch[:0], op)
		case <-w.quit:
			return
		}
		// As the SQLite writer does (sqliteWriter.loop): let ready callers
		// queue their writes into this round trip first.
		runtime.Gosched()
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

func (w *pgWriter) run(batch []*pgOp) {
	slices.SortStableFunc(batch, func(a, b *pgOp) int { return cmp.Compare(a.taskID, b.taskID) })
	failed, err := w.send(batch)
	switch {
	case err == nil:
		for _, op := range batch {
			if op.wake {
				w.hub.notify(op.taskID)
			}
			op.res <- nil
		}
	case failed < 0 || len(batch) == 1:
		// The round trip or the commit failed: no write can be said to
		// have happened, and none is tried again blindly.
		for _, op := range batch {
			op.res <- err
		}
	default:
		for _, op := range batch {
			_, err := w.send([]*pgOp{op})
			if err == nil && op.wake {
				w.hub.notify(op.taskID)
			}
			op.res <- err
		}
	}
}

// batchTimeout bounds one batch's round trip: while the server is away (a
// restart, a network that drops packets) the writes fail within it instead
// of holding every writer behind one connection attempt.
const batchTimeout = 30 * time.Second

// send runs batch as one pipeline. It returns the index of the write whose
// statement failed, or -1 when the failure is not one statement's.
func (w *pgWriter) send(batch []*pgOp) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), batchTimeout)
	defer cancel()
	b := &pgx.Batch{QueuedQueries: make([]*pgx.QueuedQuery, 0, len(batch))}
	for _, op := range batch {
		b.Queue(op.sql, op.args...)
	}
	br := w.pool.SendBatch(ctx, b)
	for i, op := range batch {
		var err error
		if op.row != nil {
			err = op.row(br.QueryRow())
		} else {
			var ct pgconn.CommandTag
			if ct, err = br.Exec(); err == nil && op.tag != nil {
				op.tag(ct)
			}
		}
		if err != nil {
			_ = br.Close()
			if _, ok := errors.AsType[*pgconn.PgError](err); ok {
				return i, err
			}
			return -1, err
		}
	}
	if err := br.Close(); err != nil {
		return -1, fmt.Errorf("store: commit: %w", err)
	}
	return -1, nil
}
