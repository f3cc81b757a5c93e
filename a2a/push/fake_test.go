package push

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
	"github.com/a2a-mcp-bridge/bridge/netguard"
	"github.com/a2a-mcp-bridge/bridge/netguard/netguardtest"
)

// fakeStore is a hand-written in-memory Store with the semantics of
// taskmanager.PushCursorStore. It records every cursor write.
type fakeStore struct {
	mu       sync.Mutex
	events   map[string][]taskmanager.StoredEvent // by task id
	owners   map[string]string                    // task id → owner
	cfgs     []*fakeCfg
	advances []advanceRec
	fails    []failRec
}

type fakeCfg struct {
	owner    string
	cfg      a2a.TaskPushNotificationConfig
	cursor   int64
	attempts int
	next     time.Time
	lastErr  string
}

type advanceRec struct {
	TaskID, ConfigID string
	Seq              int64
}

type failRec struct {
	TaskID, ConfigID string
	Next             time.Time
	LastErr          string
}

var _ Store = (*fakeStore)(nil)

func newFakeStore() *fakeStore {
	return &fakeStore{events: map[string][]taskmanager.StoredEvent{}, owners: map[string]string{}}
}

// addConfig registers cfg for a task of owner.
func (s *fakeStore) addConfig(owner string, cfg a2a.TaskPushNotificationConfig) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.owners[cfg.TaskID] = owner
	s.cfgs = append(s.cfgs, &fakeCfg{owner: owner, cfg: cfg})
}

// appendEvents appends events to a task's log and returns their seqs.
func (s *fakeStore) appendEvents(taskID string, evs ...a2a.StreamResponse) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ev := range evs {
		s.events[taskID] = append(s.events[taskID], taskmanager.StoredEvent{Seq: int64(len(s.events[taskID]) + 1), Event: ev})
	}
}

func (s *fakeStore) cursor(taskID, configID string) (int64, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.cfgs {
		if c.cfg.TaskID == taskID && c.cfg.ID == configID {
			return c.cursor, c.attempts
		}
	}
	return -1, -1
}

func (s *fakeStore) history() ([]advanceRec, []failRec) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]advanceRec(nil), s.advances...), append([]failRec(nil), s.fails...)
}

// done reports whether every config's cursor is at its task's last event.
func (s *fakeStore) done() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.cfgs {
		if c.cursor < int64(len(s.events[c.cfg.TaskID])) {
			return false
		}
	}
	return true
}

func (s *fakeStore) DuePushes(ctx context.Context, now time.Time, limit int) ([]taskmanager.PushDue, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []taskmanager.PushDue
	for _, c := range s.cfgs {
		last := int64(len(s.events[c.cfg.TaskID]))
		if c.cursor >= last || now.Before(c.next) {
			continue
		}
		out = append(out, taskmanager.PushDue{Owner: c.owner, Config: c.cfg, Delivered: c.cursor, LastSeq: last, Attempts: c.attempts})
		if len(out) == limit {
			break
		}
	}
	return out, ctx.Err()
}

func (s *fakeStore) find(owner, taskID, configID string) *fakeCfg {
	for _, c := range s.cfgs {
		if c.owner == owner && c.cfg.TaskID == taskID && c.cfg.ID == configID {
			return c
		}
	}
	return nil
}

func (s *fakeStore) AdvancePush(ctx context.Context, owner, taskID, configID string, seq int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.find(owner, taskID, configID)
	if c == nil {
		return a2a.ErrTaskNotFound
	}
	s.advances = append(s.advances, advanceRec{taskID, configID, seq})
	c.cursor = max(c.cursor, seq)
	c.attempts, c.next, c.lastErr = 0, time.Time{}, ""
	return nil
}

func (s *fakeStore) FailPush(ctx context.Context, owner, taskID, configID string, next time.Time, lastErr string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.find(owner, taskID, configID)
	if c == nil {
		return a2a.ErrTaskNotFound
	}
	s.fails = append(s.fails, failRec{taskID, configID, next, lastErr})
	c.attempts++
	c.next, c.lastErr = next, lastErr
	return nil
}

func (s *fakeStore) Events(ctx context.Context, owner, taskID string, after int64, limit int) ([]taskmanager.StoredEvent, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.owners[taskID] != owner {
		return nil, a2a.ErrTaskNotFound
	}
	var out []taskmanager.StoredEvent
	for _, ev := range s.events[taskID] {
		if ev.Seq > after && len(out) < limit {
			out = append(out, ev)
		}
	}
	return out, nil
}

