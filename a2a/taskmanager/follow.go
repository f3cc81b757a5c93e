package taskmanager

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/internal/sserelease"
)

// follow calls yield for every event of a task after seq, in order, until
// yield returns false or ctx ends. It persists nothing.
//
// Called for an event stream that has been released from net/http (see
// a2a/internal/sserelease), follow goes on in a fresh goroutine the first
// time it would wait, and returns sserelease.ErrContinues (the caller must
// return it):
// the goroutine it was called
// in has a stack grown by the request (decoding, the store, the first
// events), which an idle stream would otherwise keep for its whole life.
func (m *Manager) follow(ctx context.Context, owner, taskID string, after int64, yield func(StoredEvent) bool) error {
	ch, stop := m.store.Watch(ctx, taskID)
	st := sserelease.From(ctx)
	err := m.followLoop(ctx, owner, taskID, &after, ch, yield, st)
	if err == sserelease.ErrContinues {
		// Started by the stream's goroutine once the call has returned:
		// yield may share variables with the caller until then.
		st.Continue(func() { m.followOn(ctx, owner, taskID, after, ch, stop, yield, st) })
		return err
	}
	stop()
	return err
}

// followOn follows a released stream in its own goroutine and ends it.
func (m *Manager) followOn(ctx context.Context, owner, taskID string, after int64, ch <-chan struct{}, stop func(), yield func(StoredEvent) bool, st *sserelease.Handoff) {
	var err error
	defer func() {
		stop()
		if v := recover(); v != nil {
			m.log.Error("a2a: stream panicked", "task", taskID, "panic", fmt.Sprint(v))
			err = a2a.ErrInternal
		}
		st.End(ctx, err)
	}()
	err = m.followLoop(ctx, owner, taskID, &after, ch, yield, nil)
}

// followLoop is follow's loop. With st set, it returns
// sserelease.ErrContinues instead of waiting once st has been released.
func (m *Manager) followLoop(ctx context.Context, owner, taskID string, after *int64, ch <-chan struct{}, yield func(StoredEvent) bool, st *sserelease.Handoff) error {
	poll := pollClockFor(m.pollInterval)
	var released <-chan struct{}
	if st != nil {
		released = st.Released()
	}
	const batch = 256
	var outage time.Time // when the store stopped answering; zero: it answers
	for {
		evs, err := m.store.Events(ctx, owner, taskID, *after, batch)
		if err != nil {
			// A store that went away (a database restart, a failover) may
			// come back: the stream waits for it, re-reading from where it
			// was, so its subscriber misses nothing; a definite answer
			// (the task is gone) or a long outage ends it.
			var definite *a2a.Error
			if ctx.Err() != nil || errors.As(err, &definite) {
				return err
			}
			if outage.IsZero() {
				outage = time.Now()
				m.log.Warn("a2a: stream: the store does not answer; retrying", "task", taskID, "err", err)
			}
			if time.Since(outage) > storeOutageTolerance {
				return err
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(min(m.pollInterval, time.Second)):
			}
			continue
		}
		if !outage.IsZero() {
			m.log.Info("a2a: stream: the store answers again", "task", taskID, "after", time.Since(outage).Round(time.Millisecond).String())
			outage = time.Time{}
		}
		for _, e := range evs {
			*after = e.Seq
			if !yield(e) {
				return nil
			}
		}
		if len(evs) == batch {
			continue
		}
		if st != nil && st.IsReleased() {
			return sserelease.ErrContinues
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		case <-poll.next():
		case <-released:
			released = nil
		}
	}
}

// storeOutageTolerance bounds how long a stream waits for a store that
// stopped answering before it ends with the error.
const storeOutageTolerance = 30 * time.Second

// pollClock is the fallback re-read tick shared by every follower with the
// same poll interval: one runtime timer for all of them, armed only while
// one waits, instead of a ticker per follower. A follower may see its
// first tick sooner than a whole interval after it starts waiting; it
// then re-reads once more, which is harmless. All followers re-read
// together, at most once per interval each, as they did apart.
type pollClock struct {
	d     time.Duration
	mu    sync.Mutex
	ch    chan struct{} // closed at the next tick; nil while nobody waits
	timer *time.Timer
}

// pollClocks holds one clock per interval in use (a process has few).
var pollClocks sync.Map // time.Duration -> *pollClock

func pollClockFor(d time.Duration) *pollClock {
	if c, ok := pollClocks.Load(d); ok {
		return c.(*pollClock)
	}
	c, _ := pollClocks.LoadOrStore(d, &pollClock{d: d})
	return c.(*pollClock)
}

// next returns a channel closed at the next tick, arming the clock.
func (c *pollClock) next() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch == nil {
		c.ch = make(chan struct{})
		if c.timer == nil {
			c.timer = time.AfterFunc(c.d, c.tick)
		} else {
			c.timer.Reset(c.d)
		}
	}
	return c.ch
}

// tick wakes every follower waiting and disarms the clock until the next
// one waits.
func (c *pollClock) tick() {
	c.mu.Lock()
	ch := c.ch
	c.ch = nil
	c.mu.Unlock()
	if ch != nil {
		close(ch)
	}
}
