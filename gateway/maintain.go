package gateway

import (
	"context"
	"fmt"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
)

// upstreamWatch is how often bridge_upstream_up is refreshed.
const upstreamWatch = 15 * time.Second

// newMaintainer builds the store's maintenance, run by every replica on it
// whatever the config serves (published agents, fronted agents, or none yet
// connected): Recover (tasks left SUBMITTED or WORKING by a process that
// stopped end FAILED, at start-up and every taskmanager.RecoveryInterval of
// tasks.lease_ttl) and retention (finished tasks older than
// retention.finished_tasks are deleted every retention.sweep_interval).
//
// One maintainer serves every manager of the process: Orphans lists the
// tasks of every agent in the store. It leaves the tasks this process runs
// alone (localTask), and any other task is touched only once its lease has
// run out, which is the rule across replicas too.
func (b *Bridge) newMaintainer() error {
	mt, err := taskmanager.NewMaintainer(taskmanager.MaintainerConfig{
		Store: b.store, LeaseTTL: b.cfg.Tasks.LeaseTTL.D(),
		Retain: b.cfg.Retention.FinishedTasks.D(), PruneEvery: b.cfg.Retention.SweepInterval.D(),
		Local: b.localTask, OnEvent: b.taskEvent, Logger: b.log,
	})
	if err != nil {
		return fmt.Errorf("gateway: maintenance: %w", err)
	}
	b.maint = mt
	return nil
}

// localTask reports whether one of this process's managers runs the task.
func (b *Bridge) localTask(id string) bool {
	for _, m := range b.managers() {
		if m.Running(id) {
			return true
		}
	}
	return false
}

// managers lists the task managers of the process: the published agents'
// and the fronted agents' whose card has been loaded.
func (b *Bridge) managers() []*taskmanager.Manager {
	var out []*taskmanager.Manager
	for _, a := range b.publishedAgents() {
		if a.mgr != nil {
			out = append(out, a.mgr)
		}
	}
	for _, fa := range b.frontedAgents() {
		fa.mu.Lock()
		if fa.mgr != nil {
			out = append(out, fa.mgr)
		}
		fa.mu.Unlock()
	}
	return out
}

// maintain runs the store's maintenance until ctx ends.
func (b *Bridge) maintain(ctx context.Context) { b.maint.Run(ctx) }
