package push

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
)

// Dispatcher delivers push notifications from the store's outbox. Create it
// with [New], run [Dispatcher.Run] in the background and call
// [Dispatcher.Notify] (or wire [Dispatcher.OnEvent]) after every persisted
// event. It is safe for concurrent use.
type Dispatcher struct {
	cfg    Config
	st     Store
	leaser Leaser // nil: the store hands out no leases
	guard  Guard
	log    *slog.Logger
	counts *prometheus.CounterVec
	jitter func() float64

	wake chan struct{}
	wg   sync.WaitGroup

	mu     sync.Mutex
	active int
	// skipped records that a round left a due config waiting for a busy
	// slot; the next worker to finish starts another round.
	skipped bool
	dests   map[string]int
	state   map[string]*configState
}

// configState is what this dispatcher knows about one config beyond the
// store's possibly stale DuePushes answer.
type configState struct {
	inflight bool
	// delivered and attempts mirror the cursor as this dispatcher last set it.
	delivered int64
	attempts  int
	// notBefore is the next attempt time this dispatcher last recorded.
	notBefore time.Time
	// leaseUntil is when this dispatcher's claim ends; zero: none held.
	leaseUntil time.Time
	// touched is when the state was last used, for pruning.
	touched time.Time
}

// New validates cfg and returns a dispatcher that delivers the due configs of
// st through guard. When st also implements [Leaser], configs are claimed
// before delivery (see the package doc).
func New(cfg Config, st Store, guard Guard) (*Dispatcher, error) {
	if st == nil || guard == nil {
		return nil, errors.New("push: new dispatcher: a store and a guard are required")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if cfg.Holder == "" {
		cfg.Holder = "push-" + uuid.NewString()
	}
	counts, err := deliveriesCounter(cfg.Registerer)
	if err != nil {
		return nil, err
	}
	d := &Dispatcher{
		cfg: cfg, st: st, guard: guard, log: cfg.Logger, counts: counts, jitter: cfg.Jitter,
		wake:  make(chan struct{}, 1),
		dests: map[string]int{},
		state: map[string]*configState{},
	}
	if d.jitter == nil {
		d.jitter = rand.Float64
	}
	if l, ok := st.(Leaser); ok {
		d.leaser = l
	}
	for _, o := range outcomes {
		counts.WithLabelValues(o.String())
	}
	return d, nil
}

// Notify wakes the dispatcher to look for due configs now rather than at the
// next poll. It never blocks.
func (d *Dispatcher) Notify() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// OnEvent has the signature of taskmanager.Config.OnEvent and calls
// [Dispatcher.Notify]; the event itself is read back from the store.
func (d *Dispatcher) OnEvent(context.Context, string, *a2a.Task, a2a.StreamResponse) { d.Notify() }

// Run delivers due notifications until ctx ends, then waits for deliveries in
// flight (their requests are cancelled with ctx), releases the leases it
// holds and returns ctx's error.
func (d *Dispatcher) Run(ctx context.Context) error {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			d.wg.Wait()
			d.releaseAll()
			return ctx.Err()
		case <-d.wake:
		case <-t.C:
		}
		d.dispatch(ctx)
		t.Reset(d.cfg.PollInterval)
	}
}

