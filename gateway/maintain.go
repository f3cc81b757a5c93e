package gateway

import (
	"context"
	"time"
)

// upstreamWatch is how often bridge_upstream_up is refreshed.
const upstreamWatch = 15 * time.Second

// maintain runs the store's maintenance on the first published agent's
// manager: Recover (tasks left SUBMITTED or WORKING by a replica that
// stopped end FAILED) and retention (finished tasks older than
// retention.finished_tasks are deleted), now and every
// retention.sweep_interval.
//
// One manager is enough: Orphans lists the tasks of every agent in the
// store, whichever manager created them. It does not fail the tasks other
// managers of this process run: a running task holds a run lease that its
// manager renews every third of the lease TTL, Orphans lists only tasks
// whose lease has lapsed, and Recover takes the lease before it touches a
// task. A task of another local manager is failed only when its renewals
// have stopped for a whole TTL, which is the rule across replicas too.
func (b *Bridge) maintain(ctx context.Context) {
	b.agents[0].mgr.RunMaintenance(ctx, b.cfg.Retention.SweepInterval.D(), b.cfg.Retention.FinishedTasks.D())
}
