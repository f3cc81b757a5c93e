package taskmanager

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// OrphanMessage is the status text of a task ended by Recover.
const OrphanMessage = "the replica running this task stopped before it finished; send the request again"

// orphanBatch bounds the orphans one store query lists; a pass pages on.
const orphanBatch = 100

// Bounds of RecoveryInterval.
const (
	minRecoveryInterval = 100 * time.Millisecond
	maxRecoveryInterval = 4 * time.Second
)

// RecoveryInterval is how often recovery looks for orphaned tasks when run
// leases last ttl: a quarter of the TTL, at least 100ms and at most 4s. A
// lease runs out at most ttl after its holder's last renewal, which came
// before the holder died, so a task whose executor died is FAILED within
// ttl + RecoveryInterval(ttl) of the death (plus a store round trip): the
// lease TTL + 5s the operations guide promises.
func RecoveryInterval(ttl time.Duration) time.Duration {
	return min(max(ttl/4, minRecoveryInterval), maxRecoveryInterval)
}

// MaintainerConfig configures a Maintainer. Zero values take the defaults.
type MaintainerConfig struct {
	// Store is the store maintained. Required.
	Store Store
	// LeaseTTL is the run lease TTL of the managers on the store (default
	// 15s): recovery runs every RecoveryInterval(LeaseTTL), and holds an
	// orphan's lease for that long while it ends the task.
	LeaseTTL time.Duration
	// Retain, when positive, is how long finished tasks are kept: older ones
	// are pruned every PruneEvery.
	Retain time.Duration
	// PruneEvery is how often finished tasks are pruned (default 10m).
	PruneEvery time.Duration
	// Local, if set, reports whether an execution of the task runs in this
	// process: recovery leaves such a task alone, even when its lease
	// renewal is late (the store slow), since its executor is alive.
	Local func(taskID string) bool
	// OnEvent, if set, is called after every event recovery persists.
	OnEvent func(ctx context.Context, owner string, task *a2a.Task, ev a2a.StreamResponse)
	// Holder identifies this process in the leases recovery takes
	// (default: a random id).
	Holder string
	// Logger receives the maintainer's logs (default slog.Default()).
	Logger *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Maintainer runs the background jobs of a store that every replica may run
// at once: the recovery of tasks whose executor died (Recover) and the
// retention of finished tasks. It needs no executor: one Maintainer serves
// every manager of a process, whichever agent created the tasks.
type Maintainer struct {
	m          *Manager // for its event writing; runs nothing
	local      func(string) bool
	retain     time.Duration
	pruneEvery time.Duration
}

// NewMaintainer returns a maintainer of cfg.Store.
func NewMaintainer(cfg MaintainerConfig) (*Maintainer, error) {
	if cfg.Store == nil {
		return nil, errors.New("taskmanager: maintainer needs a store")
	}
	m, err := New(Config{
		Store: cfg.Store, Executor: refusingExecutor{}, Holder: cfg.Holder, LeaseTTL: cfg.LeaseTTL,
		OnEvent: cfg.OnEvent, Logger: cfg.Logger, Now: cfg.Now,
	})
	if err != nil {
		return nil, err
	}
	mt := &Maintainer{m: m, local: cfg.Local, retain: cfg.Retain, pruneEvery: cfg.PruneEvery}
	if mt.local == nil {
		mt.local = func(string) bool { return false }
	}
	if mt.pruneEvery <= 0 {
		mt.pruneEvery = 10 * time.Minute
	}
	return mt, nil
}

// refusingExecutor is the executor of a Maintainer's manager, which never
// runs a message.
type refusingExecutor struct{}

func (refusingExecutor) Execute(context.Context, *Request, *Updater) error {
	return a2a.ErrUnsupportedOperation.With("this manager only maintains the store")
}

func (refusingExecutor) Cancel(context.Context, *Request, *Updater) error { return nil }

// Interval is how often Run looks for orphaned tasks.
func (mt *Maintainer) Interval() time.Duration { return RecoveryInterval(mt.m.leaseTTL) }

// Recover ends, as FAILED, the tasks whose execution is gone: SUBMITTED or
// WORKING with no live run lease, because the process running them stopped
// without releasing it (crash, kill, lost network) and the lease expired.
// It takes each task's lease before touching it, so replicas may recover at
// once; events stored before stay as they are, and the FAILED event reaches
// the task's subscribers on every replica (a store write wakes them). It
// pages through every orphan of the store and returns how many tasks it
// ended.
func (mt *Maintainer) Recover(ctx context.Context) (int, error) {
	m := mt.m
	holder := m.holder + "/recover"
	n := 0
	var errs []error
	after := ""
	for {
		refs, err := m.store.Orphans(ctx, after, orphanBatch)
		if err != nil {
			errs = append(errs, fmt.Errorf("list orphaned tasks: %w", err))
			break
		}
		for _, r := range refs {
			after = r.ID
			if mt.local(r.ID) {
				continue // running here; its lease renewal is merely late
			}
			ended, err := mt.recoverOne(ctx, r, holder)
			if err != nil {
				errs = append(errs, err)
			}
			if ended {
				n++
			}
		}
		if len(refs) < orphanBatch || ctx.Err() != nil {
			break
		}
	}
	if err := errors.Join(errs...); err != nil {
		return n, fmt.Errorf("taskmanager: recover orphaned tasks: %w", err)
	}
	return n, nil
}

// recoverOne takes an orphan's lease and fails the task.
func (mt *Maintainer) recoverOne(ctx context.Context, r TaskRef, holder string) (bool, error) {
	m := mt.m
	ok, err := m.store.AcquireLease(ctx, r.ID, holder, m.leaseTTL)
	if err != nil || !ok {
		return false, err // !ok: taken meanwhile, someone runs or recovers it
	}
	ended, err := m.failOrphan(ctx, r)
	if rerr := m.store.ReleaseLease(context.WithoutCancel(ctx), r.ID, holder); rerr != nil {
		err = errors.Join(err, rerr)
	}
	return ended, err
}

// failOrphan marks one orphaned task FAILED. The caller holds its lease.
func (m *Manager) failOrphan(ctx context.Context, r TaskRef) (bool, error) {
	rec, err := m.store.GetTask(ctx, r.Owner, r.ID)
	if err != nil {
		return false, err
	}
	if st := rec.Task.Status.State; st != a2a.TaskStateSubmitted && st != a2a.TaskStateWorking {
		return false, nil
	}
	msg := &a2a.Message{MessageID: uuid.NewString(), ContextID: rec.Task.ContextID, TaskID: r.ID, Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart(OrphanMessage)}}
	ev := a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{Status: a2a.TaskStatus{State: a2a.TaskStateFailed, Message: msg}}}
	if _, err := m.apply(ctx, r.Owner, rec, "", ev); err != nil {
		if errors.Is(err, ErrTaskClosed) {
			return false, nil
		}
		return false, err
	}
	m.log.Warn("a2a: task failed: the process running it stopped", "task", r.ID)
	return true, nil
}

