package push

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
)

// BenchmarkDeliver measures one delivery attempt to a loopback webhook:
// URL check, encoding, headers, request and response.
func BenchmarkDeliver(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	defer srv.Close()
	d := newTestDispatcher(b, Config{}, newFakeStore(), testGuard(b, nil), nil, nil)
	cfg := &a2a.TaskPushNotificationConfig{ID: "c1", TaskID: "t1", URL: srv.URL + "/hook", Token: "tok",
		Authentication: &a2a.AuthenticationInfo{Scheme: "Bearer", Credentials: "cred"}}
	ev := taskmanager.StoredEvent{Seq: 1, Event: statusEvent("t1", a2a.TaskStateWorking)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if r := d.deliver(ctx, "", cfg, ev); r.outcome != outcomeDelivered {
			b.Fatalf("outcome %s: %v", r.outcome, r.err)
		}
	}
}

// BenchmarkRound measures a whole round over a fake store: 16 configs with
// 8 events each, through the workers to a loopback webhook.
func BenchmarkRound(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	defer srv.Close()
	g := testGuard(b, nil)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		st := newFakeStore()
		for i := range 16 {
			task := "t" + string(rune('a'+i))
			st.addConfig("alice", a2a.TaskPushNotificationConfig{ID: "c", TaskID: task, URL: srv.URL})
			for range 8 {
				st.appendEvents(task, statusEvent(task, a2a.TaskStateWorking))
			}
		}
		d := newTestDispatcher(b, Config{PerDestination: 16}, st, g, nil, nil)
		b.StartTimer()
		round(ctx, d)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*128), "ns/event")
}

// BenchmarkValidateConfig measures the header checks made before every
// delivery.
func BenchmarkValidateConfig(b *testing.B) {
	cfg := &a2a.TaskPushNotificationConfig{Token: "opaque-token-0123456789",
		Authentication: &a2a.AuthenticationInfo{Scheme: "Bearer", Credentials: "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln"}}
	b.ReportAllocs()
	for b.Loop() {
		if err := ValidateConfig(cfg); err != nil {
			b.Fatal(err)
		}
	}
}
