package push

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/netguard/netguardtest"
)

func TestDeliversEventsInOrderWithHeaders(t *testing.T) {
	tests := []struct {
		name        string
		contentType string
		wantType    string
	}{
		{"default a2a+json", "", ContentTypeA2A},
		{"application/json for 1.0.0 receivers", ContentTypeJSON, ContentTypeJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wh := newWebhook(t, nil)
			st := newFakeStore()
			st.addConfig("alice", a2a.TaskPushNotificationConfig{
				ID: "c1", TaskID: "t1", URL: wh.URL + "/hook?x=1", Token: "tok-1",
				Authentication: &a2a.AuthenticationInfo{Scheme: "Bearer", Credentials: "cred-1"},
			})
			events := []a2a.StreamResponse{
				statusEvent("t1", a2a.TaskStateWorking),
				{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{TaskID: "t1", ContextID: "ctx-1", Artifact: a2a.Artifact{ArtifactID: "a1", Parts: []a2a.Part{a2a.TextPart("hi")}}}},
				statusEvent("t1", a2a.TaskStateCompleted),
			}
			st.appendEvents("t1", events...)
			d := newTestDispatcher(t, Config{ContentType: tt.contentType}, st, testGuard(t, nil), newClock(), nil)
			round(context.Background(), d)

			hits := wh.recorded()
			if len(hits) != len(events) {
				t.Fatalf("webhook got %d requests, want %d", len(hits), len(events))
			}
			for i, h := range hits {
				if want := mustJSON(t, events[i]); !bytes.Equal(h.Body, want) {
					t.Errorf("request %d body = %s, want %s", i, h.Body, want)
				}
				want := map[string]string{
					"Content-Type":       tt.wantType,
					"Authorization":      "Bearer cred-1",
					HeaderToken:          "tok-1",
					HeaderLegacyToken:    "tok-1",
					HeaderNotificationID: "t1:" + string(rune('1'+i)),
					"User-Agent":         DefaultUserAgent,
				}
				for k, v := range want {
					if got := h.Header.Get(k); got != v {
						t.Errorf("request %d header %s = %q, want %q", i, k, got, v)
					}
				}
			}
			if !bytes.Contains(hits[0].Body, []byte(`"statusUpdate"`)) || !bytes.Contains(hits[1].Body, []byte(`"artifactUpdate"`)) {
				t.Errorf("bodies are not StreamResponse objects: %s, %s", hits[0].Body, hits[1].Body)
			}
			if cur, _ := st.cursor("t1", "c1"); cur != 3 {
				t.Errorf("cursor = %d, want 3", cur)
			}
		})
	}
}

func TestNoAuthorizationOrTokenWhenNotConfigured(t *testing.T) {
	wh := newWebhook(t, nil)
	st := newFakeStore()
	st.addConfig("alice", a2a.TaskPushNotificationConfig{ID: "c1", TaskID: "t1", URL: wh.URL})
	st.appendEvents("t1", statusEvent("t1", a2a.TaskStateWorking))
	d := newTestDispatcher(t, Config{}, st, testGuard(t, nil), newClock(), nil)
	round(context.Background(), d)
	hits := wh.recorded()
	if len(hits) != 1 {
		t.Fatalf("got %d requests, want 1", len(hits))
	}
	for _, k := range []string{"Authorization", HeaderToken, HeaderLegacyToken} {
		if v, ok := hits[0].Header[k]; ok {
			t.Errorf("header %s = %q, want none", k, v)
		}
	}
}