// dispatch starts a worker for every due config that has a free worker and a
// free slot at its destination.
func (d *Dispatcher) dispatch(ctx context.Context) {
	now := d.cfg.Now()
	due, err := d.st.DuePushes(ctx, now, d.cfg.ScanLimit)
	if err != nil {
		if ctx.Err() == nil {
			d.log.WarnContext(ctx, "push: listing due configs failed", "error", err)
		}
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.prune(now)
	for i := range due {
		if d.active >= d.cfg.Workers {
			d.skipped = true
			return
		}
		p := due[i]
		key := claimKey(p.Config.TaskID, p.Config.ID)
		s := d.state[key]
		if s == nil {
			s = &configState{}
			d.state[key] = s
		}
		if s.inflight {
			// Its worker may have read the events before the one that
			// made it due; look again when a worker finishes.
			d.skipped = true
			continue
		}
		// The answer may predate this dispatcher's own last write.
		switch {
		case s.delivered > p.Delivered:
			p.Delivered, p.Attempts = s.delivered, s.attempts
		case s.delivered == p.Delivered:
			p.Attempts = max(p.Attempts, s.attempts)
			if now.Before(s.notBefore) {
				continue
			}
		}
		if p.Delivered >= p.LastSeq {
			continue
		}
		dest := destination(p.Config.URL)
		if d.dests[dest] >= d.cfg.PerDestination {
			d.skipped = true
			continue
		}
		s.inflight, s.touched = true, now
		d.active++
		d.dests[dest]++
		d.wg.Add(1)
		go d.serve(ctx, key, dest, p)
	}
}

// prune forgets idle configs whose state can no longer matter.
func (d *Dispatcher) prune(now time.Time) {
	for k, s := range d.state {
		if !s.inflight && now.Sub(s.touched) > d.cfg.LeaseTTL && !now.Before(s.leaseUntil) {
			delete(d.state, k)
		}
	}
}

// serve delivers one config's events and frees its slots.
func (d *Dispatcher) serve(ctx context.Context, key, dest string, p taskmanager.PushDue) {
	defer d.wg.Done()
	more := d.serveConfig(ctx, key, p)
	d.mu.Lock()
	d.state[key].inflight = false
	d.active--
	if d.dests[dest]--; d.dests[dest] <= 0 {
		delete(d.dests, dest)
	}
	if d.skipped {
		d.skipped, more = false, true
	}
	d.mu.Unlock()
	if more {
		d.Notify()
	}
}

// serveConfig claims the config and delivers its next events in order until
// one fails, the batch ends or half the claim has passed. It reports whether
// another round should run at once (a slot was freed or events remain).
func (d *Dispatcher) serveConfig(ctx context.Context, key string, p taskmanager.PushDue) bool {
	cfg := &p.Config
	start := d.cfg.Now()
	if d.leaser != nil {
		ok, err := d.leaser.AcquireLease(ctx, key, d.cfg.Holder, d.cfg.LeaseTTL)
		if err != nil || !ok {
			if err != nil && ctx.Err() == nil {
				d.log.WarnContext(ctx, "push: claiming config failed", "task", cfg.TaskID, "config", cfg.ID, "error", err)
			}
			return false
		}
		d.update(key, func(s *configState) { s.leaseUntil = start.Add(d.cfg.LeaseTTL) })
	}
	events, err := d.st.Events(ctx, p.Owner, cfg.TaskID, p.Delivered, d.cfg.Batch)
	if err != nil {
		if ctx.Err() == nil {
			d.log.WarnContext(ctx, "push: reading events failed", "task", cfg.TaskID, "config", cfg.ID, "error", err)
		}
		return false
	}
	attempts := p.Attempts
	for _, ev := range events {
		if ev.Seq <= p.Delivered {
			continue
		}
		if ctx.Err() != nil || d.cfg.Now().Sub(start) > d.cfg.LeaseTTL/2 {
			return true
		}
		res := d.deliver(ctx, p.Owner, cfg, ev)
		if ctx.Err() != nil {
			return false // shutting down: the attempt does not count
		}
		attempt := attempts + 1
		outcome := res.outcome
		if outcome == outcomeRetried && attempt >= d.cfg.MaxAttempts {
			outcome = outcomeDropped
		}
		d.counts.WithLabelValues(outcome.String()).Inc()
		logArgs := []any{"task", cfg.TaskID, "config", cfg.ID, "seq", ev.Seq, "destination", redacted(cfg.URL), "attempt", attempt, "outcome", outcome.String()}
		if res.status != 0 {
			logArgs = append(logArgs, "status", res.status)
		}
		if res.err != nil {
			logArgs = append(logArgs, "error", res.err.Error())
		}
		switch outcome {
		case outcomeDelivered:
			d.log.DebugContext(ctx, "push: delivered", logArgs...)
		case outcomeRetried:
			wait := d.backoff(attempt, res.retryAfter)
			next := d.cfg.Now().Add(wait)
			d.log.InfoContext(ctx, "push: delivery failed, will retry", append(logArgs, "retry_in", wait)...)
			if err := d.st.FailPush(ctx, p.Owner, cfg.TaskID, cfg.ID, next, res.summary()); err != nil {
				d.log.WarnContext(ctx, "push: recording failed delivery failed", "task", cfg.TaskID, "config", cfg.ID, "error", err)
			}
			d.update(key, func(s *configState) {
				s.delivered, s.attempts, s.notBefore = p.Delivered, attempt, next
			})
			return false
		default:
			d.log.WarnContext(ctx, "push: event dropped", logArgs...)
		}
		if err := d.st.AdvancePush(ctx, p.Owner, cfg.TaskID, cfg.ID, ev.Seq); err != nil {
			if ctx.Err() == nil {
				d.log.WarnContext(ctx, "push: advancing cursor failed", "task", cfg.TaskID, "config", cfg.ID, "seq", ev.Seq, "error", err)
			}
			return false
		}
		p.Delivered, attempts = ev.Seq, 0
		d.update(key, func(s *configState) {
			s.delivered, s.attempts, s.notBefore = ev.Seq, 0, time.Time{}
		})
	}
	return len(events) == d.cfg.Batch
}

// update changes the state of key under the lock.
func (d *Dispatcher) update(key string, f func(*configState)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if s := d.state[key]; s != nil {
		f(s)
		s.touched = d.cfg.Now()
	}
}

// releaseAll gives up the claims this dispatcher still holds.
func (d *Dispatcher) releaseAll() {
	if d.leaser == nil {
		return
	}
	d.mu.Lock()
	var keys []string
	now := d.cfg.Now()
	for k, s := range d.state {
		if now.Before(s.leaseUntil) {
			keys = append(keys, k)
			s.leaseUntil = time.Time{}
		}
	}
	d.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), d.cfg.Timeout)
	defer cancel()
	for _, k := range keys {
		if err := d.leaser.ReleaseLease(ctx, k, d.cfg.Holder); err != nil {
			d.log.WarnContext(ctx, "push: releasing claim failed", "lease", k, "error", err)
		}
	}
}

