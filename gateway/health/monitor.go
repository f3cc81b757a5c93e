package health

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"
)

// NewMonitors runs monitors that check every interval, each check bounded
// by timeout (health.check_interval, health.check_timeout).
func NewMonitors(interval, timeout time.Duration) *Monitors {
	return &Monitors{interval: interval, timeout: timeout, all: map[monitorKey]*Monitor{}}
}

// Backoff is the wait before the next attempt at something that failed:
// doubling from min to max, each drawn from [wait/2, wait].
type Backoff struct {
	Min, Max time.Duration
	cur      time.Duration
}

// Next is the wait before the next attempt.
func (bo *Backoff) Next() time.Duration {
	if bo.Min <= 0 {
		bo.Min = time.Second
	}
	if bo.Max < bo.Min {
		bo.Max = bo.Min
	}
	if bo.cur == 0 {
		bo.cur = bo.Min
	} else {
		bo.cur = min(2*bo.cur, bo.Max)
	}
	return bo.cur/2 + rand.N(bo.cur/2+1)
}

// Reset starts again from Min, after a success.
func (bo *Backoff) Reset() { bo.cur = 0 }

// Monitor checks one upstream actively and reports to the registry.
type Monitor struct {
	Kind Kind
	Name string
	// Check runs one check, bounded by ctx (health.check_timeout), reports
	// its outcome and returns when to check next (0 or more than the
	// interval: the interval).
	Check func(ctx context.Context) time.Duration
	// First, if positive, bounds the wait before the first check.
	First time.Duration

	stop context.CancelFunc
	done chan struct{}
}

type monitorKey struct {
	kind Kind
	name string
}

// Monitors runs every upstream's monitor, each in its own goroutine, from
// Run until its context ends; monitors added while running start at once.
type Monitors struct {
	interval, timeout time.Duration

	mu  sync.Mutex
	ctx context.Context // nil until run
	all map[monitorKey]*Monitor
}

// Add adds an upstream's monitor (started at once when running).
func (ms *Monitors) Add(m *Monitor) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	ms.all[monitorKey{m.Kind, m.Name}] = m
	if ms.ctx != nil {
		ms.start(m)
	}
}

// Remove stops an upstream's monitor and waits for it.
func (ms *Monitors) Remove(kind Kind, name string) {
	ms.mu.Lock()
	m := ms.all[monitorKey{kind, name}]
	delete(ms.all, monitorKey{kind, name})
	ms.mu.Unlock()
	if m != nil && m.stop != nil {
		m.stop()
		<-m.done
	}
}

// start runs m (ms.mu held, ms.ctx set).
func (ms *Monitors) start(m *Monitor) {
	ctx, stop := context.WithCancel(ms.ctx)
	m.stop, m.done = stop, make(chan struct{})
	go ms.loop(ctx, m)
}

// Run starts every monitor and waits, until ctx ends, for them to stop.
func (ms *Monitors) Run(ctx context.Context) {
	ms.mu.Lock()
	ms.ctx = ctx
	for _, m := range ms.all {
		ms.start(m)
	}
	ms.mu.Unlock()
	<-ctx.Done()
	ms.mu.Lock()
	running := make([]*Monitor, 0, len(ms.all))
	for _, m := range ms.all {
		running = append(running, m)
	}
	ms.mu.Unlock()
	for _, m := range running {
		if m.done != nil {
			<-m.done
		}
	}
}

func (ms *Monitors) loop(ctx context.Context, m *Monitor) {
	defer close(m.done)
	// The upstream was probed when it was added: the first check comes
	// within an interval (sooner when the monitor asks, e.g. to retry an
	// agent not loaded yet), each monitor at its own point of it so that
	// they do not all fire at once.
	wait := ms.interval/2 + rand.N(ms.interval/2+1)
	if m.First > 0 {
		wait = min(wait, m.First)
	}
	for {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		cctx, cancel := context.WithTimeout(ctx, ms.timeout)
		next := m.Check(cctx)
		cancel()
		if next <= 0 || next > ms.interval {
			next = ms.interval
		}
		wait = next
	}
}
