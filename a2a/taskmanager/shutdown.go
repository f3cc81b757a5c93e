package taskmanager

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// ShutdownMessage is the status text of a task ended by Stop.
const ShutdownMessage = "the bridge shut down before the task finished; send the request again"

// errStopping refuses a message that arrives once Stop has begun.
func errStopping() error {
	return a2a.ErrUnavailable.With("the agent is shutting down; send the request again")
}

// Stop ends the executions running in m, for a shutdown whose grace has
// expired: each task is marked FAILED with text (ShutdownMessage when
// empty), so that its subscribers, here and on other replicas, get the
// final event; then the executor is asked to cancel (its upstream calls
// are cancelled; a fronted agent is asked to cancel the upstream task) and
// its context ends. Messages that arrive from then on are refused with
// ErrUnavailable. Stop returns once every execution has returned, or when
// ctx ends (an executor that ignores its context is left behind).
func (m *Manager) Stop(ctx context.Context, text string) error {
	if text == "" {
		text = ShutdownMessage
	}
	m.mu.Lock()
	m.stopping = true
	m.mu.Unlock()
	seen := map[*execution]bool{}
	var wg sync.WaitGroup
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		m.mu.Lock()
		var fresh []*execution
		for _, ex := range m.running {
			if !seen[ex] {
				seen[ex] = true
				fresh = append(fresh, ex)
			}
		}
		idle := len(m.running) == 0
		m.mu.Unlock()
		if idle {
			return nil
		}
		for _, ex := range fresh {
			wg.Go(func() { m.stopExecution(ctx, ex, text) })
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// stopExecution fails one execution's task, then cancels the execution.
func (m *Manager) stopExecution(ctx context.Context, ex *execution, text string) {
	// FAILED first: the executor's own ending, once its context is
	// cancelled (CANCELED), must not be what subscribers see. The write
	// may outlive ctx (Emit persists regardless); Stop does not wait for
	// it beyond ctx.
	failed := make(chan struct{})
	go func() {
		defer close(failed)
		if err := ex.up.Fail(ctx, text); err != nil && !errors.Is(err, ErrTaskClosed) {
			m.log.Error("a2a: shutdown: could not mark task failed", "task", ex.req.TaskID, "err", err)
			return
		}
		m.log.Warn("a2a: task failed: the bridge shut down before it finished", "task", ex.req.TaskID)
	}()
	select {
	case <-failed:
	case <-ctx.Done():
	}
	if err := m.exec.Cancel(ctx, ex.req, ex.up); err != nil && ctx.Err() == nil {
		m.log.Warn("a2a: shutdown: executor cancel failed", "task", ex.req.TaskID, "err", err)
	}
	ex.cancel()
}

// Idle waits until no execution runs in m, or ctx ends.
func (m *Manager) Idle(ctx context.Context) error {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		m.mu.Lock()
		n := len(m.running)
		m.mu.Unlock()
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}