func TestRetriesAfter500ThenAdvancesOnce(t *testing.T) {
	wh := newWebhook(t, func(_ http.ResponseWriter, _ *http.Request, n int) int {
		if n == 0 {
			return http.StatusInternalServerError
		}
		return http.StatusNoContent
	})
	st := newFakeStore()
	st.addConfig("alice", a2a.TaskPushNotificationConfig{ID: "c1", TaskID: "t1", URL: wh.URL})
	st.appendEvents("t1", statusEvent("t1", a2a.TaskStateWorking), statusEvent("t1", a2a.TaskStateCompleted))
	clk := newClock()
	d := newTestDispatcher(t, Config{MinBackoff: time.Second, MaxBackoff: time.Minute}, st, testGuard(t, nil), clk, nil)
	ctx := context.Background()

	round(ctx, d)
	advances, fails := st.history()
	if len(advances) != 0 || len(fails) != 1 {
		t.Fatalf("after a 500: %d advances, %d fails; want 0, 1", len(advances), len(fails))
	}
	if wait := fails[0].Next.Sub(clk.Now()); wait < 500*time.Millisecond || wait > time.Second {
		t.Errorf("first backoff = %s, want within [0.5s, 1s]", wait)
	}
	if !strings.Contains(fails[0].LastErr, "500") {
		t.Errorf("last error %q does not name the status", fails[0].LastErr)
	}

	round(ctx, d) // not due yet: the backoff holds the retry back
	if n := len(wh.recorded()); n != 1 {
		t.Fatalf("retried before the backoff ended: %d requests", n)
	}

	clk.Add(time.Second)
	round(ctx, d)
	if got, want := wh.ids(), []string{"t1:1", "t1:1", "t1:2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("notification ids = %v, want %v (same id on the retry)", got, want)
	}
	advances, _ = st.history()
	if want := []advanceRec{{"t1", "c1", 1}, {"t1", "c1", 2}}; !reflect.DeepEqual(advances, want) {
		t.Errorf("advances = %v, want %v (each event acknowledged once)", advances, want)
	}
}

func TestRetryAfterHeaderLengthensBackoff(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		retryAfter func(now time.Time) string
		want       time.Duration
	}{
		{"429 delay-seconds", http.StatusTooManyRequests, func(time.Time) string { return "120" }, 120 * time.Second},
		{"503 http-date", http.StatusServiceUnavailable, func(now time.Time) string { return now.Add(300 * time.Second).Format(http.TimeFormat) }, 300 * time.Second},
		{"capped at MaxBackoff", http.StatusTooManyRequests, func(time.Time) string { return "86400" }, time.Hour},
		{"garbage ignored", http.StatusTooManyRequests, func(time.Time) string { return "soon" }, 500 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := newClock()
			wh := newWebhook(t, func(w http.ResponseWriter, _ *http.Request, _ int) int {
				w.Header().Set("Retry-After", tt.retryAfter(clk.Now()))
				return tt.status
			})
			st := newFakeStore()
			st.addConfig("alice", a2a.TaskPushNotificationConfig{ID: "c1", TaskID: "t1", URL: wh.URL})
			st.appendEvents("t1", statusEvent("t1", a2a.TaskStateWorking))
			d := newTestDispatcher(t, Config{MinBackoff: time.Second, MaxBackoff: time.Hour}, st, testGuard(t, nil), clk, nil)
			round(context.Background(), d)
			_, fails := st.history()
			if len(fails) != 1 {
				t.Fatalf("fails = %d, want 1", len(fails))
			}
			if got := fails[0].Next.Sub(clk.Now()); got != tt.want {
				t.Errorf("next attempt in %s, want %s", got, tt.want)
			}
		})
	}
}

func TestGivesUpAfterMaxAttempts(t *testing.T) {
	wh := newWebhook(t, func(_ http.ResponseWriter, r *http.Request, _ int) int {
		if r.Header.Get(HeaderNotificationID) == "t1:1" {
			return http.StatusBadGateway
		}
		return http.StatusOK
	})
	st := newFakeStore()
	st.addConfig("alice", a2a.TaskPushNotificationConfig{ID: "c1", TaskID: "t1", URL: wh.URL})
	st.appendEvents("t1", statusEvent("t1", a2a.TaskStateWorking), statusEvent("t1", a2a.TaskStateCompleted))
	clk := newClock()
	reg := prometheus.NewRegistry()
	d := newTestDispatcher(t, Config{MaxAttempts: 3, Registerer: reg}, st, testGuard(t, nil), clk, nil)
	for range 5 {
		round(context.Background(), d)
		clk.Add(time.Hour)
	}
	if got, want := wh.ids(), []string{"t1:1", "t1:1", "t1:1", "t1:2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ids = %v, want %v", got, want)
	}
	if cur, _ := st.cursor("t1", "c1"); cur != 2 {
		t.Errorf("cursor = %d, want 2", cur)
	}
	want := map[string]float64{"delivered": 1, "retried": 2, "dropped": 1, "blocked": 0}
	if got := counts(t, reg); !reflect.DeepEqual(got, want) {
		t.Errorf("bridge_push_deliveries_total = %v, want %v", got, want)
	}
}

