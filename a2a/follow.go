package a2a

import (
	"context"
	"time"
)

// follow calls yield for every event of a task after seq, in order, until
// yield returns false or ctx ends. It persists nothing.
func (m *Manager) follow(ctx context.Context, owner, taskID string, after int64, yield func(StoredEvent) bool) error {
	ch, stop := m.store.Watch(ctx, taskID)
	defer stop()
	poll := time.NewTicker(m.pollInterval)
	defer poll.Stop()
	const batch = 256
	for {
		evs, err := m.store.Events(ctx, owner, taskID, after, batch)
		if err != nil {
			return err
		}
		for _, e := range evs {
			after = e.Seq
			if !yield(e) {
				return nil
			}
		}
		if len(evs) == batch {
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		case <-poll.C:
		}
	}
}