// leasingStore adds leases to fakeStore, like a store that also implements
// taskmanager.LeaseStore.
type leasingStore struct {
	*fakeStore
	lmu    sync.Mutex
	now    func() time.Time
	leases map[string]fakeLease
}

type fakeLease struct {
	holder string
	until  time.Time
}

var _ Leaser = (*leasingStore)(nil)

func newLeasingStore(now func() time.Time) *leasingStore {
	return &leasingStore{fakeStore: newFakeStore(), now: now, leases: map[string]fakeLease{}}
}

func (s *leasingStore) AcquireLease(_ context.Context, key, holder string, ttl time.Duration) (bool, error) {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	now := s.now()
	if l, ok := s.leases[key]; ok && l.holder != holder && now.Before(l.until) {
		return false, nil
	}
	s.leases[key] = fakeLease{holder: holder, until: now.Add(ttl)}
	return true, nil
}

func (s *leasingStore) ReleaseLease(_ context.Context, key, holder string) error {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	if l, ok := s.leases[key]; ok && l.holder == holder {
		delete(s.leases, key)
	}
	return nil
}

func (s *leasingStore) held() []string {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	var out []string
	for k, l := range s.leases {
		out = append(out, k+"@"+l.holder)
	}
	sort.Strings(out)
	return out
}

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// hit is one request a webhook received.
type hit struct {
	Header http.Header
	Body   []byte
	ID     string
	Status int
}

// webhook is an httptest server on 127.0.0.1 that records requests and
// answers with respond (default 200).
type webhook struct {
	*httptest.Server
	mu      sync.Mutex
	hits    []hit
	respond func(w http.ResponseWriter, r *http.Request, n int) int
}

func newWebhook(t *testing.T, respond func(w http.ResponseWriter, r *http.Request, n int) int) *webhook {
	t.Helper()
	wh := &webhook{respond: respond}
	wh.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		wh.mu.Lock()
		n := len(wh.hits)
		wh.hits = append(wh.hits, hit{Header: r.Header.Clone(), Body: body, ID: r.Header.Get(HeaderNotificationID)})
		wh.mu.Unlock()
		status := http.StatusOK
		if wh.respond != nil {
			status = wh.respond(w, r, n)
		}
		wh.mu.Lock()
		wh.hits[n].Status = status
		wh.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(wh.Close)
	return wh
}

func (wh *webhook) recorded() []hit {
	wh.mu.Lock()
	defer wh.mu.Unlock()
	return append([]hit(nil), wh.hits...)
}

// ids returns the notification ids received, in order.
func (wh *webhook) ids() []string {
	var out []string
	for _, h := range wh.recorded() {
		out = append(out, h.ID)
	}
	return out
}

// acked returns the notification ids answered with a 2xx, in order.
func (wh *webhook) acked() []string {
	var out []string
	for _, h := range wh.recorded() {
		if h.Status >= 200 && h.Status < 300 {
			out = append(out, h.ID)
		}
	}
	return out
}

// testGuard is a netguard guard that lets loopback through, as the
// netguardtest config does, with r as its resolver.
func testGuard(t testing.TB, r netguard.Resolver) *netguard.Guard {
	t.Helper()
	if r == nil {
		r = netguardtest.Loopback()
	}
	g, err := netguard.New(netguardtest.Config(r))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// newTestDispatcher builds a dispatcher with a settable clock, no jitter and
// logs in buf (when not nil).
func newTestDispatcher(t testing.TB, cfg Config, st Store, g Guard, clk *clock, buf *bytes.Buffer) *Dispatcher {
	t.Helper()
	if clk != nil {
		cfg.Now = clk.Now
	}
	if cfg.Jitter == nil {
		cfg.Jitter = func() float64 { return 0 }
	}
	var w io.Writer = io.Discard
	if buf != nil {
		w = &syncWriter{buf: buf}
	}
	cfg.Logger = slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
	d, err := New(cfg, st, g)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

type syncWriter struct {
	mu  sync.Mutex
	buf *bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// round runs one dispatch round and waits for its deliveries.
func round(ctx context.Context, d *Dispatcher) {
	d.dispatch(ctx)
	d.wg.Wait()
}

// statusEvent is a status-update event of task id.
func statusEvent(taskID string, state a2a.TaskState) a2a.StreamResponse {
	return a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: taskID, ContextID: "ctx-1", Status: a2a.TaskStatus{State: state}}}
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// waitFor polls cond until it holds or the test's guard time passes. It is a
// deadlock guard, not a timing assertion.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	bridgetest.Eventually(t, 20*time.Second, what, func() error {
		if !cond() {
			return errors.New("not yet")
		}
		return nil
	})
}