// backoff is the wait after the attempt-th failed attempt: MinBackoff
// doubled per earlier attempt, capped at MaxBackoff, with the upper half
// jittered; at least retryAfter (capped at MaxBackoff).
func (d *Dispatcher) backoff(attempt int, retryAfter time.Duration) time.Duration {
	return backoff(d.cfg.MinBackoff, d.cfg.MaxBackoff, attempt, retryAfter, d.jitter())
}

func backoff(minB, maxB time.Duration, attempt int, retryAfter time.Duration, jitter float64) time.Duration {
	b := minB
	for i := 1; i < attempt && b < maxB; i++ {
		b *= 2
	}
	b = min(b, maxB)
	b = b/2 + time.Duration(jitter*float64(b-b/2))
	return max(b, min(retryAfter, maxB))
}

// claimKey is the lease key of a config. Config ids are only unique within
// a task, so the task id is part of it.
func claimKey(taskID, configID string) string { return "push:" + taskID + ":" + configID }

// destination is the host:port a webhook URL points at, the key of the
// per-destination limit.
func destination(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "invalid"
	}
	port := u.Port()
	if port == "" {
		port = "443"
		if strings.EqualFold(u.Scheme, "http") {
			port = "80"
		}
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// redacted is a URL cut down to scheme and host, for logs.
func redacted(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable url)"
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host}).String() + "/…"
}