func TestPermanentStatusDropsEventAtOnce(t *testing.T) {
	for _, status := range []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusNotFound, http.StatusGone, http.StatusNotModified} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			wh := newWebhook(t, func(_ http.ResponseWriter, r *http.Request, _ int) int {
				if r.Header.Get(HeaderNotificationID) == "t1:1" {
					return status
				}
				return http.StatusOK
			})
			st := newFakeStore()
			st.addConfig("alice", a2a.TaskPushNotificationConfig{ID: "c1", TaskID: "t1", URL: wh.URL})
			st.appendEvents("t1", statusEvent("t1", a2a.TaskStateWorking), statusEvent("t1", a2a.TaskStateCompleted))
			d := newTestDispatcher(t, Config{}, st, testGuard(t, nil), newClock(), nil)
			round(context.Background(), d)
			if got, want := wh.ids(), []string{"t1:1", "t1:2"}; !reflect.DeepEqual(got, want) {
				t.Errorf("ids = %v, want %v (no retry)", got, want)
			}
			if _, fails := st.history(); len(fails) != 0 {
				t.Errorf("fails = %v, want none", fails)
			}
		})
	}
}

func TestClassifyStatuses(t *testing.T) {
	tests := []struct {
		status int
		want   outcome
	}{
		{200, outcomeDelivered}, {202, outcomeDelivered}, {204, outcomeDelivered},
		{408, outcomeRetried}, {425, outcomeRetried}, {429, outcomeRetried},
		{500, outcomeRetried}, {502, outcomeRetried}, {503, outcomeRetried}, {504, outcomeRetried},
		{301, outcomeDropped}, {400, outcomeDropped}, {401, outcomeDropped}, {403, outcomeDropped},
		{404, outcomeDropped}, {409, outcomeDropped}, {413, outcomeDropped}, {422, outcomeDropped},
	}
	for _, tt := range tests {
		got := classify(&http.Response{StatusCode: tt.status, Header: http.Header{}}, time.Now())
		if got.outcome != tt.want {
			t.Errorf("classify(%d) = %s, want %s", tt.status, got.outcome, tt.want)
		}
	}
}

func TestPushRedirectToMetadataNotFollowed(t *testing.T) {
	var reached atomic.Int64
	target := newWebhook(t, func(http.ResponseWriter, *http.Request, int) int {
		reached.Add(1)
		return http.StatusOK
	})
	for _, loc := range []string{target.URL + "/stolen", "http://169.254.169.254/latest/meta-data/"} {
		t.Run(loc, func(t *testing.T) {
			wh := newWebhook(t, func(w http.ResponseWriter, _ *http.Request, _ int) int {
				w.Header().Set("Location", loc)
				return http.StatusFound
			})
			st := newFakeStore()
			st.addConfig("alice", a2a.TaskPushNotificationConfig{ID: "c1", TaskID: "t1", URL: wh.URL, Token: "tok"})
			st.appendEvents("t1", statusEvent("t1", a2a.TaskStateWorking))
			var logs bytes.Buffer
			reg := prometheus.NewRegistry()
			d := newTestDispatcher(t, Config{Registerer: reg}, st, testGuard(t, nil), newClock(), &logs)
			round(context.Background(), d)
			if n := len(wh.recorded()); n != 1 {
				t.Errorf("webhook got %d requests, want 1", n)
			}
			if c := counts(t, reg)["blocked"]; c != 1 {
				t.Errorf("blocked = %v, want 1", c)
			}
			if !strings.Contains(logs.String(), "redirect") {
				t.Errorf("log does not say the redirect was refused: %s", logs.String())
			}
		})
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("redirect target reached %d times", n)
	}
}

