package bridgetest

import (
	"testing"
	"time"
)

// Eventually calls cond until it returns nil and returns how long that
// took (the figure a recovery test reports). When within passes first the
// test fails with what, the number of tries and cond's last error. The
// pause between tries grows from 5ms to 100ms.
//
// Under testing/synctest the pauses are on the bubble's clock, so a
// condition that depends on fake time is reached without waiting.
func Eventually(t testing.TB, within time.Duration, what string, cond func() error) time.Duration {
	t.Helper()
	start := time.Now()
	deadline := start.Add(within)
	pause := 5 * time.Millisecond
	for tries := 1; ; tries++ {
		err := cond()
		if err == nil {
			return time.Since(start)
		}
		if !time.Now().Before(deadline) {
			t.Fatalf("bridgetest: %s: not within %s (%d tries): %v", what, within, tries, err)
		}
		time.Sleep(min(pause, time.Until(deadline)))
		pause = min(2*pause, 100*time.Millisecond)
	}
}

// Wait waits until done is closed and returns how long that took; the
// test fails with what when within passes first.
func Wait(t testing.TB, within time.Duration, what string, done <-chan struct{}) time.Duration {
	t.Helper()
	start := time.Now()
	timer := time.NewTimer(within)
	defer timer.Stop()
	select {
	case <-done:
		return time.Since(start)
	case <-timer.C:
		t.Fatalf("bridgetest: %s: not within %s", what, within)
		return 0
	}
}
