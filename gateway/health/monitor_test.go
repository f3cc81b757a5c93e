package health

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// TestMonitorsCheckOnTheirIntervalAndStopWhenRemoved: a monitor's first
// check comes within one interval (sooner when it asks), the next ones
// every interval or when the check asks for sooner; a monitor added while
// running starts at once; a removed one checks no more; run returns once
// every monitor has stopped.
func TestMonitorsCheckOnTheirIntervalAndStopWhenRemoved(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ms := NewMonitors(10*time.Second, time.Second)
		var mu sync.Mutex
		checks := map[string][]time.Duration{}
		start := time.Now()
		record := func(name string, next time.Duration) func(ctx context.Context) time.Duration {
			return func(ctx context.Context) time.Duration {
				if dl, ok := ctx.Deadline(); !ok || time.Until(dl) != time.Second {
					t.Errorf("%s: check not bounded by the timeout", name)
				}
				mu.Lock()
				checks[name] = append(checks[name], time.Since(start))
				mu.Unlock()
				return next
			}
		}
		ms.Add(&Monitor{Kind: KindPublish, Name: "steady", Check: record("steady", 0)})
		ms.Add(&Monitor{Kind: KindFrontA2A, Name: "eager", First: time.Second, Check: record("eager", 3*time.Second)})
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { ms.Run(ctx); close(done) }()
		time.Sleep(25 * time.Second)
		ms.Add(&Monitor{Kind: KindExpose, Name: "late", Check: record("late", 0)})
		time.Sleep(20 * time.Second)
		ms.Remove(KindPublish, "steady")
		removedAt := time.Since(start)
		time.Sleep(30 * time.Second)
		stop()
		<-done

		mu.Lock()
		defer mu.Unlock()
		steady := checks["steady"]
		if len(steady) < 4 || steady[0] < 5*time.Second || steady[0] > 10*time.Second {
			t.Fatalf("steady checks at %v: want the first within [5s, 10s]", steady)
		}
		for i := 1; i < len(steady); i++ {
			if gap := steady[i] - steady[i-1]; gap != 10*time.Second {
				t.Errorf("steady: check %d after %s, want 10s", i, gap)
			}
		}
		if last := steady[len(steady)-1]; last > removedAt {
			t.Errorf("steady checked at %s, after its removal at %s", last, removedAt)
		}
		eager := checks["eager"]
		if len(eager) < 10 || eager[0] != time.Second || eager[1]-eager[0] != 3*time.Second {
			t.Errorf("eager checks at %v: want 1s, then every 3s", eager)
		}
		late := checks["late"]
		if len(late) == 0 || late[0] < 30*time.Second || late[0] > 35*time.Second {
			t.Errorf("late checks at %v: want the first within an interval of its adding (25s)", late)
		}
	})
}

// TestBackoffDoublesWithinHalfToWhole pins the fronted agents' retry waits.
func TestBackoffDoublesWithinHalfToWhole(t *testing.T) {
	bo := Backoff{Min: 100 * time.Millisecond, Max: time.Second}
	want := 100 * time.Millisecond
	for i := range 8 {
		if w := bo.Next(); w < want/2 || w > want {
			t.Fatalf("wait %d = %s, want within [%s, %s]", i, w, want/2, want)
		}
		want = min(2*want, time.Second)
	}
	bo.Reset()
	if w := bo.Next(); w > 100*time.Millisecond {
		t.Fatalf("after reset: %s", w)
	}
}