func TestPushURL_RebindToPrivateAddress(t *testing.T) {
	r := netguardtest.NewResolver()
	// Public when the config is created, a private address at delivery time.
	r.Rebind("hook.example", netip.MustParseAddr("93.184.215.14"), netip.MustParseAddr("10.0.0.7"))
	g := testGuard(t, r)
	const url = "http://hook.example/webhook?secret=url-SECRET"
	if err := g.CheckURL(context.Background(), url); err != nil {
		t.Fatalf("create-time check: %v", err)
	}
	st := newFakeStore()
	st.addConfig("alice", a2a.TaskPushNotificationConfig{ID: "c1", TaskID: "t1", URL: url})
	st.appendEvents("t1", statusEvent("t1", a2a.TaskStateWorking))
	var logs bytes.Buffer
	reg := prometheus.NewRegistry()
	d := newTestDispatcher(t, Config{Registerer: reg}, st, g, newClock(), &logs)
	round(context.Background(), d)

	if n := r.Lookups("hook.example"); n != 2 {
		t.Errorf("lookups = %d, want 2 (create, then delivery)", n)
	}
	if c := counts(t, reg); c["blocked"] != 1 || c["delivered"] != 0 {
		t.Errorf("counts = %v, want one blocked", c)
	}
	if cur, _ := st.cursor("t1", "c1"); cur != 1 {
		t.Errorf("cursor = %d, want 1 (a refused destination is a permanent failure)", cur)
	}
	out := logs.String()
	for _, want := range []string{"webhook refused", "private", "10.0.0.7", "http://hook.example/…"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q: %s", want, out)
		}
	}
	if strings.Contains(out, "url-SECRET") {
		t.Errorf("log carries the URL's query: %s", out)
	}
}

