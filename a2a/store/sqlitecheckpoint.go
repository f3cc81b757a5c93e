package store

import (
	"context"
	"database/sql"
	"time"
)

// sqliteCheckpointer copies committed pages from the WAL into the database
// file on a connection of its own, beside the writer, so that the copy and
// the syncs of a checkpoint are mostly done while commits go on.
//
// Without it the writer checkpoints when a commit takes the WAL past 1,000
// pages (SQLite's wal_autocheckpoint): that commit's callers, and every
// write queued behind them, wait for the pages to be copied and the
// database file and the WAL to be synced. The writer still does that (it is
// what lets the WAL start again from its beginning, which only a checkpoint
// with no write beside it can), but by then the checkpointer has copied
// almost everything: the writer's checkpoint copies the few pages since.
//
// A passive checkpoint never blocks the writer nor the readers and changes
// nothing a reader sees; it only moves committed pages, so durability is
// the WAL's: unchanged.
type sqliteCheckpointer struct {
	db     *sql.DB
	every  time.Duration
	quit   chan struct{}
	exited chan struct{}
}

// checkpointEvery is how often the checkpointer runs: at a few hundred
// commits a second, a fraction of the 1,000 pages the writer's own
// checkpoint waits for. A variable for tests.
var checkpointEvery = 250 * time.Millisecond

func newSQLiteCheckpointer(db *sql.DB, every time.Duration) *sqliteCheckpointer {
	c := &sqliteCheckpointer{db: db, every: every, quit: make(chan struct{}), exited: make(chan struct{})}
	go c.loop()
	return c
}

func (c *sqliteCheckpointer) loop() {
	defer close(c.exited)
	tick := time.NewTicker(c.every)
	defer tick.Stop()
	for {
		select {
		case <-c.quit:
			return
		case <-tick.C:
			c.run()
		}
	}
}

// run makes one passive checkpoint. It fails only with the database (the
// writer's next commit reports that) or when another checkpoint runs
// (nothing to do): its error is dropped.
func (c *sqliteCheckpointer) run() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = c.db.ExecContext(ctx, "pragma wal_checkpoint(PASSIVE)")
}

// close stops the checkpointer and closes its connection.
func (c *sqliteCheckpointer) close() error {
	close(c.quit)
	<-c.exited
	return c.db.Close()
}
