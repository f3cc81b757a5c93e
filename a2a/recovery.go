package a2a

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// OrphanMessage is the status text of a task ended by Recover.
const OrphanMessage = "the replica running this task stopped before it finished; send the request again"

// orphanBatch bounds the orphans one Recover pass handles.
const orphanBatch = 100

// Recover ends, as FAILED, the tasks whose execution is gone: SUBMITTED or
// WORKING with no live run lease, because the replica running them stopped
// without releasing it (crash, kill, lost network) and the lease expired.
// It takes each task's lease before touching it, so replicas may recover at
// once; events stored before stay as they are. It returns how many tasks it
// ended.
func (m *Manager) Recover(ctx context.Context) (int, error) {
	refs, err := m.store.Orphans(ctx, orphanBatch)
	if err != nil {
		return 0, fmt.Errorf("a2a: list orphaned tasks: %w", err)
	}
	holder := m.holder + "/recover"
	n := 0
	var errs []error
	for _, r := range refs {
		m.mu.Lock()
		_, mine := m.running[r.ID]
		m.mu.Unlock()
		if mine {
			continue // running here; its lease renewal is merely late
		}
		ok, err := m.store.AcquireLease(ctx, r.ID, holder, m.leaseTTL)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !ok {
			continue // taken meanwhile: someone runs or recovers it
		}
		ended, err := m.failOrphan(ctx, r)
		if rerr := m.store.ReleaseLease(context.WithoutCancel(ctx), r.ID, holder); rerr != nil {
			errs = append(errs, rerr)
		}
		if err != nil {
			errs = append(errs, err)
		}
		if ended {
			n++
		}
	}
	if err := errors.Join(errs...); err != nil {
		return n, fmt.Errorf("a2a: recover orphaned tasks: %w", err)
	}
	return n, nil
}

// failOrphan marks one orphaned task FAILED. The caller holds its lease.
func (m *Manager) failOrphan(ctx context.Context, r TaskRef) (bool, error) {
	rec, err := m.store.GetTask(ctx, r.Owner, r.ID)
	if err != nil {
		return false, err
	}
	if st := rec.Task.Status.State; st != TaskStateSubmitted && st != TaskStateWorking {
		return false, nil
	}
	msg := &Message{MessageID: uuid.NewString(), ContextID: rec.Task.ContextID, TaskID: r.ID, Role: RoleAgent, Parts: []Part{TextPart(OrphanMessage)}}
	ev := StreamResponse{StatusUpdate: &TaskStatusUpdateEvent{Status: TaskStatus{State: TaskStateFailed, Message: msg}}}
	if _, err := m.apply(ctx, r.Owner, rec, ev); err != nil {
		if errors.Is(err, ErrTaskClosed) {
			return false, nil
		}
		return false, err
	}
	m.log.Warn("a2a: task failed: the replica running it stopped", "task", r.ID)
	return true, nil
}

// RunMaintenance runs Recover and, when retain is positive, prunes tasks
// that finished more than retain ago, now and then every interval, until
// ctx ends. Every replica may run it: both jobs are safe to run at once.
func (m *Manager) RunMaintenance(ctx context.Context, every, retain time.Duration) {
	if every <= 0 {
		every = time.Minute
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if n, err := m.Recover(ctx); err != nil && ctx.Err() == nil {
			m.log.Error("a2a: maintenance: recover", "err", err)
		} else if n > 0 {
			m.log.Info("a2a: maintenance: failed tasks whose replica stopped", "tasks", n)
		}
		if retain > 0 {
			if n, err := m.store.Prune(ctx, m.now().Add(-retain)); err != nil && ctx.Err() == nil {
				m.log.Error("a2a: maintenance: prune", "err", err)
			} else if n > 0 {
				m.log.Info("a2a: maintenance: pruned finished tasks", "tasks", n, "older_than", retain)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