func TestPushHeaderInjectionRefused(t *testing.T) {
	tests := []struct {
		name string
		cfg  a2a.TaskPushNotificationConfig
	}{
		{"CRLF in credentials", a2a.TaskPushNotificationConfig{Authentication: &a2a.AuthenticationInfo{Scheme: "Bearer", Credentials: "abc\r\nX-Injected: 1"}}},
		{"LF in token", a2a.TaskPushNotificationConfig{Token: "tok\nX-Injected: 1"}},
		{"CR in scheme", a2a.TaskPushNotificationConfig{Authentication: &a2a.AuthenticationInfo{Scheme: "Bearer\r\nX-Injected:", Credentials: "c"}}},
		{"NUL in credentials", a2a.TaskPushNotificationConfig{Authentication: &a2a.AuthenticationInfo{Scheme: "Basic", Credentials: "a\x00b"}}},
		{"space in scheme", a2a.TaskPushNotificationConfig{Authentication: &a2a.AuthenticationInfo{Scheme: "Bearer x", Credentials: "c"}}},
		{"credentials without scheme", a2a.TaskPushNotificationConfig{Authentication: &a2a.AuthenticationInfo{Credentials: "c"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wh := newWebhook(t, nil)
			cfg := tt.cfg
			cfg.ID, cfg.TaskID, cfg.URL = "c1", "t1", wh.URL
			err := ValidateConfig(&cfg)
			if !errors.Is(err, ErrInvalidConfig) {
				t.Fatalf("ValidateConfig = %v, want ErrInvalidConfig", err)
			}
			if strings.Contains(err.Error(), "Injected") || strings.Contains(err.Error(), "abc") {
				t.Errorf("error quotes the value: %v", err)
			}
			st := newFakeStore()
			st.addConfig("alice", cfg)
			st.appendEvents("t1", statusEvent("t1", a2a.TaskStateWorking))
			reg := prometheus.NewRegistry()
			d := newTestDispatcher(t, Config{Registerer: reg}, st, testGuard(t, nil), newClock(), nil)
			round(context.Background(), d)
			if n := len(wh.recorded()); n != 0 {
				t.Errorf("webhook got %d requests, want 0", n)
			}
			if c := counts(t, reg)["blocked"]; c != 1 {
				t.Errorf("blocked = %v, want 1", c)
			}
		})
	}
}

func TestSlowWebhookDoesNotStallOthers(t *testing.T) {
	release := make(chan struct{})
	var inSlow, maxSlow atomic.Int64
	slow := newWebhook(t, func(_ http.ResponseWriter, r *http.Request, _ int) int {
		n := inSlow.Add(1)
		defer inSlow.Add(-1)
		for {
			m := maxSlow.Load()
			if n <= m || maxSlow.CompareAndSwap(m, n) {
				break
			}
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
		return http.StatusOK
	})
	fast := newWebhook(t, nil)
	st := newFakeStore()
	for _, task := range []string{"s1", "s2", "s3", "s4"} {
		st.addConfig("alice", a2a.TaskPushNotificationConfig{ID: "c", TaskID: task, URL: slow.URL})
		st.appendEvents(task, statusEvent(task, a2a.TaskStateWorking))
	}
	st.addConfig("bob", a2a.TaskPushNotificationConfig{ID: "c", TaskID: "f1", URL: fast.URL})
	st.appendEvents("f1", statusEvent("f1", a2a.TaskStateWorking), statusEvent("f1", a2a.TaskStateCompleted))

	d := newTestDispatcher(t, Config{Workers: 3, PerDestination: 2, Timeout: time.Minute, PollInterval: 5 * time.Millisecond}, st, testGuard(t, nil), nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- d.Run(ctx) }()

	waitFor(t, "the fast webhook's events", func() bool { return len(fast.acked()) == 2 })
	if len(slow.acked()) != 0 {
		t.Error("a slow request returned before the fast webhook was served; the test proves nothing")
	}
	if m := maxSlow.Load(); m > 2 {
		t.Errorf("slow webhook had %d requests at once, want at most PerDestination=2", m)
	}
	close(release)
	waitFor(t, "every config delivered", st.done)
	cancel()
	<-done
	if m := maxSlow.Load(); m > 2 {
		t.Errorf("slow webhook had %d requests at once, want at most 2", m)
	}
}

func TestRestartResumesFromCursor(t *testing.T) {
	var failing atomic.Bool
	failing.Store(true)
	wh := newWebhook(t, func(_ http.ResponseWriter, r *http.Request, _ int) int {
		if failing.Load() && r.Header.Get(HeaderNotificationID) >= "t1:3" {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	})
	st := newFakeStore()
	st.addConfig("alice", a2a.TaskPushNotificationConfig{ID: "c1", TaskID: "t1", URL: wh.URL})
	for range 5 {
		st.appendEvents("t1", statusEvent("t1", a2a.TaskStateWorking))
	}
	clk := newClock()
	g := testGuard(t, nil)
	round(context.Background(), newTestDispatcher(t, Config{}, st, g, clk, nil))
	if cur, attempts := st.cursor("t1", "c1"); cur != 2 || attempts != 1 {
		t.Fatalf("after the first process: cursor %d, attempts %d; want 2, 1", cur, attempts)
	}

	// A new process over the same store state.
	failing.Store(false)
	clk.Add(time.Hour)
	round(context.Background(), newTestDispatcher(t, Config{}, st, g, clk, nil))
	if got, want := wh.acked(), []string{"t1:1", "t1:2", "t1:3", "t1:4", "t1:5"}; !reflect.DeepEqual(got, want) {
		t.Errorf("acknowledged = %v, want %v", got, want)
	}
	if got, want := wh.ids(), []string{"t1:1", "t1:2", "t1:3", "t1:3", "t1:4", "t1:5"}; !reflect.DeepEqual(got, want) {
		t.Errorf("received = %v, want %v (the failed event again, under the same id)", got, want)
	}
}

func TestNotifyWakesRun(t *testing.T) {
	wh := newWebhook(t, nil)
	st := newFakeStore()
	st.addConfig("alice", a2a.TaskPushNotificationConfig{ID: "c1", TaskID: "t1", URL: wh.URL})
	st.appendEvents("t1", statusEvent("t1", a2a.TaskStateWorking))
	// The poll interval is longer than the test's guard time, so only
	// Notify can bring the second event out.
	d := newTestDispatcher(t, Config{PollInterval: time.Hour}, st, testGuard(t, nil), nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- d.Run(ctx) }()
	waitFor(t, "the first event", func() bool { return len(wh.acked()) == 1 })
	st.appendEvents("t1", statusEvent("t1", a2a.TaskStateCompleted))
	d.OnEvent(ctx, "alice", &a2a.Task{ID: "t1"}, statusEvent("t1", a2a.TaskStateCompleted))
	waitFor(t, "the second event", func() bool { return len(wh.acked()) == 2 })
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
}

func TestReplicasDoNotDeliverOneConfigTwice(t *testing.T) {
	wh := newWebhook(t, nil)
	st := newLeasingStore(time.Now)
	for _, task := range []string{"t1", "t2", "t3"} {
		st.addConfig("alice", a2a.TaskPushNotificationConfig{ID: "c1", TaskID: task, URL: wh.URL})
		for range 20 {
			st.appendEvents(task, statusEvent(task, a2a.TaskStateWorking))
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var ds []*Dispatcher
	done := make(chan error, 3)
	for i := range 3 {
		d := newTestDispatcher(t, Config{Holder: "replica-" + string(rune('a'+i)), Batch: 3, PollInterval: time.Millisecond}, st, testGuard(t, nil), nil, nil)
		ds = append(ds, d)
		go func() { done <- d.Run(ctx) }()
	}
	waitFor(t, "every event delivered", st.done)
	cancel()
	for range ds {
		<-done
	}
	ids := wh.ids()
	seen := map[string]int{}
	for _, id := range ids {
		seen[id]++
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s delivered %d times", id, n)
		}
	}
	if len(seen) != 60 {
		t.Errorf("%d distinct events delivered, want 60", len(seen))
	}
	if held := st.held(); len(held) != 0 {
		t.Errorf("leases still held after Run returned: %v", held)
	}
}

func TestStaleDueAnswerDoesNotRedeliver(t *testing.T) {
	wh := newWebhook(t, nil)
	st := newFakeStore()
	st.addConfig("alice", a2a.TaskPushNotificationConfig{ID: "c1", TaskID: "t1", URL: wh.URL})
	st.appendEvents("t1", statusEvent("t1", a2a.TaskStateWorking), statusEvent("t1", a2a.TaskStateCompleted))
	d := newTestDispatcher(t, Config{}, st, testGuard(t, nil), newClock(), nil)
	ctx := context.Background()
	stale, err := st.DuePushes(ctx, time.Now(), 10)
	if err != nil {
		t.Fatal(err)
	}
	round(ctx, d)
	// A DuePushes answer read before the delivery, acted on after it.
	d.st = &staleStore{fakeStore: st, due: stale}
	round(ctx, d)
	if got, want := wh.ids(), []string{"t1:1", "t1:2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ids = %v, want %v", got, want)
	}
}

// staleStore answers DuePushes with a fixed, outdated list.
type staleStore struct {
	*fakeStore
	due []taskmanager.PushDue
}

func (s *staleStore) DuePushes(context.Context, time.Time, int) ([]taskmanager.PushDue, error) {
	return slices.Clone(s.due), nil
}

// counts reads bridge_push_deliveries_total from reg by outcome.
func counts(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != "bridge_push_deliveries_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			out[m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
		}
	}
	return out
}