// Run runs Recover now and every Interval, and, when Retain is positive,
// prunes tasks that finished more than Retain ago, now and every
// PruneEvery, until ctx ends. Every replica may run it: both jobs are safe
// to run at once.
func (mt *Maintainer) Run(ctx context.Context) {
	recoverT := time.NewTicker(mt.Interval())
	defer recoverT.Stop()
	var pruneC <-chan time.Time
	if mt.retain > 0 {
		pruneT := time.NewTicker(mt.pruneEvery)
		defer pruneT.Stop()
		pruneC = pruneT.C
		mt.prune(ctx)
	}
	for {
		mt.recoverPass(ctx)
	wait:
		for {
			select {
			case <-ctx.Done():
				return
			case <-pruneC:
				mt.prune(ctx)
			case <-recoverT.C:
				break wait
			}
		}
	}
}

func (mt *Maintainer) recoverPass(ctx context.Context) {
	log := mt.m.log
	if n, err := mt.Recover(ctx); err != nil && ctx.Err() == nil {
		log.Error("a2a: maintenance: recover", "err", err)
	} else if n > 0 {
		log.Info("a2a: maintenance: failed tasks whose process stopped", "tasks", n)
	}
}

func (mt *Maintainer) prune(ctx context.Context) {
	m := mt.m
	if n, err := m.store.Prune(ctx, m.now().Add(-mt.retain)); err != nil && ctx.Err() == nil {
		m.log.Error("a2a: maintenance: prune", "err", err)
	} else if n > 0 {
		m.log.Info("a2a: maintenance: pruned finished tasks", "tasks", n, "older_than", mt.retain)
	}
}

// maintainer is m's own maintainer: recovery that leaves m's executions
// alone, under m's lease TTL.
func (m *Manager) maintainer(retain, pruneEvery time.Duration) *Maintainer {
	return &Maintainer{m: m, local: m.Running, retain: retain, pruneEvery: max(pruneEvery, time.Millisecond)}
}

// Recover is [Maintainer.Recover] on m's store, leaving m's own executions
// alone. A process with several managers on one store runs one Maintainer
// whose Local asks each of them instead.
func (m *Manager) Recover(ctx context.Context) (int, error) {
	return m.maintainer(0, time.Minute).Recover(ctx)
}

// RunMaintenance is [Maintainer.Run] on m's store: Recover now and every
// RecoveryInterval of m's lease TTL and, when retain is positive, the
// pruning of tasks finished more than retain ago, now and every pruneEvery
// (default 1m), until ctx ends.
func (m *Manager) RunMaintenance(ctx context.Context, pruneEvery, retain time.Duration) {
	if pruneEvery <= 0 {
		pruneEvery = time.Minute
	}
	m.maintainer(retain, pruneEvery).Run(ctx)
}

// Running reports whether an execution of the task runs in this manager.
func (m *Manager) Running(taskID string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.running[taskID]
	return ok
}

// LeaseTTL is the run lease TTL of m's executions.
func (m *Manager) LeaseTTL() time.Duration { return m.leaseTTL }
