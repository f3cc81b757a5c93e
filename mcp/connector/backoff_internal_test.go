package connector

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// TestReconnectBackoffDoublesWithJitter: while a server that was up
// refuses, the waits between attempts double from MinBackoff to
// MaxBackoff, each drawn from [wait/2, wait]; a call meanwhile fails with
// ErrUnavailable once the connection has been down for ConnectWait, and at
// once after that.
func TestReconnectBackoffDoublesWithJitter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newConn(Config{Name: "down", MinBackoff: 100 * time.Millisecond, MaxBackoff: time.Second,
			ConnectWait: 2 * time.Second, Logger: slog.New(slog.DiscardHandler)})
		var mu sync.Mutex
		var attempts []time.Time
		c.dial = func(ctx context.Context, _ *session) (transport.Interface, *process, error) {
			mu.Lock()
			attempts = append(attempts, time.Now())
			mu.Unlock()
			return nil, nil, errors.New("connection refused")
		}
		start := time.Now()
		c.connected = true // it was up: the connection was lost
		c.markDown(errors.New("connection refused"))
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			c.reconnect(c.cfg.MinBackoff)
		}()

		// A call waits for the reconnect, then gives up after ConnectWait.
		_, err := c.CallTool(context.Background(), "echo", nil, nil, nil)
		if !errors.Is(err, ErrUnavailable) {
			t.Fatalf("call while down: %v", err)
		}
		if d := time.Since(start); d != 2*time.Second {
			t.Errorf("call failed after %s, want ConnectWait (2s)", d)
		}
		// Down longer than ConnectWait: calls fail at once.
		before := time.Now()
		if _, err := c.CallTool(context.Background(), "echo", nil, nil, nil); !errors.Is(err, ErrUnavailable) || time.Since(before) != 0 {
			t.Errorf("call long after the loss: %v after %s", err, time.Since(before))
		}

		time.Sleep(10 * time.Second)
		c.cancel()
		c.wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		if len(attempts) < 8 {
			t.Fatalf("%d attempts in 10s", len(attempts))
		}
		want := 100 * time.Millisecond
		prev := start
		for i, at := range attempts {
			gap := at.Sub(prev)
			if gap < want/2 || gap > want {
				t.Errorf("attempt %d after %s, want within [%s, %s]", i+1, gap, want/2, want)
			}
			prev, want = at, min(2*want, time.Second)
		}
		if st := c.Status(); st.Connected || st.Err == nil {
			t.Errorf("status while refused: %+v", st)
		}
	})
}

// TestJitterStaysWithinHalfToWhole pins the jitter's range.
func TestJitterStaysWithinHalfToWhole(t *testing.T) {
	for _, d := range []time.Duration{0, 1, 2, time.Millisecond, 30 * time.Second} {
		for range 200 {
			if j := jitter(d); j < d/2 || j > d {
				t.Fatalf("jitter(%s) = %s", d, j)
			}
		}
	}
}
